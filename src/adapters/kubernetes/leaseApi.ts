import type { Lease } from './model.js';

/**
 * Node heartbeat leases (coordination.k8s.io/v1, normally in `kube-node-lease`). Every call is
 * scheduled at the 'lease' priority, ahead of all other queued requests, and rejects only with
 * `KubeApiError`.
 */
export interface LeaseApi {
  /** The Lease, or undefined if it does not exist (404). */
  getLease(namespace: string, name: string): Promise<Lease | undefined>;

  /** Creates the Lease (namespace from its metadata); 'alreadyExists' if someone else did. */
  createLease(lease: Lease): Promise<Lease>;

  /**
   * Replaces the Lease (PUT). `lease.metadata.resourceVersion` must be the one last read; if the
   * stored Lease changed since, rejects with kind 'conflict' (re-read, then retry).
   */
  updateLease(lease: Lease): Promise<Lease>;
}

/**
 * Leases that are listed too: the replicas' membership Leases (src/ha/membership.ts), which a
 * replica finds by label in its own namespace. Also at the 'lease' priority.
 */
export interface LeaseListApi extends LeaseApi {
  /** The Leases of `namespace` that match `labelSelector` (`key=value`). */
  listLeases(namespace: string, labelSelector: string): Promise<Lease[]>;
  /** Deletes the Lease; one already gone is not an error. */
  deleteLease(namespace: string, name: string): Promise<void>;
}
