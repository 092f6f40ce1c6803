import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Drops `metadata.managedFields` from an object about to be cached, as client-go's
 * `cache.TransformStripManagedFields` does for informers. Server-side apply's bookkeeping is
 * often the largest part of a pod (one entry per writer: the ReplicaSet controller, the
 * scheduler, the kubelet's status writes), and Tether never reads it. In place: the object was
 * just parsed from the wire and nobody else holds it yet.
 */
export function withoutManagedFields<T extends KubernetesObject>(obj: T): T {
  if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
  return obj;
}
