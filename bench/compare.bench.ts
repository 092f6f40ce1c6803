/**
 * Tether beside virtual-kubelet on one real control plane (`npm run bench:compare`).
 *
 * Starts one cluster with the harness, then, one after the other, runs the same workload against
 * Tether (bench/compare/tetherNode.ts: the simulated provider) and against virtual-kubelet v1.14.1's
 * node library with an equivalent in-memory provider (bench/baselines/virtual-kubelet, built and
 * cached on first use), each on a virtual node of its own and in a process of its own, both with
 * a 50 qps / 100 burst client (virtual-kubelet: 10 pod workers, its default work queues).
 *
 * Workload per run: N pods bound to the node (spec.nodeName, as virtual-kubelet's e2e suite binds
 * them) created (until every pod is Ready and the status writes stop), a remote outage (the
 * provider's pings fail: the time until every pod is Ready=False, whoever marks it; then pings
 * heal), and deleted (until every pod is gone). `--bind deployment` (the default): a Deployment
 * scaled 0 → N → 0, so kube-controller-manager's client (20 qps) paces both agents; `--bind direct`:
 * the bench creates the pods itself (no client-side limit, 20 in flight) and deletes them with one
 * delete-collection, so each agent's own budget and cost show (bench/compare/options.ts).
 * Then, once, the API server's own limit: a plain client (no client-side limit, 20 in flight)
 * issuing the same status patches to N pods.
 *
 * Measured per agent process from /proc: CPU seconds (utime + stime) and RSS (idle before any
 * pod; peak). Pod status writes come from the API server's `apiserver_request_total`
 * (resource pods, subresource status), which only the agents write here. The provider-to-host
 * latency is the time from the provider notifying a Running status (recorded by each agent's
 * provider) to the pod's Ready=True reaching this process's watch, per pod.
 *
 *   npm run bench:compare                        # N = 1,000, three runs per side
 *   npm run bench:compare -- --pods 200 --runs 1 # a quick look
 *   npm run bench:compare -- --bind direct --pods 1000            # each agent's own ceiling
 *   npm run bench:compare -- --bind direct --pods 1000 --qps 1000 # with both budgets lifted
 *
 * To look into Tether's side, TETHER_BENCH_NODE_ARGS adds Node options to its process (e.g.
 * `--cpu-prof --cpu-prof-dir=DIR`, which NODE_OPTIONS refuses); not used by the tables.
 *
 * The last line printed is the ratio line (bench/compare/ratioLine.ts):
 * `tether/virtual-kubelet: ready=R cpu=R rss=R writes=R p99=R cpu-create=R cpu-delete=R bind=B qps=Q burst=B`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, makeInformer, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { startCluster, type Cluster } from '../src/harness/controlPlane.js';
import { benchLog, nodeReady, repositoryRoot, runBench } from './clusterBench.js';
import { total, writeCounts } from './apiServerWrites.js';
import { cpuSeconds, fmt, inFlight, median, medianCell, memKiB, RssPeak, sleep, waitFor } from './measure.js';
import { parseCompareOptions, type Side } from './compare/options.js';
import { apiLimitLine, ratioLine } from './compare/ratioLine.js';

const root = repositoryRoot;

const options = parseCompareOptions(process.argv.slice(2));
const N = options.pods;
const RUNS = options.runs;
const OUTAGE_TIMEOUT_MS = options.outageTimeoutMs;
const STEP_TIMEOUT_MS = Math.max(300_000, N * 600);
const QUIET_MS = 3_000;
const NAMESPACE = 'bench';

interface RunResult {
  side: Side;
  run: number;
  idleRssMiB: number;
  peakRssMiB: number;
  /** Direct bind: until the bench's own creates all returned (the pace the agents were offered). */
  submitMs: number | null;
  createMs: number;
  createCpuS: number;
  createWrites: number;
  createSettleMs: number;
  deleteMs: number;
  deleteCpuS: number;
  deleteWrites: number;
  outageNotReadyMs: number | null;
  outageRecoveredMs: number | null;
  outageWrites: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

const log = benchLog('bench:compare');

// --- the API server's counters ----------------------------------------------------------------

interface Writes { status: number; deletes: number }

async function apiWrites(cluster: Cluster): Promise<Writes> {
  const counts = await writeCounts(cluster);
  return {
    status: total(counts, (key) => /^pods\/status (PATCH|PUT|APPLY)\b/.test(key)),
    deletes: total(counts, (key) => key.startsWith('pods DELETE')),
  };
}

/** Waits until the pod status write counter has not moved for QUIET_MS; returns the last count. */
async function writesSettled(cluster: Cluster): Promise<Writes> {
  let last = await apiWrites(cluster);
  let since = Date.now();
  for (;;) {
    await sleep(1_000);
    const now = await apiWrites(cluster);
    if (now.status !== last.status) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= QUIET_MS) return now;
  }
}

// --- host pods, as a watch sees them ----------------------------------------------------------

interface Seen { uid: string; ready: boolean; readyAt: number | undefined }

class PodView {
  readonly pods = new Map<string, Seen>();
  private readonly informer;

  constructor(cluster: Cluster, label: string) {
    const kc = cluster.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    this.informer = makeInformer(kc, `/api/v1/namespaces/${NAMESPACE}/pods`, () => core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: label }), label);
    const update = (pod: V1Pod): void => {
      const name = pod.metadata?.name ?? '';
      const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      const before = this.pods.get(name);
      const uid = pod.metadata?.uid ?? '';
      const readyAt = before?.uid === uid ? before.readyAt : undefined;
      this.pods.set(name, { uid, ready, readyAt: readyAt ?? (ready ? Date.now() : undefined) });
    };
    this.informer.on('add', update);
    this.informer.on('update', update);
    this.informer.on('delete', (pod) => void this.pods.delete(pod.metadata?.name ?? ''));
    this.informer.on('error', () => void setTimeout(() => void this.informer.start().catch(() => undefined), 1_000));
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  count(pred: (s: Seen) => boolean): number {
    let n = 0;
    for (const s of this.pods.values()) if (pred(s)) n++;
    return n;
  }
}

// --- the agents -------------------------------------------------------------------------------

/** The pod both bind modes create: one pause container, bound to the node. */
function podSpec(node: string): NonNullable<V1Pod['spec']> {
  return {
    nodeName: node,
    containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
    tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
  };
}

function deploymentYaml(name: string, node: string, replicas: number): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec(node) },
    },
  });
}

/** The workload's two steps, as the bind mode makes them. */
interface Binder {
  create(app: string, node: string): Promise<void>;
  remove(app: string): Promise<void>;
  cleanUp(app: string): Promise<void>;
}

function binder(cluster: Cluster): Binder {
  if (options.bind === 'deployment') {
    return {
      create: async (app, node) => void await cluster.kubectl(['apply', '-f', '-'], { input: deploymentYaml(app, node, N) }),
      remove: async (app) => void await cluster.kubectl(['scale', '-n', NAMESPACE, `deployment/${app}`, '--replicas=0']),
      cleanUp: async (app) => void await cluster.kubectl(['delete', '-n', NAMESPACE, `deployment/${app}`, '--wait=false']),
    };
  }
  const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
  return {
    create: (app, node) => inFlight(N, 20, (i) => core.createNamespacedPod({
      namespace: NAMESPACE,
      body: { metadata: { name: `${app}-${i}`, labels: { app } }, spec: podSpec(node) },
    })),
    // One request marks every pod deleted (graceful: each agent then finishes its pods' deletion).
    remove: async (app) => void await core.deleteCollectionNamespacedPod({ namespace: NAMESPACE, labelSelector: `app=${app}` }),
    cleanUp: async () => undefined,
  };
}

/** Extra Node options for Tether's process only (a profile of the agent alone). */
const nodeArgs = (process.env['TETHER_BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');

function startAgent(side: Side, node: string, kubeconfig: string, eventsFile: string, vkBinary: string): ChildProcess {
  const out = { stdio: ['ignore', 'ignore', 'pipe'] as ['ignore', 'ignore', 'pipe'] };
  const budget = ['--qps', String(options.qps), '--burst', String(options.burst)];
  const child = side === 'tether'
    ? spawn(process.execPath, [...nodeArgs, join(root, options.tetherBuild === 'bundle' ? 'dist/bench/compare/tetherNode.bundle.mjs' : 'dist/bench/compare/tetherNode.js'), '--kubeconfig', kubeconfig, '--node', node, '--events-file', eventsFile, ...budget], out)
    : spawn(vkBinary, ['--kubeconfig', kubeconfig, '--node', node, '--events-file', eventsFile, ...budget, '--workers', '10'], out);
  const chunks: string[] = [];
  child.stderr?.on('data', (d: Buffer) => {
    chunks.push(d.toString());
    if (chunks.length > 200) chunks.shift();
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && code !== null && signal === null) log(`${side} agent exited with ${code}: ${chunks.join('').slice(-2000)}`);
  });
  return child;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function runOnce(cluster: Cluster, side: Side, run: number, vkBinary: string, dir: string): Promise<RunResult> {
  const bind = binder(cluster);
  const node = `${side === 'tether' ? 'tether' : 'vk'}-${run}`;
  const app = `bench-${node}`;
  const eventsFile = join(dir, `${node}.events`);
  const child = startAgent(side, node, cluster.kubeconfigPath, eventsFile, vkBinary);
  const pid = child.pid!;
  const rss = new RssPeak(pid);
  const view = new PodView(cluster, `app=${app}`);
  try {
    await waitFor(`node ${node} Ready`, 120_000, async () => ((await nodeReady(cluster, node)) ? true : undefined), 1_000);
    await sleep(5_000);
    const idleRssMiB = memKiB(pid, 'VmRSS') / 1024;
    await view.start();

    // 0 → N
    let cpu = cpuSeconds(pid);
    let writes = await apiWrites(cluster);
    let t = Date.now();
    const submitted = bind.create(app, node).then(() => Date.now() - t);
    // Awaited once every pod is Ready; a failed create is reported there, not as an unhandled rejection.
    submitted.catch(() => undefined);
    await waitFor(`${N} pods Ready on ${node}`, STEP_TIMEOUT_MS, () => (view.count((s) => s.ready) >= N ? true : undefined));
    const createMs = Date.now() - t;
    const createCpuS = cpuSeconds(pid) - cpu;
    const submittedMs = await submitted;
    const submitMs = options.bind === 'direct' ? submittedMs : null;
    const settled = await writesSettled(cluster);
    const createSettleMs = Date.now() - t - QUIET_MS;
    const createWrites = settled.status - writes.status;
    log(`${side} #${run}: ${N} Ready in ${(createMs / 1000).toFixed(1)} s${submitMs === null ? '' : ` (created by ${(submitMs / 1000).toFixed(1)} s)`}, ${createCpuS.toFixed(1)} s CPU, ${createWrites} status writes`);

    // provider-to-host latency, from the provider's Running notifications and the watch
    const notified = new Map<string, number>();
    for (const line of readFileSync(eventsFile, 'utf8').split('\n')) {
      const [, uid, event, at] = line.split(' ');
      if (event === 'running' && uid) notified.set(uid, Number(at));
    }
    const latencies: number[] = [];
    for (const seen of view.pods.values()) {
      const at = notified.get(seen.uid);
      if (at !== undefined && seen.readyAt !== undefined) latencies.push(Math.max(0, seen.readyAt - at));
    }

    const outage = options.skipOutage ? { outageNotReadyMs: null, outageRecoveredMs: null, outageWrites: 0 } : await remoteOutage(cluster, child, view);
    log(`${side} #${run}: outage: ${options.skipOutage ? 'skipped' : `all NotReady ${outage.outageNotReadyMs === null ? 'never' : `${(outage.outageNotReadyMs / 1000).toFixed(1)} s`}, recovered ${outage.outageRecoveredMs === null ? 'never' : `${(outage.outageRecoveredMs / 1000).toFixed(1)} s`}`}`);

    // N → 0
    cpu = cpuSeconds(pid);
    writes = await apiWrites(cluster);
    t = Date.now();
    await bind.remove(app);
    await waitFor(`every pod gone from ${node}`, STEP_TIMEOUT_MS, () => (view.pods.size === 0 ? true : undefined));
    const deleteMs = Date.now() - t;
    const deleteCpuS = cpuSeconds(pid) - cpu;
    const deleteWrites = (await apiWrites(cluster)).status - writes.status;
    log(`${side} #${run}: all gone in ${(deleteMs / 1000).toFixed(1)} s, ${deleteCpuS.toFixed(1)} s CPU, ${deleteWrites} status writes`);
    await bind.cleanUp(app);

    return {
      side, run, idleRssMiB, peakRssMiB: rss.peakMiB(),
      submitMs, createMs, createCpuS, createWrites, createSettleMs, deleteMs, deleteCpuS, deleteWrites,
      ...outage,
      latencyP50Ms: percentile(latencies, 50), latencyP99Ms: percentile(latencies, 99),
    };
  } finally {
    rss.stop();
    await view.stop().catch(() => undefined);
    child.kill('SIGTERM');
    await Promise.race([new Promise((r) => child.once('exit', r)), sleep(10_000)]);
    child.kill('SIGKILL');
  }
}

/** The remote outage: the provider's pings fail until every pod is Ready=False, then heal. */
async function remoteOutage(cluster: Cluster, child: ChildProcess, view: PodView): Promise<Pick<RunResult, 'outageNotReadyMs' | 'outageRecoveredMs' | 'outageWrites'>> {
  const writes = await apiWrites(cluster);
  let t = Date.now();
  child.kill('SIGUSR2');
  let outageNotReadyMs: number | null = null;
  try {
    await waitFor('every pod Ready=False', OUTAGE_TIMEOUT_MS, () => (view.count((s) => s.ready) === 0 ? true : undefined));
    outageNotReadyMs = Date.now() - t;
  } catch { /* reported as not marked */ }
  child.kill('SIGUSR1');
  t = Date.now();
  let outageRecoveredMs: number | null = null;
  try {
    await waitFor('every pod Ready again', OUTAGE_TIMEOUT_MS, () => (view.count((s) => s.ready) >= N ? true : undefined));
    outageRecoveredMs = Date.now() - t;
  } catch { /* reported as not recovered */ }
  const outageWrites = (await writesSettled(cluster)).status - writes.status;
  return { outageNotReadyMs, outageRecoveredMs, outageWrites };
}

/** The API server's own write limit: a plain client, no client-side limit, 20 patches in flight. */
async function plainClientLimit(cluster: Cluster): Promise<{ writesPerSecond: number; concurrency: number }> {
  const namespace = 'bench-plain';
  const kc = cluster.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  await cluster.kubectl(['create', 'namespace', namespace]).catch(() => undefined);
  // A Node object with no agent: kube-controller-manager's pod GC deletes pods bound to a node that
  // does not exist (after 40 s), which a slow machine's creates outlast (a 500-pod run lost its pods).
  const node = 'bench-plain';
  await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }) });
  const concurrency = 20;
  const pool = (work: (name: string) => Promise<unknown>): Promise<void> => inFlight(N, concurrency, (i) => work(`plain-${i}`));
  await pool((name) => core.createNamespacedPod({
    namespace,
    body: { metadata: { name }, spec: { nodeName: node, containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } },
  }));
  const now = new Date();
  const status = {
    phase: 'Running', hostIP: '127.0.0.1', podIP: '10.244.0.1', startTime: now,
    conditions: ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', reason: '', message: '', lastTransitionTime: now })),
    containerStatuses: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } } }],
  };
  const t = Date.now();
  await pool((name) => core.patchNamespacedPodStatus({ name, namespace, body: { status } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch)));
  const writesPerSecond = N / ((Date.now() - t) / 1000);
  await cluster.kubectl(['delete', 'namespace', namespace, '--wait=false']);
  await cluster.kubectl(['delete', 'node', node, '--wait=false']);
  return { writesPerSecond, concurrency };
}

// --- report -----------------------------------------------------------------------------------

function report(results: RunResult[], plain: { writesPerSecond: number; concurrency: number } | undefined): void {
  const of = (side: Side): RunResult[] => results.filter((r) => r.side === side);
  const rows: [string, (r: RunResult) => number | null, number][] = [
    ...(options.bind === 'direct' ? [['bench: every pod created (s)', (r: RunResult) => (r.submitMs === null ? null : r.submitMs / 1000), 1] as [string, (r: RunResult) => number | null, number]] : []),
    ['all Ready (s)', (r) => r.createMs / 1000, 1],
    ['status writes stop (s)', (r) => r.createSettleMs / 1000, 1],
    ['all deleted (s)', (r) => r.deleteMs / 1000, 1],
    ['CPU, creating (s)', (r) => r.createCpuS, 1],
    ['CPU, deleting (s)', (r) => r.deleteCpuS, 1],
    ['RSS idle, before the pods (MiB)', (r) => r.idleRssMiB, 0],
    ['RSS peak (MiB)', (r) => r.peakRssMiB, 0],
    ['pod status writes, creating', (r) => r.createWrites, 0],
    ['pod status writes, deleting', (r) => r.deleteWrites, 0],
    ['status writes per pod (create + delete)', (r) => (r.createWrites + r.deleteWrites) / N, 2],
    ['achieved status writes/s, creating', (r) => r.createWrites / (r.createSettleMs / 1000), 1],
    ['provider → host latency p50 (ms)', (r) => r.latencyP50Ms, 0],
    ['provider → host latency p99 (ms)', (r) => r.latencyP99Ms, 0],
    ['outage: every pod Ready=False after (s)', (r) => (r.outageNotReadyMs === null ? null : r.outageNotReadyMs / 1000), 1],
    ['outage healed: every pod Ready again after (s)', (r) => (r.outageRecoveredMs === null ? null : r.outageRecoveredMs / 1000), 1],
    ['pod status writes, outage and recovery', (r) => r.outageWrites, 0],
  ];
  const out: string[] = [];
  out.push(`\n${N} pods, bind ${options.bind}, both agents at ${options.qps} qps / ${options.burst} burst, ${RUNS} run(s) per side; medians (every run in brackets)\n`);
  out.push('| | Tether | virtual-kubelet | Tether / VK |');
  out.push('|---|---|---|---|');
  for (const [label, pick, digits] of rows) {
    const t = of('tether').map(pick);
    const v = of('virtual-kubelet').map(pick);
    const mt = median(t);
    const mv = median(v);
    const ratio = mt !== null && mv !== null && mv !== 0 ? fmt(mt / mv, 2) : 'n/a';
    out.push(`| ${label} | ${medianCell(t, digits)} | ${medianCell(v, digits)} | ${ratio} |`);
  }
  out.push('');
  out.push('Outage: Tether marks every pod Ready=False itself when its node goes NotReady; virtual-kubelet has no such marking,');
  out.push('so a figure in its column is kube-controller-manager marking the pods of a NotReady node (node-monitor-grace-period 20 s here).');
  if (plain) out.push(`API server's own limit: a plain client (no client-side limit, ${plain.concurrency} in flight) patched ${N} pod statuses at ${fmt(plain.writesPerSecond, 0)} writes/s; both agents' clients are capped at ${options.qps} qps (burst ${options.burst}).`);
  out.push('');
  out.push(apiLimitLine(of('tether').map((x) => x.createMs), N, plain?.writesPerSecond));
  out.push(ratioLine(of('tether'), of('virtual-kubelet'), options));
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<void> {
  log('building the virtual-kubelet baseline (cached after the first build)');
  const vkBinary = execFileSync('bash', [join(root, 'bench/baselines/virtual-kubelet/build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'tether-compare-'));
  log('starting the control plane');
  const cluster = await startCluster({ name: 'bench-compare' });
  const results: RunResult[] = [];
  let plain: Awaited<ReturnType<typeof plainClientLimit>> | undefined;
  try {
    await cluster.kubectl(['create', 'namespace', NAMESPACE]);
    await waitFor('the default service account', 60_000, async () => ((await cluster.kubectl(['get', 'sa', 'default', '-n', NAMESPACE]).catch(() => '')) ? true : undefined), 1_000);
    const sides = options.sides;
    // Alternate the sides, so that a change in the machine's load falls on both.
    for (let run = 1; run <= RUNS; run++) {
      for (const side of sides) {
        log(`${side}, run ${run} of ${RUNS}`);
        results.push(await runOnce(cluster, side, run, vkBinary, dir));
      }
    }
    plain = await plainClientLimit(cluster).catch((error: unknown) => {
      log(`plain client limit: ${String(error)}`);
      return undefined;
    });
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  report(results, plain);
}

runBench('bench:compare', main);
