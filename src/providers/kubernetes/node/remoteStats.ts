/**
 * Usage of the offloaded pods, as the remote cluster reports it: each remote node that runs some
 * of this virtual node's pods is asked for its kubelet summary through the remote API server's
 * node proxy (`/api/v1/nodes/{node}/proxy/stats/summary`; the remote nodes' `nodes/stats`
 * permission is needed), the pods that are this provider's (ownership.ts, and the remote uid) are
 * kept and given their host identity (namespace, name, uid), and everything else on those nodes
 * is left out. The virtual node's own usage is the sum of its pods': that is what the virtual node
 * runs. Its cumulative CPU must only grow (metrics-server differentiates it), so a pod that goes
 * leaves its last cumulative CPU behind in the node's total.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { Clock } from '../../../lib/clock.js';
import { transient } from '../../errors.js';
import { cumulativeCpu, InvalidStatsSummary, podStatsOfKubeletSummary } from '../../kubeletSummary.js';
import type { PodStats, StatsSummary, UsageStats } from '../../provider.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { ownershipOf, type OwnershipRule } from '../pods/ownership.js';
import { toProviderError } from '../remoteErrors.js';
import { describeOperation, operation } from '../../../adapters/kubernetes/operation.js';
import { settledBounded } from '../../../lib/boundedConcurrency.js';
import { definedOnly } from '../../../lib/defaults.js';

/** Remote nodes whose summaries one scrape reads at once (the remote client runs 32 requests at once in all). */
const SCRAPE_CONCURRENCY = 8;

/** What the node's cumulative CPU carries from one summary to the next. */
export interface NodeCpuCounter {
  /** Last cumulative CPU (ns) of each pod seen, by host uid. */
  readonly pods: ReadonlyMap<string, number>;
  /** The cumulative CPU of pods that have gone. */
  readonly departed: number;
}

export const EMPTY_COUNTER: NodeCpuCounter = { pods: new Map(), departed: 0 };

/** Remote nodes that run owned pods, each with the owned remote pods' keys (namespace/name → remote uid). */
export function remoteNodesOf(owned: readonly Pod[], rule: OwnershipRule): Map<string, Map<string, string>> {
  const nodes = new Map<string, Map<string, string>>();
  for (const pod of owned) {
    const node = pod.spec?.nodeName;
    const uid = pod.metadata?.uid;
    if (!node || !uid || pod.status?.phase !== 'Running' || !ownershipOf(pod, rule).owned) continue;
    const pods = nodes.get(node) ?? new Map<string, string>();
    pods.set(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`, uid);
    nodes.set(node, pods);
  }
  return nodes;
}

/** The owned pods of one remote node's summary, renamed to their host identities. */
export function hostPodStats(remoteStats: readonly PodStats[], owned: readonly Pod[], rule: OwnershipRule): PodStats[] {
  const byKey = new Map(owned.map((p) => [`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`, p] as const));
  return remoteStats.flatMap((stats) => {
    const remote = byKey.get(`${stats.podRef.namespace}/${stats.podRef.name}`);
    if (!remote || remote.metadata?.uid !== stats.podRef.uid) return [];
    const ownership = ownershipOf(remote, rule);
    if (!ownership.owned) return [];
    const { namespace, name, uid } = ownership.identity;
    return [{ ...stats, podRef: { namespace, name, uid } }];
  });
}

/**
 * The virtual node's summary: its pods, and their sum as the node's usage (cumulative CPU kept
 * monotonic). `owned` holds the host uids of the pods still owned: one missing from `pods` but
 * still owned (its remote node did not answer this time) is carried at its last value, since
 * counting it as departed and then again when it is back would make the node's CPU jump.
 */
export function virtualNodeSummary(
  pods: readonly PodStats[], counter: NodeCpuCounter, at: { readonly now: string; readonly startTime: string }, owned: ReadonlySet<string>,
): { summary: StatsSummary; counter: NodeCpuCounter } {
  const seen = new Map<string, number>();
  for (const pod of pods) seen.set(pod.podRef.uid, cumulativeCpu(pod.usage, pod.startTime));
  let departed = counter.departed;
  for (const [uid, last] of counter.pods) {
    if (seen.has(uid)) continue;
    if (owned.has(uid)) seen.set(uid, last);
    else departed += last;
  }
  const live = [...seen.values()].reduce((a, b) => a + b, 0);
  const latest = pods.reduce((t, p) => (Date.parse(p.usage.time) > Date.parse(t) ? p.usage.time : t), at.now);
  const usage: UsageStats = {
    time: latest,
    usageNanoCores: pods.reduce((a, p) => a + p.usage.usageNanoCores, 0),
    usageCoreNanoSeconds: departed + live,
    workingSetBytes: pods.reduce((a, p) => a + p.usage.workingSetBytes, 0),
  };
  return { summary: { node: { startTime: at.startTime, usage }, pods }, counter: { pods: seen, departed } };
}


export interface RemoteStatsOptions {
  readonly remote: ClusterClient;
  readonly rule: OwnershipRule;
  /** The owned remote pods (the provider's informer). */
  readonly owned: () => readonly Pod[];
  readonly clock: Clock;
  readonly log: KubeLog;
}

export class RemoteStats {
  private counter: NodeCpuCounter = EMPTY_COUNTER;
  private last: Promise<unknown> = Promise.resolve();
  private readonly startTime: string;

  constructor(private readonly o: RemoteStatsOptions) {
    this.startTime = new Date(o.clock.now()).toISOString();
  }

  /**
   * Asks every remote node that runs owned pods, in parallel, each call under the remote client's
   * deadline. A node that fails is left out (logged) so one broken kubelet does not blank the
   * rest; if every node fails, the summary fails (transient), naming the first failure.
   */
  summary(signal?: AbortSignal): Promise<StatsSummary> {
    // One at a time: two overlapping scrapes (/stats/summary and /metrics/resource) would both
    // start from the same counter and the later write would undo or double the other's.
    const next = this.last.then(() => this.read(signal), () => this.read(signal));
    this.last = next;
    return next;
  }

  private async read(signal?: AbortSignal): Promise<StatsSummary> {
    const owned = this.o.owned();
    const nodes = [...remoteNodesOf(owned, this.o.rule).keys()];
    // A few nodes at a time: one scrape must not take every request slot of the remote client
    // (the creates and deletes of pods wait behind it) while dead nodes time out.
    const results = await settledBounded(nodes, SCRAPE_CONCURRENCY, (node) => this.nodeSummary(node, signal));
    const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [{ node: nodes[i] ?? '', error: r.reason as unknown }] : []));
    for (const f of failures) this.o.log.warn('remote node stats unavailable', { node: f.node, error: String(f.error) });
    const first = failures[0];
    if (first && failures.length === nodes.length) throw transient(`no remote node's stats could be read: ${String(first.error)}`, { cause: first.error });
    const pods = results.flatMap((r) => (r.status === 'fulfilled' ? hostPodStats(r.value, owned, this.o.rule) : []));
    const stillOwned = new Set(owned.flatMap((p) => {
      const ownership = ownershipOf(p, this.o.rule);
      return ownership.owned && ownership.identity.uid !== undefined ? [ownership.identity.uid] : [];
    }));
    const next = virtualNodeSummary(pods, this.counter, { now: new Date(this.o.clock.now()).toISOString(), startTime: this.startTime }, stillOwned);
    this.counter = next.counter;
    return next.summary;
  }

  private async nodeSummary(node: string, signal?: AbortSignal): Promise<PodStats[]> {
    const op = operation('get', `stats summary of remote node ${node}`);
    let body: unknown;
    try {
      body = await this.o.remote.call('other', op, (core, options) =>
        core.connectGetNodeProxyWithPath({ name: node, path: 'stats/summary' }, options), definedOnly({ signal }));
    } catch (err) {
      throw toProviderError(err, describeOperation(op));
    }
    // client-node types the proxy's answer as a string but hands back parsed JSON for application/json.
    return podStatsOfKubeletSummary(typeof body === 'string' ? parseJson(body, `remote node ${node}`) : body, `remote node ${node}`);
  }
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidStatsSummary(source, 'the body', `is not JSON: ${text.slice(0, 80)}`);
  }
}
