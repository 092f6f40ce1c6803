/**
 * The Tether side of `npm run bench:compare`: one virtual node with the simulated provider, started
 * as `tether run` starts it (TetherAgent, pino at info, the host client's 50 qps / 100 burst), in a
 * process of its own so that its CPU and memory are measured alone. Two things are added for the
 * benchmark: SIGUSR2 makes the provider's pings fail (a remote outage) and SIGUSR1 heals it, and
 * every Running status the provider notifies is recorded with its time in the events file (for the
 * provider-to-host latency). The virtual-kubelet baseline (bench/baselines/virtual-kubelet) does
 * the same. `npm run bench:restart` runs it as the remote cluster's only worker (`--no-taints`:
 * offloaded pods carry no toleration for Tether's taint; `--pod-cidr`: IPs told apart from the host's).
 *
 *   node dist/bench/compare/tetherNode.js --kubeconfig FILE --node NAME --events-file FILE
 *
 * For looking into its memory (not used by the tables): TETHER_BENCH_MEMLOG=file appends the
 * process's memory every 500 ms and the heap left after every major GC, as JSON lines;
 * TETHER_BENCH_SNAPSHOT_AT_MIB=N with TETHER_BENCH_SNAPSHOT=file writes one heap snapshot the
 * first time heap used reaches N MiB (the snapshot's own GC shows what of it was live).
 */
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { pinoLogger } from '../../src/adapters/pinoLogger.js';
import type { PodNotification } from '../../src/providers/provider.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { BENCH_RESOURCES } from '../benchNode.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    node: { type: 'string', default: 'tether-bench' },
    'events-file': { type: 'string' },
    'start-latency-ms': { type: 'string', default: '200' },
    'stop-latency-ms': { type: 'string', default: '100' },
    qps: { type: 'string', default: '50' },
    burst: { type: 'string', default: '100' },
    'no-taints': { type: 'boolean', default: false },
    'pod-cidr': { type: 'string' },
  },
});
if (!values.kubeconfig) throw new Error('--kubeconfig is required');
const eventsFile = values['events-file'];

/** The simulated provider, with the Running notifications timed on their way to the agent. */
class TimedProvider extends SimulatedProvider {
  override notifyPods(callback: (n: PodNotification) => void): void {
    super.notifyPods((n) => {
      if (eventsFile && n.type === 'status' && n.pod.status?.phase === 'Running') {
        const m = n.pod.metadata;
        appendFileSync(eventsFile, `${m?.namespace}/${m?.name} ${m?.uid} running ${Date.now()}\n`);
      }
      callback(n);
    });
  }
}

const provider = new TimedProvider({
  hostIP: '127.0.0.1',
  startLatencyMs: Number(values['start-latency-ms']),
  stopLatencyMs: Number(values['stop-latency-ms']),
  // The simulated default (20 cpu, 10,000 pods) refuses the restart bench's 10,000 pods of 10m as OutOfcpu.
  resources: BENCH_RESOURCES,
  ...(values['pod-cidr'] ? { podCIDR: values['pod-cidr'] } : {}),
});

recordMemory();

const logger = pinoLogger({ level: 'info' });
const agent = TetherAgent.start({
  host: { kind: 'file', path: values.kubeconfig },
  nodes: [{ name: values.node, internalIP: '127.0.0.1', provider, ...(values['no-taints'] ? { taints: [] } : {}) }],
  rateLimit: { qps: Number(values.qps), burst: Number(values.burst) },
  logger,
  onFatal: (error) => {
    process.stderr.write(`tetherNode: fatal: ${String(error)}\n`);
    process.exit(1);
  },
});
process.on('SIGUSR2', () => provider.faults.setPingFailing(true));
process.on('SIGUSR1', () => provider.faults.setPingFailing(false));
const stop = (): void => {
  void agent.stop({ deadlineMs: 3000 }).finally(() => {
    void provider.stop();
    process.exit(0);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

function recordMemory(): void {
  const file = process.env['TETHER_BENCH_MEMLOG'];
  const snapshotAt = Number(process.env['TETHER_BENCH_SNAPSHOT_AT_MIB'] ?? 0) * 1024 * 1024;
  const snapshotFile = process.env['TETHER_BENCH_SNAPSHOT'];
  let snapshotTaken = false;
  if (!file && !(snapshotFile && snapshotAt > 0)) return;
  if (file) {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
        // After a mark-compact, what is left is the live heap.
        if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) appendFileSync(file, `${JSON.stringify({ t: Date.now(), gc: 'major', ms: entry.duration, heapUsed: process.memoryUsage().heapUsed })}\n`);
      }
    }).observe({ entryTypes: ['gc'] });
  }
  setInterval(() => {
    const m = process.memoryUsage();
    // V8's own malloc'd memory (compiler zones and the like) is RSS outside the heap too.
    const { malloced_memory: malloced, peak_malloced_memory: peakMalloced } = getHeapStatistics();
    if (file) appendFileSync(file, `${JSON.stringify({ t: Date.now(), ...m, malloced, peakMalloced })}\n`);
    if (snapshotFile && snapshotAt > 0 && !snapshotTaken && m.heapUsed >= snapshotAt) {
      snapshotTaken = true;
      writeHeapSnapshot(snapshotFile);
    }
  }, 500).unref();
}
