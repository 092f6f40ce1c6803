/**
 * The writes (or other requests) an API server has received, from its own `apiserver_request_total` counter: keyed
 * `resource[/subresource] VERB` (a group other than core is prefixed: `coordination.k8s.io/leases`;
 * an answer other than 2xx is suffixed with its code), for the write verbs only. The counter has no
 * client label: who wrote is for the reader to work out (bench/restart.bench.ts measures a quiet
 * window beside each restart for that).
 */
import type { ClusterAccess } from '../src/harness/clusterAccess.js';

export type WriteCounts = ReadonlyMap<string, number>;

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'DELETECOLLECTION']);

function label(line: string, name: string): string {
  return new RegExp(`[{,]${name}="([^"]*)"`).exec(line)?.[1] ?? '';
}

/** The requests of `verbs` (the write verbs by default) by key. */
export function parseRequests(metrics: string, verbs: ReadonlySet<string> = WRITE_VERBS): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = label(line, 'verb');
    if (!verbs.has(verb)) continue;
    const group = label(line, 'group');
    const subresource = label(line, 'subresource');
    const code = label(line, 'code');
    const key = `${group ? `${group}/` : ''}${label(line, 'resource')}${subresource ? `/${subresource}` : ''} ${verb}${code.startsWith('2') ? '' : ` (${code})`}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

export async function writeCounts(cluster: ClusterAccess, verbs: ReadonlySet<string> = WRITE_VERBS): Promise<Map<string, number>> {
  return parseRequests(await cluster.kubectl(['get', '--raw', '/metrics']), verbs);
}

/** What was counted between `before` and `after`, without the keys that did not move. */
export function writesBetween(before: WriteCounts, after: WriteCounts): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [key, count] of after) {
    const moved = count - (before.get(key) ?? 0);
    if (moved > 0) delta.set(key, moved);
  }
  return delta;
}

/** The sum of the counts whose key passes `select`. */
export function total(counts: WriteCounts, select: (key: string) => boolean = () => true): number {
  let sum = 0;
  for (const [key, count] of counts) if (select(key)) sum += count;
  return sum;
}
