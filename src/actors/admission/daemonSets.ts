/**
 * DaemonSet pods on a virtual node, by the node's policy (config `admission.daemonSets`): a node
 * agent (kube-proxy, a CNI, a log shipper) means the host it lands on, and a virtual node has
 * none, so by default such pods are not admitted. Tolerations say nothing about it: a pod that
 * tolerates every taint still needs `admit` to be offloaded. Pure.
 *
 * A rejected pod is never available, and the DaemonSet controller counts it against
 * `maxUnavailable` (pkg/controller/daemon/update.go), so a rolling update stalls on the real nodes
 * too: the DaemonSet itself gets a Warning naming the node affinity that keeps it off virtual
 * nodes (docs/kubelet-api.md, "DaemonSet rollouts"), where its operator looks.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';

/** `reject`: Failed with reason `DaemonSetPodNotAdmitted` (the default); `admit`: admitted like any pod. */
export type DaemonSetPolicy = 'reject' | 'admit';
export const DAEMON_SET_POLICIES: readonly DaemonSetPolicy[] = ['reject', 'admit'];
export const DEFAULT_DAEMON_SET_POLICY: DaemonSetPolicy = 'reject';

export const DAEMON_SET_REJECTED = 'DaemonSetPodNotAdmitted';

/** The label every virtual node carries (node/nodeObject.ts), and the required node affinity expression that keeps a DaemonSet off them. */
export const VIRTUAL_NODE_EXPRESSION = { key: 'type', operator: 'NotIn', values: ['virtual-kubelet'] } as const;
export const VIRTUAL_NODE_AFFINITY_HINT =
  `add ${JSON.stringify(VIRTUAL_NODE_EXPRESSION)} to the matchExpressions of each term of spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;

/** A Warning about the owner of a rejected pod (its DaemonSet), recorded once per DaemonSet per node. */
export interface OwnerWarning {
  readonly kind: 'DaemonSet';
  readonly apiVersion: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly reason: string;
  readonly note: string;
}

const daemonSetRef = (pod: Pod): NonNullable<NonNullable<Pod['metadata']>['ownerReferences']>[number] | undefined =>
  pod.metadata?.ownerReferences?.find((o) => o.controller === true && o.kind === 'DaemonSet' && o.apiVersion.startsWith('apps/'));

export const daemonSetOwner = (pod: Pod): string | undefined => daemonSetRef(pod)?.name;

/** The Warning for the DaemonSet of `pod`, rejected by `nodeName`: what happens to its rollout, and the affinity to add. */
export function daemonSetWarning(pod: Pod, nodeName: string): OwnerWarning | undefined {
  const ref = daemonSetRef(pod);
  if (!ref) return undefined;
  return {
    kind: 'DaemonSet',
    apiVersion: ref.apiVersion,
    namespace: pod.metadata?.namespace ?? '',
    name: ref.name,
    uid: ref.uid,
    reason: DAEMON_SET_REJECTED,
    note: `virtual node ${nodeName} does not run DaemonSet pods (admission.daemonSets: reject): its pod ${pod.metadata?.name ?? ''} is Failed and never available, so a rolling update of this DaemonSet waits on it; to keep the DaemonSet off virtual nodes, ${VIRTUAL_NODE_AFFINITY_HINT}`,
  };
}

/** The rejection of a DaemonSet pod, or undefined when the policy lets it through (or it is none). */
export function daemonSetVerdict(pod: Pod, policy: DaemonSetPolicy): { readonly admit: false; readonly reason: string; readonly message: string } | undefined {
  const owner = daemonSetOwner(pod);
  if (owner === undefined || policy === 'admit') return undefined;
  return {
    admit: false,
    reason: DAEMON_SET_REJECTED,
    message: `Failed to admit pod of DaemonSet ${owner}: this virtual node does not run DaemonSet pods (admission.daemonSets: reject)`,
  };
}
