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
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pinoLogger } from '../../src/adapters/pinoLogger.js';
import type { PodNotification } from '../../src/providers/provider.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';

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
  ...(values['pod-cidr'] ? { podCIDR: values['pod-cidr'] } : {}),
});

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
