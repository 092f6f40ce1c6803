/**
 * Restarting Tether with N pods already offloaded, on two real control planes
 * (`npm run bench:restart`): the time until the new process is at steady state, and every write
 * either API server receives meanwhile.
 *
 * Two harness clusters: a host and a remote. The remote's only worker is a Tether with the
 * simulated provider (bench/compare/tetherNode.ts, untainted, pod IPs in 10.88.0.0/16), in a
 * process of its own for the whole bench, so the remote pods outlive the host agent. The host
 * agent is the real thing, `tether run --config FILE` (dist/src/cli/main.js), one virtual node
 * backed by the Kubernetes provider, in a process of its own so its CPU and RSS are its own.
 *
 * Workload: a ConfigMap, a Service and a Deployment of N pods bound to the virtual node (one
 * pause container, the ConfigMap as a volume), until every host pod is Running+Ready with its
 * remote pod's IP and the writes are quiet. Then, `--runs` times each, alternating: a graceful
 * restart (SIGTERM, the Node kept) and a crash (SIGKILL), each followed by a fresh `tether run`.
 *
 * Measured per restart: from the new process's spawn to steady state (the Node Ready and every pod
 * actor adopted, `running` and ready, from the agent's `/actors`; then until the writes are quiet:
 * nothing but Leases and Nodes moved for QUIET_MS), the new process's CPU and peak RSS to then,
 * and every write both API servers counted (`apiserver_request_total`, by resource, subresource
 * and verb) from the signal to steady state, beside what the same span of a quiet window (the
 * agent running, nothing changing, just before the restart) counts: the background of Lease
 * renewals and status heartbeats of every component. The Events written in the window are
 * counted by reason.
 *
 *   npm run bench:restart                         # N = 1,000, three restarts of each kind
 *   npm run bench:restart -- --pods 100 --runs 1  # a quick look
 *   npm run bench:restart -- --pods 10000 --runs 1 --agent-node-flags=--max-old-space-size=256   # the host agent's V8 as in the chart's 512Mi container
 *
 * The last line: `restart: ready=Xs writes=host:N remote:M pods-status:K`, medians over every
 * restart: host writes other than Lease renewals, remote writes other than Leases and Nodes (the
 * remote's own), host pod status writes.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster, type Cluster } from '../src/harness/controlPlane.js';
import { benchLog, nodeReady, repositoryRoot, runBench } from './clusterBench.js';
import { freePort } from '../src/harness/ports.js';
import { startProcess, type ManagedProcess } from '../src/harness/processes.js';
import { total, writeCounts, writesBetween, type WriteCounts } from './apiServerWrites.js';
import { cpuSeconds, fmt, median, medianCell, RssPeak, sleep, waitFor } from './measure.js';

const root = repositoryRoot;

const { values: flags } = parseArgs({
  options: {
    pods: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '3' },
    'quiet-window-s': { type: 'string', default: '30' },
    /** Node flags for the host agent only, space-separated (e.g. the chart's V8 sizing: `--max-old-space-size=256`). */
    'agent-node-flags': { type: 'string', default: '' },
  },
});
const N = Number(flags.pods);
const RUNS = Number(flags.runs);
const QUIET_WINDOW_MS = Number(flags['quiet-window-s']) * 1000;
const AGENT_NODE_FLAGS = flags['agent-node-flags'].split(' ').filter((f) => f !== '');
const STEP_TIMEOUT_MS = Math.max(300_000, N * 600);
/** Writes other than Leases and Nodes have not moved for this long: steady. */
const QUIET_MS = 5_000;
const NAMESPACE = 'bench';
const APP = 'restart';
const NODE = 'tether-restart';
const REMOTE_WORKER = 'remote-worker';
const REMOTE_CIDR = '10.88.0.0/16';
const REMOTE_IP_PREFIX = '10.88.';

type Mode = 'graceful' | 'crash';

interface Restart {
  mode: Mode;
  run: number;
  /** From the spawn to the Node Ready and every pod actor adopted, running and ready. */
  readyMs: number;
  /** From the spawn to the last write that is not a Lease or a Node (then QUIET_MS of quiet). */
  steadyMs: number;
  cpuS: number;
  peakRssMiB: number;
  /** From the signal to steady state. */
  windowMs: number;
  host: Map<string, number>;
  remote: Map<string, number>;
  /** The quiet window's writes, scaled to this restart's window. */
  hostBackground: Map<string, number>;
  remoteBackground: Map<string, number>;
  events: Map<string, number>;
  /** Remote pod reads (GET of one pod) from the signal to steady state: adoption's cost in requests. */
  remotePodReads: number;
}

const log = benchLog('bench:restart');

const GETS: ReadonlySet<string> = new Set(['GET']);
const isLease = (key: string): boolean => key.startsWith('coordination.k8s.io/leases ');
/** Writes that are not part of the quiet background: everything but Leases and Nodes. */
const isChange = (key: string): boolean => !isLease(key) && !key.startsWith('nodes');

// --- the workload -----------------------------------------------------------------------------

function workload(replicas: number): string {
  const objects = [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: APP, namespace: NAMESPACE }, data: { greeting: 'hello' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: APP, namespace: NAMESPACE }, spec: { selector: { app: APP }, ports: [{ port: 80 }] } },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: APP, namespace: NAMESPACE },
      spec: {
        replicas,
        selector: { matchLabels: { app: APP } },
        template: {
          metadata: { labels: { app: APP } },
          spec: {
            nodeName: NODE,
            containers: [{
              name: 'app', image: 'registry.k8s.io/pause:3.10',
              resources: { requests: { cpu: '10m', memory: '16Mi' } },
              volumeMounts: [{ name: 'cfg', mountPath: '/etc/app' }],
            }],
            volumes: [{ name: 'cfg', configMap: { name: APP } }],
            tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
          },
        },
      },
    },
  ];
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
}

/**
 * Host pods Running and Ready with a remote IP. Columns, not `-o json`: at 10,000 pods the JSON is
 * over the harness's 32 MiB output buffer (kubectl is killed), one line per pod is ~40 bytes.
 */
async function offloadedReady(host: Cluster): Promise<number> {
  const columns = 'P:.status.phase,IP:.status.podIP,R:.status.conditions[?(@.type=="Ready")].status';
  const out = await host.kubectl(['get', 'pods', '-n', NAMESPACE, '-l', `app=${APP}`, '--no-headers', '-o', `custom-columns=${columns}`], { timeoutMs: 120_000 });
  return out.split('\n').filter((line) => {
    const [phase, ip, ready] = line.trim().split(/\s+/);
    return phase === 'Running' && ip?.startsWith(REMOTE_IP_PREFIX) === true && ready === 'True';
  }).length;
}

/** Waits until nothing but Leases and Nodes has been written to either cluster for QUIET_MS; returns when the last change was seen. */
async function changesQuiet(host: Cluster, remote: Cluster, timeoutMs: number): Promise<number> {
  const changes = async (): Promise<number> => total(await writeCounts(host), isChange) + total(await writeCounts(remote), isChange);
  let last = await changes();
  let since = Date.now();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await sleep(1_000);
    const now = await changes();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= QUIET_MS) return since;
    if (Date.now() > deadline) throw new Error(`writes still moving after ${timeoutMs} ms`);
  }
}

// --- the agents -------------------------------------------------------------------------------

/**
 * An agent is a harness process: its own process group, its output in its log file, killed when
 * the bench exits however it ends (an interrupted bench leaves no agent behind).
 */
type Agent = ManagedProcess;

function spawnLogged(name: string, args: string[], logFile: string): Agent {
  return startProcess({ name, command: process.execPath, args, logPath: logFile });
}

/**
 * `work`, failed as soon as one of `agents` exits: an agent that runs out of heap mid-run would
 * otherwise leave the bench waiting out its step timeouts (an hour at 10k pods) for pods that no
 * agent drives any more.
 */
function whileAlive<T>(agents: Agent[], work: Promise<T>): Promise<T> {
  const died = agents.map((a) => a.exited.then((how): never => {
    throw new Error(`${a.spec.name} (pid ${a.pid}) exited (${how.signal ?? `exit code ${how.code}`}) mid-run; its log: ${a.spec.logPath}`);
  }));
  return Promise.race([work, ...died]);
}

interface HostAgentFiles { config: string; introspectionPort: number; logFile: string }

async function hostAgentConfig(dir: string, host: Cluster, remote: Cluster): Promise<HostAgentFiles> {
  const introspectionPort = await freePort();
  const kubeletPort = await freePort();
  const config = {
    logLevel: 'info',
    host: { kubeconfig: host.kubeconfigPath },
    ports: { introspection: { port: introspectionPort, address: '127.0.0.1' }, metrics: { port: 0 } },
    shutdown: { timeoutMs: 10_000, deleteNodeOnShutdown: false },
    nodes: [{
      name: NODE,
      internalIP: '127.0.0.1',
      kubeletPort,
      provider: {
        type: 'kubernetes',
        remote: { kubeconfig: remote.kubeconfigPath },
        hostClusterId: 'bench',
        // The remote's only worker is itself a (simulated) Tether node.
        countVirtualNodes: true,
      },
    }],
  };
  const file = join(dir, 'tether.yaml');
  writeFileSync(file, JSON.stringify(config, null, 2)); // JSON is YAML
  return { config: file, introspectionPort, logFile: join(dir, 'host-agent.log') };
}

const startHostAgent = (files: HostAgentFiles): Agent =>
  spawnLogged('host agent', [...AGENT_NODE_FLAGS, join(root, 'dist/src/cli/main.js'), 'run', '--config', files.config], files.logFile);

interface ActorLine { kind?: string; summary?: { stage?: string; ready?: boolean } | null }

interface SummaryLine { nodes?: { node: string; roles: { role: string; states: { state: string; count: number }[] }[] }[] }

/**
 * Pod actors of the virtual node that are running and ready, from the agent's `/actors`. Its pages
 * are bounded (96 KiB, ~200 pod actors), so this follows the cursor; the cheap `/actors/summary`
 * goes first, and the pages are read only once every pod actor reports phase Running.
 */
async function adoptedPods(port: number): Promise<number> {
  const base = `http://127.0.0.1:${port}`;
  try {
    const summary = await fetch(`${base}/actors/summary?node=${NODE}&role=pod`, { signal: AbortSignal.timeout(10_000) });
    if (!summary.ok) return 0;
    const states = ((await summary.json()) as SummaryLine).nodes?.find((n) => n.node === NODE)?.roles.find((r) => r.role === 'pod')?.states ?? [];
    const running = states.find((s) => s.state === 'running')?.count ?? 0;
    if (running < N) return running;
    let n = 0;
    for (let cursor: string | undefined = '', pages = 0; cursor !== undefined && pages < 10_000; pages++) {
      const res = await fetch(`${base}/actors?node=${NODE}&role=pod&format=ndjson${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { signal: AbortSignal.timeout(10_000) });
      if (!res.ok) return 0;
      cursor = undefined;
      for (const line of (await res.text()).split('\n')) {
        if (!line) continue;
        const a = JSON.parse(line) as ActorLine & { cursor?: string };
        if (a.cursor !== undefined) cursor = a.cursor;
        else if (a.kind === 'pod' && a.summary?.stage === 'running' && a.summary.ready === true) n++;
      }
    }
    return n;
  } catch {
    return 0; // not listening yet
  }
}

// --- Events -----------------------------------------------------------------------------------

/** Events created or repeated since `since`, by `cluster: reason (controller)`. */
async function eventsSince(clusters: Record<string, Cluster>, since: number, into: Map<string, number>): Promise<void> {
  // creationTimestamp has second resolution: an Event of the window's first second counts.
  const from = Math.floor(since / 1000) * 1000;
  // One tab-separated line per Event, not `-o json` (over the 32 MiB output buffer at 10k pods).
  const fields = '{range .items[*]}{.reason}{"\\t"}{.reportingController}{"\\t"}{.metadata.creationTimestamp}{"\\t"}{.series.lastObservedTime}{"\\n"}{end}';
  for (const [name, cluster] of Object.entries(clusters)) {
    const out = await cluster.kubectl(['get', 'events.events.k8s.io', '-A', '-o', `jsonpath=${fields}`], { timeoutMs: 120_000 });
    for (const line of out.split('\n')) {
      if (!line) continue;
      const [reason, controller, creation, observed] = line.split('\t');
      const created = Date.parse(creation ?? '');
      const repeated = Date.parse(observed ?? '');
      if (!(created >= from || repeated >= from)) continue;
      const key = `${name}: ${reason || '?'} (${controller || '?'})`;
      into.set(key, (into.get(key) ?? 0) + 1);
    }
  }
}

// --- one restart ------------------------------------------------------------------------------

function scaled(counts: WriteCounts, fromMs: number, toMs: number): Map<string, number> {
  return new Map([...counts].map(([k, v]) => [k, (v * toMs) / fromMs]));
}

interface Setup { readonly host: Cluster; readonly remote: Cluster; readonly files: HostAgentFiles; readonly worker: Agent }

async function restartOnce(mode: Mode, run: number, agent: Agent, { host, remote, files, worker }: Setup): Promise<{ restart: Restart; agent: Agent }> {
  // The background: the same agent, nothing changing.
  const quietStart = Date.now();
  const [hq0, rq0] = await Promise.all([writeCounts(host), writeCounts(remote)]);
  await sleep(QUIET_WINDOW_MS);
  const [hq1, rq1] = await Promise.all([writeCounts(host), writeCounts(remote)]);
  const quietMs = Date.now() - quietStart;

  const [h0, r0, g0] = await Promise.all([writeCounts(host), writeCounts(remote), writeCounts(remote, GETS)]);
  const signalled = Date.now();
  if (mode === 'graceful') await agent.stop(30_000);
  else {
    process.kill(agent.pid, 'SIGKILL');
    // The harness unrefs its children: the timer keeps this process alive until the exit comes.
    await Promise.race([agent.exited, sleep(30_000)]);
  }
  log(`${mode} #${run}: old agent gone after ${((Date.now() - signalled) / 1000).toFixed(1)} s; starting a new one`);

  const next = startHostAgent(files);
  const spawned = Date.now();
  const rss = new RssPeak(next.pid);
  try {
    await whileAlive([next, worker], waitFor(`node Ready and ${N} pod actors adopted`, STEP_TIMEOUT_MS, async () =>
      ((await nodeReady(host, NODE)) && (await adoptedPods(files.introspectionPort)) >= N ? true : undefined), 500));
    const readyMs = Date.now() - spawned;
    const lastChange = await whileAlive([next, worker], changesQuiet(host, remote, STEP_TIMEOUT_MS));
    const steadyMs = Math.max(readyMs, lastChange - spawned);
    const cpuS = cpuSeconds(next.pid);
    const [h1, r1, g1] = await Promise.all([writeCounts(host), writeCounts(remote), writeCounts(remote, GETS)]);
    const windowMs = Date.now() - signalled;
    const events = new Map<string, number>();
    await eventsSince({ host, remote }, signalled, events);
    const restart: Restart = {
      mode, run, readyMs, steadyMs, cpuS, peakRssMiB: rss.peakMiB(), windowMs,
      host: writesBetween(h0, h1), remote: writesBetween(r0, r1),
      hostBackground: scaled(writesBetween(hq0, hq1), quietMs, windowMs),
      remoteBackground: scaled(writesBetween(rq0, rq1), quietMs, windowMs),
      events,
      remotePodReads: total(writesBetween(g0, g1), (k) => k.startsWith('pods GET')),
    };
    log(`${mode} #${run}: ready ${(readyMs / 1000).toFixed(1)} s, steady ${(steadyMs / 1000).toFixed(1)} s, ${cpuS.toFixed(1)} s CPU; writes host ${total(restart.host)} (changes ${total(restart.host, isChange)}), remote ${total(restart.remote)} (changes ${total(restart.remote, isChange)})`);
    return { restart, agent: next };
  } finally {
    rss.stop();
  }
}

// --- report -----------------------------------------------------------------------------------

/** Host writes other than Lease renewals (Tether's node Lease and the API server's identity Lease, each every 10 s). */
const hostWrites = (r: Restart): number => total(r.host, (k) => !isLease(k));
/** Remote writes only the host agent can have made: Leases and Nodes there are the remote's own (its worker, its API server). */
const remoteWrites = (r: Restart): number => total(r.remote, isChange);

function report(restarts: Restart[]): void {
  const modes: Mode[] = ['graceful', 'crash'];
  const of = (mode: Mode): Restart[] => restarts.filter((r) => r.mode === mode);
  const out: string[] = [`\n${N} pods, ${RUNS} restart(s) of each kind; medians (every restart in brackets)\n`];
  out.push('| | graceful (SIGTERM) | crash (SIGKILL) |', '|---|---|---|');
  const rows: [string, (r: Restart) => number, number][] = [
    ['spawn → Node Ready, every pod adopted (s)', (r) => r.readyMs / 1000, 1],
    ['spawn → writes quiet (s)', (r) => r.steadyMs / 1000, 1],
    ['CPU of the new process to steady state (s)', (r) => r.cpuS, 1],
    ['peak RSS of the new process (MiB)', (r) => r.peakRssMiB, 0],
    ['restart window, signal → steady (s)', (r) => r.windowMs / 1000, 1],
    ['host writes (all)', (r) => total(r.host), 0],
    ['host writes, not Lease renewals', hostWrites, 0],
    ['remote writes (all)', (r) => total(r.remote), 0],
    ['remote writes, not Leases or Nodes (the host agent\'s)', remoteWrites, 0],
    ['host pods/status writes', (r) => total(r.host, (k) => k.startsWith('pods/status ')), 0],
    ['remote pod reads (GET), not writes', (r) => r.remotePodReads, 0],
  ];
  for (const [label, pick, digits] of rows) out.push(`| ${label} | ${modes.map((m) => medianCell(of(m).map(pick), digits)).join(' | ')} |`);

  for (const side of ['host', 'remote'] as const) {
    const keys = new Set(restarts.flatMap((r) => [...r[side].keys(), ...(side === 'host' ? r.hostBackground : r.remoteBackground).keys()]));
    out.push('', `${side} API server: writes in the restart window (quiet background over the same span)`, '', '| resource, verb | graceful | crash |', '|---|---|---|');
    for (const key of [...keys].sort()) {
      const cell = (mode: Mode): string => {
        const rs = of(mode);
        const bg = median(rs.map((r) => (side === 'host' ? r.hostBackground : r.remoteBackground).get(key) ?? 0));
        return `${medianCell(rs.map((r) => r[side].get(key) ?? 0), 0)} (${fmt(bg, 0)})`;
      };
      out.push(`| ${key} | ${modes.map(cell).join(' | ')} |`);
    }
  }
  const reasons = new Set(restarts.flatMap((r) => [...r.events.keys()]));
  out.push('', 'Events written in the restart window, by reason', '', '| cluster: reason (controller) | graceful | crash |', '|---|---|---|');
  if (reasons.size === 0) out.push('| none | | |');
  for (const key of [...reasons].sort()) out.push(`| ${key} | ${modes.map((m) => medianCell(of(m).map((r) => r.events.get(key) ?? 0), 0)).join(' | ')} |`);

  const all = (pick: (r: Restart) => number): string => fmt(median(restarts.map(pick)), 0);
  out.push('', `restart: ready=${fmt(median(restarts.map((r) => r.readyMs / 1000)), 1)}s writes=host:${all(hostWrites)} remote:${all(remoteWrites)} pods-status:${all((r) => total(r.host, (k) => k.startsWith('pods/status ')))}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

// --- main -------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-restart-'));
  log(`starting the host and remote control planes (logs in ${dir})`);
  const [host, remote] = await Promise.all([startCluster({ name: 'bench-restart-host' }), startCluster({ name: 'bench-restart-remote' })]);
  let worker: Agent | undefined;
  let agent: Agent | undefined;
  const restarts: Restart[] = [];
  try {
    worker = spawnLogged('remote worker', [join(root, 'dist/bench/compare/tetherNode.js'), '--kubeconfig', remote.kubeconfigPath, '--node', REMOTE_WORKER,
      '--no-taints', '--pod-cidr', REMOTE_CIDR, '--start-latency-ms', '200'], join(dir, 'remote-worker.log'));
    const files = await hostAgentConfig(dir, host, remote);
    agent = startHostAgent(files);
    await waitFor('both nodes Ready', 120_000, async () => ((await nodeReady(remote, REMOTE_WORKER)) && (await nodeReady(host, NODE)) ? true : undefined), 1_000);
    await host.kubectl(['create', 'namespace', NAMESPACE]);
    await waitFor('the default service account', 60_000, async () => ((await host.kubectl(['get', 'sa', 'default', '-n', NAMESPACE]).catch(() => '')) ? true : undefined), 1_000);

    const t = Date.now();
    await host.kubectl(['apply', '-f', '-'], { input: workload(N) });
    await whileAlive([agent, worker], waitFor(`${N} host pods Running+Ready with remote IPs`, STEP_TIMEOUT_MS, async () => ((await offloadedReady(host)) >= N ? true : undefined), 2_000));
    log(`${N} pods offloaded and Ready in ${((Date.now() - t) / 1000).toFixed(1)} s; waiting for the writes to stop`);
    await whileAlive([agent, worker], changesQuiet(host, remote, STEP_TIMEOUT_MS));

    for (let run = 1; run <= RUNS; run++) {
      for (const mode of ['graceful', 'crash'] as const) {
        const { restart, agent: next } = await restartOnce(mode, run, agent, { host, remote, files, worker });
        agent = next;
        restarts.push(restart);
        if ((await offloadedReady(host)) < N) log(`${mode} #${run}: fewer than ${N} host pods Running+Ready after the restart`);
      }
    }
  } finally {
    for (const a of [agent, worker]) await a?.stop(15_000);
    await Promise.all([host.stop(), remote.stop()]);
  }
  report(restarts);
}

runBench('bench:restart', main);
