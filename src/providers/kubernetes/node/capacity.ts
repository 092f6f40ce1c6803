/**
 * What a remote cluster can take, as one virtual node's capacity. Pure.
 *
 * capacity    = the sum of `status.allocatable` over the remote nodes that are Ready,
 *               schedulable and not virtual (`type=virtual-kubelet`: another virtual kubelet's
 *               node would count a third cluster, or this one twice);
 * allocatable = capacity minus the requests of the non-terminal pods bound to those nodes
 *               (one `pods` each), never below zero. This virtual node's own remote pods are not
 *               subtracted: the host scheduler already counts them against its allocatable.
 * With a pool (the node's scheduling patch has a nodeSelector: one remote cluster backs several
 * virtual nodes, one per pool), only the remote nodes carrying every pair of it count.
 * A configured quota replaces both (it is what the remote cluster's owner granted).
 */
import type { Node, Pod } from '../../../adapters/kubernetes/model.js';
import type { NodeResources, ResourceList } from '../../provider.js';
import { formatQuantity, parseQuantity } from '../../../lib/quantity.js';

export type Amounts = Record<string, number>;

/** Ready, schedulable and not a virtual kubelet (unless virtual nodes are the remote's real workers). */
export function isUsableNode(node: Node, countVirtualNodes = false): boolean {
  if (node.spec?.unschedulable === true) return false;
  if (!countVirtualNodes && node.metadata?.labels?.type === 'virtual-kubelet') return false;
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

export function isTerminalPod(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** A resource list as numbers; unparsable entries are skipped. */
export function amountsOf(list: Readonly<Record<string, string | number>> | undefined): Amounts {
  const out: Amounts = {};
  for (const [name, text] of Object.entries(list ?? {})) {
    const value = parseQuantity(text);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function add(into: Amounts, more: Amounts): Amounts {
  for (const [name, value] of Object.entries(more)) into[name] = (into[name] ?? 0) + value;
  return into;
}

function maxOf(a: Amounts, b: Amounts): Amounts {
  const out: Amounts = { ...a };
  for (const [name, value] of Object.entries(b)) out[name] = Math.max(out[name] ?? 0, value);
  return out;
}

/**
 * What a pod requests, as the scheduler computes it: pod-level `resources.requests` if set, else
 * max(sum of app containers and sidecar init containers, the largest regular init container),
 * plus the RuntimeClass overhead; plus one `pods`.
 */
export function podRequests(pod: Pod): Amounts {
  const spec = pod.spec;
  let total: Amounts;
  if (spec?.resources?.requests) {
    total = amountsOf(spec.resources.requests);
  } else {
    const sidecars = (spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
    const regularInit = (spec?.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always');
    const running = [...(spec?.containers ?? []), ...sidecars].reduce((acc, c) => add(acc, amountsOf(c.resources?.requests)), {} as Amounts);
    total = regularInit.reduce((acc, c) => maxOf(acc, amountsOf(c.resources?.requests)), running);
  }
  add(total, amountsOf(spec?.overhead));
  total.pods = (total.pods ?? 0) + 1;
  return total;
}

export interface CapacityInput {
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
  /** Pods not to subtract (this virtual node's own). */
  readonly isOwnPod?: (pod: Pod) => boolean;
  /** Replaces the computation when set. */
  readonly quota?: ResourceList;
  /** Count the remote's virtual-kubelet nodes too (when they are its real workers). */
  readonly countVirtualNodes?: boolean;
  /** Only the remote nodes with all these labels (the scheduling patch's nodeSelector). */
  readonly pool?: Readonly<Record<string, string>>;
}

/** Whether the node carries every label of the pool (no pool: every node). */
export function inPool(node: Node, pool: Readonly<Record<string, string>> | undefined): boolean {
  return Object.entries(pool ?? {}).every(([key, value]) => node.metadata?.labels?.[key] === value);
}

export function remoteCapacity(input: CapacityInput): NodeResources {
  if (input.quota) return { capacity: { ...input.quota }, allocatable: { ...input.quota } };
  const usable = input.nodes.filter((n) => isUsableNode(n, input.countVirtualNodes) && inPool(n, input.pool));
  const names = new Set(usable.map((n) => n.metadata?.name));
  const capacity = usable.reduce((acc, n) => add(acc, amountsOf(n.status?.allocatable)), {} as Amounts);
  const used: Amounts = {};
  for (const pod of input.pods) {
    if (isTerminalPod(pod) || !names.has(pod.spec?.nodeName) || input.isOwnPod?.(pod)) continue;
    add(used, podRequests(pod));
  }
  const allocatable: Amounts = {};
  for (const [name, value] of Object.entries(capacity)) allocatable[name] = Math.max(0, value - (used[name] ?? 0));
  return { capacity: format(capacity), allocatable: format(allocatable) };
}

function format(amounts: Amounts): Record<string, string> {
  return Object.fromEntries(Object.entries(amounts).map(([name, value]) => [name, formatQuantity(value)]));
}
