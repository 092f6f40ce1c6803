/**
 * Many virtual nodes in one process (issue 28, item 3): M nodes under one actor system, each with
 * its own simulated provider, in-memory host pods (test/support/fakeHostPods.ts: one node's
 * field-selected pod watch) and Lease, as bench/podStorm.bench.ts builds one.
 *
 *   npm run build && node --expose-gc dist/bench/manyNodes.bench.js                      # 20 nodes x 500 pods, a 2,000-pod storm on one
 *   node --expose-gc dist/bench/manyNodes.bench.js --nodes 20 --pods 500 --storm 5000 --idle-s 30
 *
 * Phases, each measured in this process: (1) the nodes start with no pods, one, then the rest:
 * the per-node fixed cost (heap and RSS after a full GC, timers and other active handles, watches)
 * is (M nodes − none) / M; (2) `--pods` pods bound to every node at once, until all are Running
 * and the status writes stop, then `--idle-s` of idle CPU; (3) a storm on the first node only:
 * `--storm` more pods bound, Running, then all deleted, while the lease lag of every node (each
 * renewal's arrival minus the previous one's plus the renew interval, 1 s here) is recorded.
 * Prints Markdown; nothing here is asserted.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { BENCH_POD_CIDR, BENCH_RESOURCES, benchNodeConfig, RENEW_MS } from './benchNode.js';
import { startVirtualNode, type VirtualNode } from '../src/actors/virtualNode.js';
import type { Node, Pod } from '../src/adapters/kubernetes/model.js';
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
import { recordedLeaseApi } from '../test/support/instrumentedApis.js';
import { fmt } from './measure.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '20' },
    pods: { type: 'string', default: '500' },
    storm: { type: 'string', default: '2000' },
    'idle-s': { type: 'string', default: '20' },
    // 0: no loop slice (runtime/loopSlice.ts), as before it: every busy actor's message in one loop turn.
    'loop-slice-ms': { type: 'string', default: '10' },
    // Storm pods bound (and deleted) per loop turn, as a watch delivers them a socket read at a time;
    // 0: all in one synchronous loop (the bench's own stall of 120-200 ms at 2,000 pods).
    'storm-chunk': { type: 'string', default: '50' },
  },
});
const NODES = Number(values.nodes);
const PODS = Number(values.pods);
const STORM = Number(values.storm);
const IDLE_MS = Number(values['idle-s']) * 1000;
const SLICE_MS = Number(values['loop-slice-ms']);
const CHUNK = Number(values['storm-chunk']);
const QUIET_MS = 3_000;
const MiB = 1024 * 1024;

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const gc = (globalThis as { gc?: () => void }).gc;
async function settle(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await pause(50);
  }
  return process.memoryUsage();
}
async function until(what: string, cond: () => boolean, timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(20);
  }
}
const say = (line: string): void => void process.stderr.write(`[manyNodes ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Active handles by kind (Timeout, TCPWRAP, …): what a node keeps alive while idle. */
function handles(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) out[kind] = (out[kind] ?? 0) + 1;
  return out;
}

function pod(node: string, name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'bench', uid: randomUUID(), labels: { app: node } },
    spec: {
      nodeName: node,
      containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
      tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
    },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: new Date() }] },
  };
}

interface Member {
  readonly name: string;
  readonly host: FakeHostPods;
  readonly leases: ReturnType<typeof recordedLeaseApi>;
  readonly provider: SimulatedProvider;
  readonly vnode: VirtualNode;
  readonly nodes: FakeNodeApi;
}

function startMember(system: ActorSystem, logger: ReturnType<typeof jsonLogger>, name: string): Member {
  const host = new FakeHostPods();
  const nodes = new FakeNodeApi();
  const leases = recordedLeaseApi(new FakeLeaseApi());
  const provider = new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100, podCIDR: BENCH_POD_CIDR, resources: BENCH_RESOURCES });
  const vnode = startVirtualNode(
    system.root,
    benchNodeConfig(name),
    {
      provider: withDeepCopies(provider), nodeApi: nodes, leaseApi: leases, podApi: host, events: new FakeEvents(),
      podWatch: host.watch, nodeWatch: fakeNodeWatch((): Node | undefined => nodes.nodes.get(name)), clock: systemClock, logger,
    },
  );
  return { name, host, leases, provider, vnode, nodes };
}

/** Every node's worst lease lag among renewals arriving in [from, to] (and the first after, which the window delayed). */
function leaseLags(members: readonly Member[], from: number, to: number): number[] {
  return members.map((m) => {
    let worst = 0;
    const u = m.leases.updates;
    for (let i = 1; i < u.length; i++) {
      const at = u[i]!;
      if (at < from) continue;
      worst = Math.max(worst, at - u[i - 1]! - RENEW_MS);
      if (at > to) break;
    }
    return worst;
  });
}

/** Runs `step(0..n-1)`, CHUNK per loop turn (all at once if 0); returns the longest synchronous run (ms). */
async function inChunks(n: number, step: (i: number) => void): Promise<number> {
  const size = CHUNK > 0 ? CHUNK : n;
  let longest = 0;
  for (let i = 0; i < n; ) {
    const t = performance.now();
    for (const end = Math.min(n, i + size); i < end; i++) step(i);
    longest = Math.max(longest, performance.now() - t);
    if (i < n) await new Promise((r) => setImmediate(r));
  }
  return longest;
}

async function waitQuiet(members: readonly Member[]): Promise<void> {
  const total = (): number => members.reduce((n, m) => n + m.host.counters.statusWrites, 0);
  let last = total();
  let since = Date.now();
  await until('status writes to stop', () => {
    const now = total();
    if (now !== last) [last, since] = [now, Date.now()];
    return Date.now() - since >= QUIET_MS;
  });
}

async function main(): Promise<void> {
  const logger = jsonLogger('info', () => undefined);
  const system = new ActorSystem({ logger, onFatal: (error) => { throw error; }, loopSlice: SLICE_MS > 0 ? { budgetMs: SLICE_MS } : false });
  const none = await settle();
  const handlesNone = handles();

  // 1. The nodes' fixed cost, with no pods.
  const members: Member[] = [startMember(system, logger, 'node-00')];
  await until('the first node registered', () => members[0]!.nodes.nodes.size === 1 && members[0]!.leases.updates.length >= 2);
  const one = await settle();
  for (let i = 1; i < NODES; i++) members.push(startMember(system, logger, `node-${String(i).padStart(2, '0')}`));
  await until('every node registered', () => members.every((m) => m.nodes.nodes.size === 1 && m.leases.updates.length >= 2));
  await pause(2_000);
  const all = await settle();
  const handlesAll = handles();
  const cpuIdle0 = process.cpuUsage();
  const tIdle0 = Date.now();
  await pause(IDLE_MS);
  const idleNoPods = process.cpuUsage(cpuIdle0);
  const idleNoPodsMs = Date.now() - tIdle0;
  say(`${NODES} nodes up: heap ${fmt((all.heapUsed - none.heapUsed) / MiB)} MiB over none`);

  // 2. PODS on every node.
  for (const m of members) for (let i = 0; i < PODS; i++) m.host.bind(pod(m.name, `${m.name}-${i}`));
  await until('every pod Running', () => members.every((m) => m.host.countRunning() === PODS));
  await waitQuiet(members);
  const steady = await settle();
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  await pause(IDLE_MS);
  const idleCpu = process.cpuUsage(cpu0);
  const idleMs = Date.now() - t0;
  say(`${NODES * PODS} pods Running: heap ${fmt(steady.heapUsed / MiB)} MiB`);

  // 3. A storm on node-00 only.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const stormed = members[0]!;
  // Every gap of over 50 ms in a 10 ms interval, by phase: where the loop was held, and by whom.
  const stalls: Array<{ ms: number; phase: string }> = [];
  let phase = 'bind';
  let tick = Date.now();
  const watchdog = setInterval(() => {
    const now = Date.now();
    if (now - tick > 60) stalls.push({ ms: now - tick - 10, phase });
    tick = now;
  }, 10);
  const yields0 = system.slice?.yields ?? 0;
  const s0 = Date.now();
  const benchLoops = { bind: await inChunks(STORM, (i) => stormed.host.bind(pod(stormed.name, `storm-${i}`))), delete: 0 };
  phase = 'running';
  await until('the storm Running', () => stormed.host.countRunning() === PODS + STORM);
  phase = 'delete';
  benchLoops.delete = await inChunks(STORM, (i) => stormed.host.requestDelete('bench', `storm-${i}`));
  phase = 'deleting';
  await until('the storm deleted', () => stormed.host.size === PODS);
  const s1 = Date.now();
  await pause(RENEW_MS * 2);
  loop.disable();
  clearInterval(watchdog);
  const stallsOver = (ms: number): string => {
    const over = stalls.filter((x) => x.ms > ms);
    const byPhase = new Map<string, number>();
    for (const x of over) byPhase.set(x.phase, (byPhase.get(x.phase) ?? 0) + 1);
    return `${over.length}${over.length ? ` (${[...byPhase].map(([p, n]) => `${p} ${n}`).join(', ')})` : ''}`;
  };
  const lags = leaseLags(members, s0, s1);
  const otherLags = lags.slice(1);

  const perNode = (a: number, b: number): string => fmt((a - b) / NODES / 1024, 0);
  const count = (h: Record<string, number>, kind: string): number => h[kind] ?? 0;
  const out = [
    `\n${NODES} virtual nodes x ${PODS} pods in one process (simulated provider, in-memory host), a ${STORM}-pod storm on one; Node ${process.version}\n`,
    '| | figure |',
    '|---|---|',
    `| heap used: no node / one node / ${NODES} nodes, no pods (MiB) | ${fmt(none.heapUsed / MiB)} / ${fmt(one.heapUsed / MiB)} / ${fmt(all.heapUsed / MiB)} |`,
    `| RSS: no node / one node / ${NODES} nodes, no pods (MiB) | ${fmt(none.rss / MiB)} / ${fmt(one.rss / MiB)} / ${fmt(all.rss / MiB)} |`,
    `| per-node fixed heap / RSS (KiB) | ${perNode(all.heapUsed, none.heapUsed)} / ${perNode(all.rss, none.rss)} |`,
    `| active timers per node, idle (Timeout handles, ${NODES} nodes − none) | ${fmt((count(handlesAll, 'Timeout') - count(handlesNone, 'Timeout')) / NODES, 1)} |`,
    `| watches per node | 2 (its pods, its Node) |`,
    `| CPU idle, ${NODES} nodes, no pods (ms per s) | ${fmt(((idleNoPods.user + idleNoPods.system) / 1000) / (idleNoPodsMs / 1000), 1)} |`,
    `| heap / RSS at ${NODES * PODS} pods, steady (MiB) | ${fmt(steady.heapUsed / MiB)} / ${fmt(steady.rss / MiB)} |`,
    `| CPU idle at ${NODES * PODS} pods (ms per s) | ${fmt(((idleCpu.user + idleCpu.system) / 1000) / (idleMs / 1000), 1)} |`,
    `| storm on node-00: ${STORM} pods Running then deleted (s) | ${fmt((s1 - s0) / 1000)} |`,
    `| lease lag during the storm, node-00 (ms) | ${fmt(lags[0] ?? 0, 0)} |`,
    `| lease lag during the storm, worst of the other ${NODES - 1} (ms) | ${fmt(Math.max(0, ...otherLags), 0)} |`,
    `| event loop delay during the storm, max / p99 (ms) | ${fmt(loop.max / 1e6 - 10, 0)} / ${fmt(loop.percentile(99) / 1e6 - 10, 0)} |`,
    `| loop stalls over 50 / 100 ms during the storm (by phase) | ${stallsOver(50)} / ${stallsOver(100)} |`,
    `| the bench's own longest synchronous loop: bind / delete (ms; storm chunk ${CHUNK || 'all'}) | ${fmt(benchLoops.bind, 0)} / ${fmt(benchLoops.delete, 0)} |`,
    `| loop slice ${SLICE_MS > 0 ? `${SLICE_MS} ms` : 'off'}: turns yielded during the storm | ${fmt((system.slice?.yields ?? 0) - yields0, 0)} |`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  for (const m of members) void m.vnode.stop({ deleteNode: false });
  system.stop();
}

main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`manyNodes failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
