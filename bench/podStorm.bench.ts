/**
 * Pod storm benchmark: one virtual node, the real runtime and actors (lease, node, pod controller,
 * sharded pod actors), the simulated provider on real timers, and an in-memory host API
 * (test/support/fakeHostPods.ts) in place of the apiserver.
 *
 * Each scenario binds N pods to the node at once, waits until every one is Running with its
 * status written on the host, idles, then deletes them all at once (kubectl-style: a
 * deletionTimestamp, then Tether's final delete) and waits until all are gone. The lease renews
 * every second throughout, and its cadence is measured at the fake apiserver.
 *
 *   npm run bench:storm                              (builds; 1k and 10k unlimited, 1k rate limited)
 *   npm run bench:storm -- --pods 1000,10000,30000   (other sizes)
 *   npm run bench:storm -- --limited 10000           (10k through the 50 qps limiter: ~10 minutes)
 *
 *   npm run bench:storm -- --old-space-mib 256       (V8's old space as Node sizes it in a 512Mi container)
 *
 * Every scenario runs in its own child process (so RSS figures do not carry over), with
 * --expose-gc. Figures go to docs/benchmarks.md by hand; nothing here is asserted.
 *
 * For looking into memory (docs/benchmarks.md, "The storms' peak"), in a scenario's environment:
 * STORM_PEAK_AT_MIB / STORM_PEAK_SNAPSHOT (peakProbe), STORM_ALLOC_PROFILE / STORM_ALLOC_LIVE
 * (allocationProfile), STORM_HEAP_SNAPSHOT (steady state), STORM_TRACE (heap and the pod
 * controller's summary every 0.5 s), STORM_BIND_WINDOW (pods bound at a pace).
 * For looking into CPU (docs/benchmarks.md, "Where Tether's CPU per pod goes"): STORM_CPU_PROFILE=prefix
 * writes prefix-create.cpuprofile (storm start until status writes stop) and prefix-delete.cpuprofile
 * (delete storm until every pod actor stopped), V8's sampling profiler, readable in DevTools.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { BENCH_POD_CIDR, BENCH_RESOURCES, benchNodeConfig, RENEW_MS } from './benchNode.js';
import { startVirtualNode, type VirtualNode } from '../src/actors/virtualNode.js';
import type { Node, Pod } from '../src/adapters/kubernetes/model.js';
import { RateLimiter, type Priority, type PriorityStats } from '../src/adapters/kubernetes/rateLimiter.js';
import { jsonLogger } from '../src/adapters/logger.js';
import { systemClock } from '../src/adapters/clock.js';
import { withDeepCopies } from '../src/providers/deepCopy.js';
import { SimulatedProvider } from '../src/providers/simulated/simulatedProvider.js';
import { ActorSystem } from '../src/supervisors/actorSystem.js';
import { FakeEvents } from '../test/support/fakeEvents.js';
import { FakeLeaseApi } from '../test/support/fakeLeaseApi.js';
import { FakeNodeApi } from '../test/support/fakeNodeApi.js';
import { FakeHostPods } from '../test/support/fakeHostPods.js';
import { fakeNodeWatch } from '../test/support/fakeNodeWatch.js';
import { limitedNodeApi, limitedPodApi, recordedLeaseApi } from '../test/support/instrumentedApis.js';

const NODE = 'storm-node';
const START_LATENCY_MS = 200;
const STOP_LATENCY_MS = 100;
const TIMEOUT_MS = 20 * 60_000;
const LOOP_RESOLUTION_MS = 10;
/** Status writes have stopped once none was issued for this long. */
const QUIET_MS = 3_000;

interface Scenario {
  readonly pods: number;
  /** Client-side rate limit in front of every API (qps 50, burst 100, as KubeClients) or none. */
  readonly limited: boolean;
  readonly idleSeconds: number;
  readonly latencyMs: number;
}

interface Window {
  readonly ms: number;
  readonly cpuMs: number;
  readonly coreFraction: number;
  readonly loopDelayMaxMs: number;
  readonly loopDelayP99Ms: number;
  readonly leaseGapMaxMs: number;
  readonly leaseLagMaxMs: number;
  readonly leaseLagP99Ms: number;
  readonly renewals: number;
}

interface Result {
  readonly scenario: Scenario;
  readonly create: Window & { readonly statusWrites: number; readonly annotationWrites: number };
  /** From the storm's start until status writes stopped (no write for QUIET_MS), and the writes issued. */
  readonly settle: { readonly ms: number; readonly statusWrites: number };
  readonly idle: Window & { readonly statusWrites: number; readonly sweeps: number };
  /** One orphan sweep's listing, timed by hand (CPU): light (as the sweep lists now) and full (as it listed before). */
  readonly sweepListing: { readonly lightMs: number; readonly fullMs: number };
  readonly remove: Window & { readonly statusWrites: number; readonly deletes: number; readonly actorsGoneMs: number };
  readonly memory: {
    readonly baselineRss: number;
    readonly baselineHeap: number;
    readonly steadyRss: number;
    readonly steadyHeap: number;
    /** After the idle window, GC'd again. */
    readonly idleEndRss: number;
    readonly idleEndHeap: number;
    /** Over the storms and the settling; the bench's own listing apart. */
    readonly peakRss: number;
    readonly peakHeap: number;
    readonly createPeak: { readonly rss: number; readonly heap: number };
    readonly deletePeak: { readonly rss: number; readonly heap: number };
    /** While the bench itself lists every pod in full (timeSweepListing): not Tether's. */
    readonly listingPeak: { readonly rss: number; readonly heap: number };
    readonly maxRssKiB: number;
  };
  readonly leaseActor: { readonly maxLagMs: number; readonly renewals: number };
  readonly limiter?: Record<Priority, PriorityStats> & { readonly maxStatusQueue: number; readonly nodeStatusWaitMaxMs: number };
  readonly deadLetters: number;
  readonly crashes: number;
  readonly logLines: number;
}

// --- helpers ---------------------------------------------------------------------------------------

const gc = (globalThis as { gc?: () => void }).gc;
const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await pause(20);
  }
};
/** Long scenarios (100k) say where they are, on stderr. */
const progress = (phase: string, figures: Record<string, number>): void => void process.stderr.write(`storm ${new Date().toISOString().slice(11, 19)} ${phase} ${JSON.stringify(figures)}\n`);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, cond: () => boolean, pollMs = 10): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(pollMs);
  }
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** A pod as a Deployment's ReplicaSet and the scheduler leave it: bound to the node, Pending. */
function stormPod(i: number): Pod {
  const name = `storm-${String(i).padStart(6, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'bench',
      uid: randomUUID(),
      labels: { app: 'storm', 'pod-template-hash': '7d9f8c6b5d' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'storm-7d9f8c6b5d', uid: 'c0ffee00-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: NODE,
      containers: [
        {
          name: 'app',
          image: 'registry.k8s.io/pause:3.10',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'MODE', value: 'storm' }, { name: 'INDEX', value: String(i) }],
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      enableServiceLinks: true,
      priority: 0,
    },
    status: {
      phase: 'Pending',
      qosClass: 'Burstable',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: new Date() }],
    },
  };
}

/** CPU, event-loop delay and lease cadence over one phase. */
class Meter {
  /** Node's histogram records the time between its timer's ticks, resolution included: subtracted below. */
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  private cpu = process.cpuUsage();
  private t0 = Date.now();

  constructor(private readonly leaseUpdates: readonly number[]) {}

  start(): void {
    this.histogram.reset();
    this.histogram.enable();
    this.cpu = process.cpuUsage();
    this.t0 = Date.now();
  }

  /**
   * Ends the phase. Lease lag: each renewal's arrival minus (previous arrival + renew interval),
   * for renewals arriving during the phase (and the first one after it, which the phase delayed).
   */
  stop(): Window {
    const end = Date.now();
    this.histogram.disable();
    const used = process.cpuUsage(this.cpu);
    const cpuMs = (used.user + used.system) / 1000;
    const ms = end - this.t0;
    const gaps: number[] = [];
    const u = this.leaseUpdates;
    let firstAfter = true;
    for (let i = 1; i < u.length; i++) {
      const at = u[i] as number;
      if (at < this.t0) continue;
      if (at > end) {
        if (!firstAfter) break;
        firstAfter = false;
      }
      gaps.push(at - (u[i - 1] as number));
    }
    const lags = gaps.map((g) => Math.max(0, g - RENEW_MS));
    return {
      ms,
      cpuMs,
      coreFraction: ms > 0 ? cpuMs / ms : 0,
      loopDelayMaxMs: Math.max(0, this.histogram.max / 1e6 - LOOP_RESOLUTION_MS),
      loopDelayP99Ms: Math.max(0, this.histogram.percentile(99) / 1e6 - LOOP_RESOLUTION_MS),
      leaseGapMaxMs: Math.max(0, ...gaps),
      leaseLagMaxMs: Math.max(0, ...lags),
      leaseLagP99Ms: percentile(lags, 99),
      renewals: gaps.length,
    };
  }
}

type Phase = 'create' | 'settle' | 'idle' | 'listing' | 'delete';

/**
 * Peak RSS and heap used, per phase, sampled every 50 ms. The bench's own hand-timed full listing
 * ('listing': every pod deep-copied twice) is sampled apart, so that its garbage is not counted as
 * Tether's peak.
 */
class PeakSampler {
  phase: Phase = 'create';
  readonly peaks = new Map<Phase, { rss: number; heap: number }>();

  constructor(private readonly baseline: NodeJS.MemoryUsage, private readonly probe: ((heapUsed: number) => void) | undefined) {}

  sample(): void {
    const m = process.memoryUsage();
    const p = this.peaks.get(this.phase) ?? { rss: this.baseline.rss, heap: this.baseline.heapUsed };
    this.peaks.set(this.phase, { rss: Math.max(p.rss, m.rss), heap: Math.max(p.heap, m.heapUsed) });
    if (this.phase === 'create') this.probe?.(m.heapUsed);
  }

  /** The peak over the storms and the settling (what Tether itself does), not the bench's listing. */
  get rss(): number {
    return Math.max(this.baseline.rss, ...[...this.peaks].filter(([phase]) => phase !== 'listing').map(([, p]) => p.rss));
  }

  get heap(): number {
    return Math.max(this.baseline.heapUsed, ...[...this.peaks].filter(([phase]) => phase !== 'listing').map(([, p]) => p.heap));
  }

  of(phase: Phase): { rss: number; heap: number } {
    return this.peaks.get(phase) ?? { rss: 0, heap: 0 };
  }
}

/**
 * What the create storm's peak heap is made of (STORM_PEAK_AT_MIB=N): the first time heap used
 * reaches N MiB, the heap used before and after a full GC (live or garbage?) goes to stderr, and a
 * heap snapshot to STORM_PEAK_SNAPSHOT=file when set. Both disturb the run: for looking, not for
 * the tables.
 */
function peakProbe(): ((heapUsed: number) => void) | undefined {
  const atMiB = Number(process.env['STORM_PEAK_AT_MIB'] ?? 0);
  if (!atMiB) return undefined;
  let done = false;
  return (heapUsed) => {
    if (done || heapUsed < atMiB * 1024 * 1024) return;
    done = true;
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((sp) => [sp.space_name, sp.space_used_size]));
    gc?.();
    progress('peak probe', { heapUsed, afterGc: process.memoryUsage().heapUsed, ...spaces });
    const file = process.env['STORM_PEAK_SNAPSHOT'];
    if (file) writeHeapSnapshot(file);
  };
}

/**
 * Where the create storm's old-space garbage comes from (STORM_ALLOC_PROFILE=file): V8's sampling
 * heap profiler from the storm's start until status writes stop, keeping the samples of objects
 * that died in a major GC (they lived long enough to be promoted: the heap the peak is made of)
 * but not of those a scavenge took. Returns the function that stops it and writes the profile.
 */
async function allocationProfile(): Promise<(() => Promise<void>) | undefined> {
  const file = process.env['STORM_ALLOC_PROFILE'];
  if (!file) return undefined;
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: process.env['STORM_ALLOC_LIVE'] === undefined, includeObjectsCollectedByMinorGC: false });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** V8's CPU profiler over one phase (STORM_CPU_PROFILE=prefix); returns the function that stops it and writes the profile. */
async function cpuProfile(phase: string): Promise<(() => Promise<void>) | undefined> {
  const prefix = process.env['STORM_CPU_PROFILE'];
  if (!prefix) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${prefix}-${phase}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  };
}

// --- one scenario (in a child process) -----------------------------------------------------------

async function runScenario(scenario: Scenario): Promise<Result> {
  const { pods: n, limited } = scenario;
  // The agent's logger (jsonLogger at info, a child per pod actor), writing to a counter.
  let crashes = 0;
  let logLines = 0;
  const logger = jsonLogger('info', (line) => {
    logLines++;
    if (line.includes('"msg":"child crashed"')) crashes++;
    if (process.env['STORM_DEBUG']) console.error(line);
  });
  const system = new ActorSystem({ logger, onFatal: (error) => { throw error; } });
  const limiter = limited ? new RateLimiter({ qps: 50, burst: 100 }) : undefined;
  const host = new FakeHostPods({ latencyMs: scenario.latencyMs });
  const nodeStore = new FakeNodeApi();
  const nodeStatusWaits: number[] = [];
  const leaseApi = recordedLeaseApi(new FakeLeaseApi(), limiter);
  const provider = new SimulatedProvider({
    startLatencyMs: START_LATENCY_MS,
    stopLatencyMs: STOP_LATENCY_MS,
    podCIDR: BENCH_POD_CIDR,
    resources: BENCH_RESOURCES,
  });

  const vnode: VirtualNode = startVirtualNode(
    system.root,
    benchNodeConfig(NODE),
    {
      provider: withDeepCopies(provider),
      nodeApi: limiter ? limitedNodeApi(nodeStore, limiter, nodeStatusWaits) : nodeStore,
      leaseApi,
      podApi: limiter ? limitedPodApi(host, limiter) : host,
      events: new FakeEvents(),
      podWatch: host.watch,
      nodeWatch: fakeNodeWatch((): Node | undefined => nodeStore.nodes.get(NODE)),
      clock: systemClock,
      logger,
    },
  );
  const leasePath = `${vnode.path}/lease`;
  const controllerSweeps = (): number =>
    ((system.registry.get(`${vnode.path}/pod-controller`)?.snapshot().summary as { sweeps?: number } | null | undefined)?.sweeps ?? 0);
  const leaseSummary = (): { maxLagMs: number; renewals: number } => {
    const s = system.registry.get(leasePath)?.snapshot().summary as { maxLagMs?: number; renewals?: number } | null | undefined;
    return { maxLagMs: s?.maxLagMs ?? -1, renewals: s?.renewals ?? 0 };
  };

  // Warm up: the node registers, the lease renews a few times.
  await until('node registration', () => nodeStore.nodes.has(NODE) && leaseApi.updates.length >= 2);
  await pause(1_500);
  await settle();
  const actorsAtRest = system.registry.size;
  const baseline = process.memoryUsage();

  let maxStatusQueue = 0;
  const peak = new PeakSampler(baseline, peakProbe());
  let ticks = 0;
  const sampler = setInterval(() => {
    peak.sample();
    if (process.env['STORM_TRACE'] && ++ticks % 10 === 0) progress('trace', { heap: process.memoryUsage().heapUsed, running: host.countRunning(), ...(system.registry.get(`${vnode.path}/pod-controller`)?.snapshot().summary as Record<string, number>) });
    if (limiter) maxStatusQueue = Math.max(maxStatusQueue, limiter.queueDepth().status);
  }, 50);
  const meter = new Meter(leaseApi.updates);

  // 1. Create storm.
  const writes0 = { ...host.counters };
  meter.start();
  const allocations = await allocationProfile();
  const createProfile = await cpuProfile('create');
  const stormStart = Date.now();
  // STORM_BIND_WINDOW=N (an experiment, not the tables): bind as pods start, at most N not yet Running.
  const window = Number(process.env['STORM_BIND_WINDOW'] ?? 0);
  if (window > 0) {
    for (let i = 0; i < n; ) {
      while (i < n && i - host.countRunning() < window) host.bind(stormPod(i++));
      await pause(5);
    }
  } else for (let i = 0; i < n; i++) host.bind(stormPod(i));
  await until('all pods Running', () => host.countRunning() === n);
  const create = { ...meter.stop(), statusWrites: host.counters.statusWrites - writes0.statusWrites, annotationWrites: host.counters.annotationWrites - writes0.annotationWrites };
  progress('all Running', { ms: create.ms, cpuMs: create.cpuMs, peakRss: peak.rss, peakHeap: peak.heap });
  peak.phase = 'settle';

  // 2. Wait until status writes stop, then steady state, then idle.
  let lastCount = host.counters.statusWrites;
  let lastWriteAt = Date.now();
  await until('status writes to stop', () => {
    if (host.counters.statusWrites !== lastCount) {
      lastCount = host.counters.statusWrites;
      lastWriteAt = Date.now();
    }
    return Date.now() - lastWriteAt >= QUIET_MS;
  }, 20);
  const settled = { ms: lastWriteAt - stormStart, statusWrites: host.counters.statusWrites - writes0.statusWrites };
  await createProfile?.();
  peak.phase = 'idle';
  await allocations?.();
  await settle();
  const steady = process.memoryUsage();
  progress('steady', { rss: steady.rss, heapUsed: steady.heapUsed, statusWrites: settled.statusWrites });
  // A heap snapshot of the steady state, to see where the per-pod heap goes (STORM_HEAP_SNAPSHOT=file).
  const snapshotFile = process.env['STORM_HEAP_SNAPSHOT'];
  if (snapshotFile) writeHeapSnapshot(snapshotFile);
  const sweeps0 = controllerSweeps();
  const writes1 = host.counters.statusWrites;
  meter.start();
  await pause(scenario.idleSeconds * 1000);
  const idle = { ...meter.stop(), statusWrites: host.counters.statusWrites - writes1, sweeps: controllerSweeps() - sweeps0 };
  // RSS once idle: V8 gives back the pages of the storm's peak heap only after some quiet time.
  await settle();
  const idleEnd = process.memoryUsage();
  // After the idle window: the full listing's garbage (every pod copied twice) must not stall it.
  peak.phase = 'listing';
  const sweepListing = await timeSweepListing(provider, host);
  await settle();
  peak.phase = 'delete';

  // 3. Delete storm.
  const writes2 = { ...host.counters };
  const deleteProfile = await cpuProfile('delete');
  meter.start();
  const t0 = Date.now();
  for (const { namespace, name } of host.keys()) host.requestDelete(namespace, name);
  await until('all pods deleted', () => host.size === 0);
  const removeWindow = meter.stop();
  await until('all pod actors stopped', () => system.registry.size <= actorsAtRest, 5);
  const actorsGoneMs = Date.now() - t0;
  await deleteProfile?.();
  const remove = {
    ...removeWindow,
    statusWrites: host.counters.statusWrites - writes2.statusWrites,
    deletes: host.counters.deletes - writes2.deletes,
    actorsGoneMs,
  };
  clearInterval(sampler);

  const result: Result = {
    scenario,
    create,
    settle: settled,
    idle,
    sweepListing,
    remove,
    memory: {
      baselineRss: baseline.rss,
      baselineHeap: baseline.heapUsed,
      steadyRss: steady.rss,
      steadyHeap: steady.heapUsed,
      idleEndRss: idleEnd.rss,
      idleEndHeap: idleEnd.heapUsed,
      peakRss: peak.rss,
      peakHeap: peak.heap,
      createPeak: peak.of('create'),
      deletePeak: peak.of('delete'),
      listingPeak: peak.of('listing'),
      maxRssKiB: process.resourceUsage().maxRSS,
    },
    leaseActor: leaseSummary(),
    ...(limiter ? { limiter: { ...limiter.stats(), maxStatusQueue, nodeStatusWaitMaxMs: Math.max(0, ...nodeStatusWaits) } } : {}),
    deadLetters: system.deadLetters,
    crashes,
    logLines,
  };
  void vnode.stop({ deleteNode: false });
  void provider.stop();
  system.stop();
  return result;
}

/**
 * One orphan sweep's own work, timed by hand in CPU time (wall time on a loaded machine measures
 * the machine): the host uid set plus the light listing the sweep uses, and, for comparison, the
 * full listing it used before (every pod deep-copied twice). In a function of its own, so the
 * listings are garbage once timed (not held by the scenario).
 */
async function timeSweepListing(provider: SimulatedProvider, host: FakeHostPods): Promise<{ lightMs: number; fullMs: number }> {
  const cpuMs = (from: NodeJS.CpuUsage): number => {
    const used = process.cpuUsage(from);
    return (used.user + used.system) / 1000;
  };
  const hostUids = (): Set<string> => new Set(host.watch.list().flatMap((p) => (p.metadata?.uid ? [p.metadata.uid] : [])));
  let start = process.cpuUsage();
  const light = await provider.listPodMarks();
  const uids = hostUids();
  const lightMs = cpuMs(start);
  start = process.cpuUsage();
  const full = await withDeepCopies(provider).listPods();
  hostUids();
  const fullMs = cpuMs(start);
  if (light.length !== uids.size || full.length !== uids.size) console.error(`provider holds ${light.length} pods, host ${uids.size}`);
  return { lightMs, fullMs };
}

/** The simulated provider alone holding N running pods: its share of the per-pod memory. */
async function providerShare(n: number): Promise<number> {
  const provider = new SimulatedProvider({ startLatencyMs: 50, resources: { capacity: { pods: '100000' }, allocatable: { pods: '100000' } } });
  provider.notifyPods(() => {});
  await settle();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) await provider.createPod(stormPod(i));
  await pause(500);
  await settle();
  const perPod = (process.memoryUsage().heapUsed - before) / n;
  void provider.stop();
  return perPod;
}

// --- orchestration ---------------------------------------------------------------------------------

const KiB = 1024;
const MiB = 1024 * 1024;
const fmt = (v: number, digits = 0): string => v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const s = (ms: number): string => `${fmt(ms / 1000, 1)} s`;

/** V8 flags for every scenario's process (`--old-space-mib N`: --max-old-space-size=N). */
const childFlags: string[] = [];

function child(args: string[]): string {
  const out = execFileSync(process.execPath, ['--expose-gc', ...childFlags, fileURLToPath(import.meta.url), ...args], { encoding: 'utf8', maxBuffer: 64 * MiB, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result from ${args.join(' ')}:\n${out}`);
  return line.slice('RESULT '.length);
}

function printTables(results: readonly Result[], providerPerPod: Map<number, number>): void {
  const label = (r: Result): string => `${fmt(r.scenario.pods)}${r.scenario.limited ? ' (50 qps)' : ''}`;
  console.log('\n### Storm: create N pods at once, then delete them all\n');
  console.log('| pods | all Running | status writes stop | all deleted (host) | actors gone | status writes: create (until quiet) / delete | writes per pod | CPU create storm | CPU delete storm | CPU per pod (create+delete) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const perPod = (r.create.cpuMs + r.remove.cpuMs) / r.scenario.pods;
    console.log(
      `| ${label(r)} | ${s(r.create.ms)} | ${s(r.settle.ms)} | ${s(r.remove.ms)} | ${s(r.remove.actorsGoneMs)} | ${fmt(r.settle.statusWrites)} / ${fmt(r.remove.statusWrites)} | ${fmt((r.settle.statusWrites + r.remove.statusWrites) / r.scenario.pods, 2)} | ${fmt(r.create.cpuMs / 1000, 1)} s (${fmt(r.create.coreFraction, 2)} core) | ${fmt(r.remove.cpuMs / 1000, 1)} s (${fmt(r.remove.coreFraction, 2)} core) | ${fmt(perPod, 2)} ms |`,
    );
  }
  console.log('\n### Memory\n');
  console.log('| pods | baseline RSS / heap | peak RSS / heap (storms) | peak RSS / heap: create / delete storm | steady RSS / heap after GC | RSS / heap after the idle window | RSS per pod | heap per pod | of which simulated provider | max RSS (getrusage) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const m = r.memory;
    const n = r.scenario.pods;
    const prov = providerPerPod.get(n);
    console.log(
      `| ${label(r)} | ${fmt(m.baselineRss / MiB)} / ${fmt(m.baselineHeap / MiB)} MiB | ${fmt(m.peakRss / MiB)} / ${fmt(m.peakHeap / MiB)} MiB | ${fmt(m.createPeak.rss / MiB)} / ${fmt(m.createPeak.heap / MiB)}, ${fmt(m.deletePeak.rss / MiB)} / ${fmt(m.deletePeak.heap / MiB)} MiB | ${fmt(m.steadyRss / MiB)} / ${fmt(m.steadyHeap / MiB)} MiB | ${fmt(m.idleEndRss / MiB)} / ${fmt(m.idleEndHeap / MiB)} MiB | ${fmt((m.steadyRss - m.baselineRss) / n / KiB, 1)} KiB | ${fmt((m.steadyHeap - m.baselineHeap) / n / KiB, 1)} KiB | ${prov === undefined ? 'n/a' : `${fmt(prov / KiB, 1)} KiB`} | ${fmt(m.maxRssKiB / KiB)} MiB |`,
    );
  }
  console.log('\n### Idle steady state (all pods Running, nothing changing)\n');
  console.log('| pods | idle window | CPU | fraction of a core | status writes while idle | orphan sweeps in window | one sweep\'s listing, CPU: light / full (before) | event-loop delay max / p99 | lease lag max |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const w = r.idle;
    console.log(`| ${label(r)} | ${s(w.ms)} | ${fmt(w.cpuMs / 1000, 2)} s | ${fmt(w.coreFraction, 3)} | ${fmt(w.statusWrites)} | ${w.sweeps} | ${fmt(r.sweepListing.lightMs)} / ${fmt(r.sweepListing.fullMs)} ms | ${fmt(w.loopDelayMaxMs, 1)} / ${fmt(w.loopDelayP99Ms, 1)} ms | ${fmt(w.leaseLagMaxMs)} ms |`);
  }
  console.log(`\n### Lease (renewIntervalMs ${RENEW_MS}) and event loop during the storms\n`);
  console.log('| pods | phase | renewals | lease lag max / p99 (at the apiserver) | longest gap between renewals | event-loop delay max / p99 | lease actor maxLagMs (whole run) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const [phase, w] of [['create', r.create], ['delete', r.remove]] as const) {
      console.log(
        `| ${label(r)} | ${phase} | ${w.renewals} | ${fmt(w.leaseLagMaxMs)} / ${fmt(w.leaseLagP99Ms)} ms | ${fmt(w.leaseGapMaxMs)} ms | ${fmt(w.loopDelayMaxMs, 1)} / ${fmt(w.loopDelayP99Ms, 1)} ms | ${fmt(r.leaseActor.maxLagMs)} ms |`,
      );
    }
  }
  const limitedResults = results.filter((r) => r.limiter);
  if (limitedResults.length > 0) {
    console.log('\n### Through the client-side rate limiter (qps 50, burst 100; priorities lease > delete > status > other)\n');
    console.log('| pods | requests started (lease / delete / status / other) | mean queue wait (lease / delete / status / other) | deepest status queue | Node status write: longest queue wait | achieved write rate |');
    console.log('|---|---|---|---|---|---|');
    for (const r of limitedResults) {
      const l = r.limiter as NonNullable<Result['limiter']>;
      const mean = (p: PriorityStats): string => (p.started === 0 ? '-' : fmt(p.waitMs / p.started));
      const busyMs = r.settle.ms + r.remove.ms;
      console.log(
        `| ${label(r)} | ${fmt(l.lease.started)} / ${fmt(l.delete.started)} / ${fmt(l.status.started)} / ${fmt(l.other.started)} | ${mean(l.lease)} / ${mean(l.delete)} / ${mean(l.status)} / ${mean(l.other)} ms | ${fmt(l.maxStatusQueue)} | ${fmt(l.nodeStatusWaitMaxMs)} ms | ${fmt((r.settle.statusWrites + r.remove.statusWrites + r.remove.deletes) / (busyMs / 1000), 1)} req/s during the storms |`,
      );
    }
  }
  for (const r of results) console.log(`\n${label(r)}: ${r.crashes} actor crashes, ${r.deadLetters} dead letters, ${r.logLines} log lines`);
}

function parseArgs(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) continue;
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out.set(arg.slice(2), 'true');
    else {
      out.set(arg.slice(2), next);
      i++;
    }
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const scenarioArg = args.get('scenario');
  if (scenarioArg !== undefined) {
    const result = scenarioArg === 'provider'
      ? await providerShare(Number(args.get('pods')))
      : await runScenario(JSON.parse(scenarioArg) as Scenario);
    console.log(`RESULT ${JSON.stringify(result)}`);
    process.exit(0);
  }
  const sizes = (args.get('pods') ?? '1000,10000').split(',').map(Number);
  const limitedSizes = (args.get('limited') ?? '1000').split(',').filter((v) => v !== '' && v !== '0').map(Number);
  const latencyMs = Number(args.get('latency') ?? '0');
  const idleFor = (n: number): number => Number(args.get('idle') ?? (n >= 10_000 ? 60 : 10));
  // V8 sizes its old space from the machine's memory (4 GiB here), or from the container's limit
  // when there is one: 256 MiB in the chart's 512Mi container. That size sets how far the heap may
  // grow between mark-compacts, and so the storms' peak (docs/benchmarks.md).
  const oldSpaceMiB = args.get('old-space-mib');
  if (oldSpaceMiB !== undefined) childFlags.push(`--max-old-space-size=${Number(oldSpaceMiB)}`);

  console.log(`node ${process.version}, ${gc ? 'with' : 'WITHOUT'} --expose-gc${childFlags.map((f) => ` ${f}`).join('')}; simulated provider start ${START_LATENCY_MS} ms, stop ${STOP_LATENCY_MS} ms; host API latency ${latencyMs} ms; lease renewed every ${RENEW_MS} ms`);
  const providerPerPod = new Map<number, number>();
  for (const n of sizes) providerPerPod.set(n, Number(child(['--scenario', 'provider', '--pods', String(n)])));
  const results: Result[] = [];
  const plan: Scenario[] = [
    ...sizes.map((pods) => ({ pods, limited: false, idleSeconds: idleFor(pods), latencyMs })),
    ...limitedSizes.map((pods) => ({ pods, limited: true, idleSeconds: 5, latencyMs })),
  ];
  for (const scenario of plan) {
    console.error(`running ${JSON.stringify(scenario)} ...`);
    results.push(JSON.parse(child(['--scenario', JSON.stringify(scenario)])) as Result);
  }
  printTables(results, providerPerPod);
  if (args.has('json')) console.log(`\n${JSON.stringify(results)}`);
}

await main();
