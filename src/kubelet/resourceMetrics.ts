/**
 * The kubelet's resource metrics, from a provider's StatsSummary:
 *   /stats/summary      the kubelet's stats/v1alpha1 Summary JSON (providers/kubeletSummary.ts);
 *   /metrics/resource   the Prometheus text metrics-server scrapes (node_, pod_ and container_
 *                       cpu_usage_seconds_total and memory_working_set_bytes,
 *                       container_start_time_seconds, resource_scrape_error), each sample with
 *                       the summary's timestamp, as the kubelet writes them.
 * A provider that reports only a usage rate gets a cumulative CPU counter of rate × time since
 * start (steady usage), which is what metrics-server differentiates back into a rate.
 */
import { cumulativeCpu, toKubeletSummary, type KubeletSummary } from '../providers/kubeletSummary.js';
import type { StatsSummary, UsageStats } from '../providers/provider.js';

export function summaryForNode(summary: StatsSummary, nodeName: string): KubeletSummary {
  return toKubeletSummary(summary, nodeName);
}

function cpuSeconds(usage: UsageStats, startTime: string): number {
  return cumulativeCpu(usage, startTime) / 1e9;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labels(pairs: Record<string, string>): string {
  const text = Object.entries(pairs).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
  return text === '' ? '' : `{${text}}`;
}

interface Family {
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly samples: string[];
}

const FAMILIES: Record<string, Omit<Family, 'samples'>> = {
  node_cpu_usage_seconds_total: { type: 'counter', help: '[STABLE] Cumulative cpu time consumed by the node in core-seconds' },
  node_memory_working_set_bytes: { type: 'gauge', help: '[STABLE] Current working set of the node in bytes' },
  pod_cpu_usage_seconds_total: { type: 'counter', help: '[STABLE] Cumulative cpu time consumed by the pod in core-seconds' },
  pod_memory_working_set_bytes: { type: 'gauge', help: '[STABLE] Current working set of the pod in bytes' },
  container_cpu_usage_seconds_total: { type: 'counter', help: '[STABLE] Cumulative cpu time consumed by the container in core-seconds' },
  container_memory_working_set_bytes: { type: 'gauge', help: '[STABLE] Current working set of the container in bytes' },
  container_start_time_seconds: { type: 'gauge', help: '[STABLE] Start time of the container since unix epoch in seconds' },
};

export function resourceMetricsText(summary: StatsSummary): string {
  const families = new Map<string, Family>();
  const add = (name: keyof typeof FAMILIES, pairs: Record<string, string>, value: number, time: string): void => {
    let family = families.get(name);
    if (!family) {
      family = { ...(FAMILIES[name] as Omit<Family, 'samples'>), samples: [] };
      families.set(name, family);
    }
    family.samples.push(`${name}${labels(pairs)} ${value} ${Date.parse(time)}`);
  };
  const { node } = summary;
  add('node_cpu_usage_seconds_total', {}, cpuSeconds(node.usage, node.startTime), node.usage.time);
  add('node_memory_working_set_bytes', {}, node.usage.workingSetBytes, node.usage.time);
  for (const pod of summary.pods) {
    const podLabels = { namespace: pod.podRef.namespace, pod: pod.podRef.name };
    add('pod_cpu_usage_seconds_total', podLabels, cpuSeconds(pod.usage, pod.startTime), pod.usage.time);
    add('pod_memory_working_set_bytes', podLabels, pod.usage.workingSetBytes, pod.usage.time);
    for (const c of pod.containers) {
      const containerLabels = { container: c.name, ...podLabels };
      add('container_cpu_usage_seconds_total', containerLabels, cpuSeconds(c.usage, c.startTime), c.usage.time);
      add('container_memory_working_set_bytes', containerLabels, c.usage.workingSetBytes, c.usage.time);
      add('container_start_time_seconds', containerLabels, Date.parse(c.startTime) / 1000, c.usage.time);
    }
  }
  const lines: string[] = [];
  for (const [name, family] of families) lines.push(`# HELP ${name} ${family.help}`, `# TYPE ${name} ${family.type}`, ...family.samples);
  lines.push('# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise', '# TYPE resource_scrape_error gauge', 'resource_scrape_error 0');
  return `${lines.join('\n')}\n`;
}
