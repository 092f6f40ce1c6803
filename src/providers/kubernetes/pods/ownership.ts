/**
 * Which remote pods are Tether's: the ownership rule (docs/kubernetes-provider.md). Pure.
 *
 * A remote pod is this Tether's only if it carries the labels `managed-by=tether`, this host
 * cluster's id and this virtual node, names its host pod (namespace, name, uid), has the host
 * pod's name, and lives in the very namespace the namespace mapping gives for that host namespace.
 * Labels and annotations can be copied by anyone who can create a pod; the namespace check is what
 * a forger in another namespace cannot meet. Everything else is ignored.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { isIdentified, type PodIdentity } from '../../../lib/podIdentity.js';
import { hostIdentityOf } from './hostView.js';
import { hostClusterLabel, labelValue, managedByLabel, managedByValue, virtualNodeLabel } from '../marks.js';

export interface OwnershipRule {
  readonly hostClusterId: string;
  readonly nodeName: string;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
}

export type Ownership =
  | { readonly owned: true; readonly identity: PodIdentity }
  | { readonly owned: false; readonly why: string };

/** The label selector matching this host cluster's pods of one virtual node (the rule's labels). */
export function ownedPodSelector(rule: Pick<OwnershipRule, 'hostClusterId' | 'nodeName'>): string {
  return `${managedByLabel}=${managedByValue},${hostClusterLabel}=${labelValue(rule.hostClusterId)},${virtualNodeLabel}=${labelValue(rule.nodeName)}`;
}

/** Whether `remote` is a pod this Tether made for this host cluster and virtual node. */
export function ownershipOf(remote: Pod, rule: OwnershipRule): Ownership {
  const labels = remote.metadata?.labels ?? {};
  if (labels[managedByLabel] !== managedByValue) return { owned: false, why: `it lacks ${managedByLabel}=${managedByValue}` };
  if (labels[hostClusterLabel] !== labelValue(rule.hostClusterId)) return { owned: false, why: `it belongs to host cluster ${labels[hostClusterLabel] ?? '(none)'}` };
  if (labels[virtualNodeLabel] !== labelValue(rule.nodeName)) return { owned: false, why: `it belongs to virtual node ${labels[virtualNodeLabel] ?? '(none)'}` };
  const identity = hostIdentityOf(remote);
  if (!identity || !isIdentified(identity)) return { owned: false, why: 'it lacks the host pod identity annotations' };
  const namespace = remote.metadata?.namespace ?? '';
  const expected = rule.remoteNamespaceOf(identity.namespace);
  if (namespace !== expected) {
    return { owned: false, why: `it claims host namespace ${identity.namespace}, whose pods live in ${expected}, but lives in namespace ${namespace}` };
  }
  if (remote.metadata?.name !== identity.name) return { owned: false, why: `its name differs from its host pod's (${identity.name})` };
  return { owned: true, identity };
}
