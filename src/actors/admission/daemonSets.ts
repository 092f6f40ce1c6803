/**
 * DaemonSet pods on a virtual node, by the node's policy (config `admission.daemonSets`): a node
 * agent (kube-proxy, a CNI, a log shipper) means the host it lands on, and a virtual node has
 * none, so by default such pods are not admitted. Tolerations say nothing about it: a pod that
 * tolerates every taint still needs `admit` to be offloaded. Pure.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';

/** `reject`: Failed with reason `DaemonSetPodNotAdmitted` (the default); `admit`: admitted like any pod. */
export type DaemonSetPolicy = 'reject' | 'admit';
export const DAEMON_SET_POLICIES: readonly DaemonSetPolicy[] = ['reject', 'admit'];
export const DEFAULT_DAEMON_SET_POLICY: DaemonSetPolicy = 'reject';

export const daemonSetOwner = (pod: Pod): string | undefined =>
  pod.metadata?.ownerReferences?.find((o) => o.controller === true && o.kind === 'DaemonSet' && o.apiVersion.startsWith('apps/'))?.name;

/** The rejection of a DaemonSet pod, or undefined when the policy lets it through (or it is none). */
export function daemonSetVerdict(pod: Pod, policy: DaemonSetPolicy): { readonly admit: false; readonly reason: string; readonly message: string } | undefined {
  const owner = daemonSetOwner(pod);
  if (owner === undefined || policy === 'admit') return undefined;
  return {
    admit: false,
    reason: 'DaemonSetPodNotAdmitted',
    message: `Failed to admit pod of DaemonSet ${owner}: this virtual node does not run DaemonSet pods (admission.daemonSets: reject)`,
  };
}
