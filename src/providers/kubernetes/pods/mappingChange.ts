/**
 * A change of `namespaceStrategy` or `hostClusterId` seen at start (docs/kubernetes-provider.md,
 * "Changing the namespace mapping or the host cluster id").
 *
 * Every remote pod carries the marks of what placed it: its host cluster id (a label), its virtual
 * node, its host pod's identity, and the namespace strategy (`tether.dev/namespace-strategy`; a
 * pod from before that mark is judged by its namespace). The ownership rule (ownership.ts) knows
 * only the configured mapping, so after a change the old remote pods are strangers: every running
 * host pod would turn Failed (its remote pod is "gone") while the remote pods keep running.
 *
 * So at start the remote pods of this virtual node (any host cluster id) are set against the host
 * pods bound to it: a remote pod whose host pod is there, with the same uid and still running, but
 * which the configured mapping would not find is *stranded*. With any stranded pod the node
 * refuses to start (one error: the old and new mapping, an example, the fields), or with
 * `mappingChange: adopt` starts under the old mapping its pods share (a warning), so nothing
 * fails; the configured one applies from the first start without stranded pods.
 */
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { operation } from '../../../adapters/kubernetes/operation.js';
import { hostClusterLabel, labelValue, managedByLabel, managedByValue, namespaceStrategyAnnotation, virtualNodeLabel } from '../marks.js';
import { remoteNamespaceFor, type NamespaceStrategy } from '../namespaceMapping.js';
import type { Mapping, StartFinding } from '../startFindings.js';
import { hostIdentityOf } from './hostView.js';

export type MappingChangeRule = 'refuse' | 'adopt';

/** A running host pod whose remote pod the configured mapping no longer finds. */
export interface StrandedPod {
  readonly host: string;
  readonly remote: string;
  /** What the remote pod's marks say placed it (`undefined`: a namespace neither strategy gives). */
  readonly was: Mapping | undefined;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);
const STRATEGIES: readonly NamespaceStrategy[] = ['suffix', 'same-name'];

function placedBy(remote: Pod, hostNamespace: string): Mapping | undefined {
  const hostClusterId = remote.metadata?.labels?.[hostClusterLabel] ?? '';
  const marked = remote.metadata?.annotations?.[namespaceStrategyAnnotation];
  const namespace = remote.metadata?.namespace ?? '';
  const strategy = STRATEGIES.find((s) => s === marked) ?? STRATEGIES.find((s) => remoteNamespaceFor(hostNamespace, s, hostClusterId) === namespace);
  return strategy && remoteNamespaceFor(hostNamespace, strategy, hostClusterId) === namespace ? { namespaceStrategy: strategy, hostClusterId } : undefined;
}

/** The stranded pods among this node's remote pods (any host cluster) and its running host pods. Pure. */
export function strandedPods(current: Mapping, remotePods: readonly Pod[], hostPods: readonly Pod[]): StrandedPod[] {
  const running = new Map(hostPods.filter((p) => !TERMINAL.has(p.status?.phase ?? '') && p.metadata?.uid).map((p) => [p.metadata?.uid ?? '', p]));
  return remotePods.flatMap((remote): StrandedPod[] => {
    const identity = hostIdentityOf(remote);
    const host = identity?.uid !== undefined ? running.get(identity.uid) : undefined;
    if (!identity || !host || host.metadata?.namespace !== identity.namespace || host.metadata.name !== identity.name || remote.metadata?.name !== identity.name) return [];
    const expected = remoteNamespaceFor(identity.namespace, current.namespaceStrategy, current.hostClusterId);
    const found = remote.metadata.namespace === expected && remote.metadata.labels?.[hostClusterLabel] === labelValue(current.hostClusterId);
    return found ? [] : [{ host: `${identity.namespace}/${identity.name}`, remote: `${remote.metadata.namespace ?? ''}/${remote.metadata.name}`, was: placedBy(remote, identity.namespace) }];
  });
}

const words = (m: Mapping): string => `namespaceStrategy ${m.namespaceStrategy} and hostClusterId ${m.hostClusterId}`;

/** What to do about the stranded pods. Pure. */
export function mappingFindings(nodeName: string, current: Mapping, stranded: readonly StrandedPod[], rule: MappingChangeRule): StartFinding[] {
  const first = stranded[0];
  if (!first) return [];
  const olds = [...new Map(stranded.map((s) => [s.was ? words(s.was) : 'an unknown mapping', s.was])).entries()];
  const count = `${stranded.length} running host pod${stranded.length === 1 ? '' : 's'}`;
  const what = `node ${nodeName}: ${count} (e.g. ${first.host}, remote pod ${first.remote}) ${stranded.length === 1 ? 'was' : 'were'} offloaded under ${olds.map(([w]) => w).join(' or ')}, but the config says ${words(current)}`;
  const only = olds.length === 1 ? olds[0]?.[1] : undefined;
  if (rule === 'adopt' && only) {
    return [{ level: 'adopt', mapping: only, message: `${what}; adopting: the node runs under ${words(only)} until no pod of the old mapping is left (provider.mappingChange: adopt)` }];
  }
  const why = rule === 'adopt' ? ' (mappingChange: adopt needs one known old mapping)' : '';
  return [{
    level: 'refuse',
    message: `${what}: starting would turn them Failed while their remote pods keep running; refusing to start${why}. Set provider.namespaceStrategy and provider.hostClusterId back, drain the node first, or set provider.mappingChange: adopt (docs/kubernetes-provider.md, "Changing the namespace mapping or the host cluster id")`,
  }];
}

/** Reads both sides (two lists, through each cluster's limiter, at start) and decides. */
export async function checkMappingChange(
  clusters: { readonly remote: ClusterClient; readonly host: ClusterClient },
  node: { readonly nodeName: string; readonly current: Mapping; readonly rule: MappingChangeRule },
): Promise<StartFinding[]> {
  const labelSelector = `${managedByLabel}=${managedByValue},${virtualNodeLabel}=${labelValue(node.nodeName)}`;
  try {
    const [remote, host] = await Promise.all([
      clusters.remote.call('other', operation('list', 'remote pods of the virtual node'), (core, options) => core.listPodForAllNamespaces({ labelSelector }, options)),
      clusters.host.call('other', operation('list', 'host pods of the virtual node'), (core, options) => core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node.nodeName}` }, options)),
    ]);
    return mappingFindings(node.nodeName, node.current, strandedPods(node.current, remote.items, host.items), node.rule);
  } catch (error) {
    // A remote down at start is not a reason to refuse: the informer copes; the check is lost, and said so.
    return [{ level: 'warn', message: `node ${node.nodeName}: could not check for a change of namespace mapping or host cluster id: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` }];
  }
}
