/**
 * Usage figures for the simulated provider: every running container uses a fixed 10m CPU and
 * 32 MiB, so totals are predictable; the node adds 100m and 512 MiB of its own.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import type { PodStats, StatsSummary, UsageStats } from '../provider.js';

const CONTAINER_NANO_CORES = 10_000_000;
const CONTAINER_BYTES = 32 * 1024 * 1024;
const NODE_NANO_CORES = 100_000_000;
const NODE_BYTES = 512 * 1024 * 1024;

function usage(time: string, containers: number, baseCores = 0, baseBytes = 0): UsageStats {
  return { time, usageNanoCores: baseCores + containers * CONTAINER_NANO_CORES, workingSetBytes: baseBytes + containers * CONTAINER_BYTES };
}

export function simulatedStats(now: number, bootTime: number, running: readonly Pod[]): StatsSummary {
  const time = new Date(now).toISOString();
  const pods: PodStats[] = running.map((pod) => {
    const startTime = (pod.status?.startTime ?? new Date(now)).toISOString();
    const containers = pod.spec?.containers ?? [];
    return {
      podRef: { namespace: pod.metadata?.namespace ?? 'default', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' },
      startTime,
      usage: usage(time, containers.length),
      containers: containers.map((c) => ({ name: c.name, startTime, usage: usage(time, 1) })),
    };
  });
  const total = running.reduce((n, pod) => n + (pod.spec?.containers.length ?? 0), 0);
  return { node: { startTime: new Date(bootTime).toISOString(), usage: usage(time, total, NODE_NANO_CORES, NODE_BYTES) }, pods };
}
