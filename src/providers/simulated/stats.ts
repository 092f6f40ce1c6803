/**
 * Usage figures for the simulated provider, steady so that totals are predictable: a running
 * container uses half of what it requests (cpu, memory), or 10m CPU and 32 MiB when it requests
 * nothing; the node adds 100m and 512 MiB of its own. Cumulative CPU is usage × time since the
 * container started, as a steady process would have spent.
 */
import type { Pod, PodSpec } from '../../adapters/kubernetes/model.js';
import type { PodStats, StatsSummary, UsageStats } from '../provider.js';

const CONTAINER_NANO_CORES = 10_000_000;
const CONTAINER_BYTES = 32 * 1024 * 1024;
const NODE_NANO_CORES = 100_000_000;
const NODE_BYTES = 512 * 1024 * 1024;
const SHARE_OF_REQUEST = 0.5;

const UNITS: Readonly<Record<string, number>> = {
  '': 1, m: 1e-3, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40,
};

/**
 * A request quantity in base units ("250m" → 0.25, "64Mi" → 67108864), enough for requests; a
 * local copy because one provider never imports another (the Kubernetes provider has the full one).
 */
function quantity(text: string | undefined): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(m|k|K|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(text?.trim() ?? '');
  if (!match) return undefined;
  return Number(match[1]) * (UNITS[match[2] ?? ''] ?? 1);
}

type Container = PodSpec['containers'][number];

interface Rate {
  readonly nanoCores: number;
  readonly bytes: number;
}

function containerRate(container: Container): Rate {
  const cpu = quantity(container.resources?.requests?.['cpu']);
  const memory = quantity(container.resources?.requests?.['memory']);
  return {
    nanoCores: cpu !== undefined ? Math.round(cpu * 1e9 * SHARE_OF_REQUEST) : CONTAINER_NANO_CORES,
    bytes: memory !== undefined ? Math.round(memory * SHARE_OF_REQUEST) : CONTAINER_BYTES,
  };
}

function usage(time: string, startedAt: number, rate: Rate): UsageStats {
  const seconds = Math.max(0, (Date.parse(time) - startedAt) / 1000);
  return { time, usageNanoCores: rate.nanoCores, usageCoreNanoSeconds: Math.round(rate.nanoCores * seconds), workingSetBytes: rate.bytes };
}

const sum = (rates: readonly Rate[], base: Rate = { nanoCores: 0, bytes: 0 }): Rate =>
  rates.reduce((a, r) => ({ nanoCores: a.nanoCores + r.nanoCores, bytes: a.bytes + r.bytes }), base);

export function simulatedStats(now: number, bootTime: number, running: readonly Pod[]): StatsSummary {
  const time = new Date(now).toISOString();
  const all: Rate[] = [];
  const pods: PodStats[] = running.map((pod) => {
    const started = pod.status?.startTime ? new Date(pod.status.startTime).getTime() : now;
    const startTime = new Date(started).toISOString();
    const containers = pod.spec?.containers ?? [];
    const rates = containers.map(containerRate);
    all.push(...rates);
    return {
      podRef: { namespace: pod.metadata?.namespace ?? 'default', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
      startTime,
      usage: usage(time, started, sum(rates)),
      containers: containers.map((c, i) => ({ name: c.name, startTime, usage: usage(time, started, rates[i] as Rate) })),
    };
  });
  return { node: { startTime: new Date(bootTime).toISOString(), usage: usage(time, bootTime, sum(all, { nanoCores: NODE_NANO_CORES, bytes: NODE_BYTES })) }, pods };
}
