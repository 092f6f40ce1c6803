/**
 * An in-memory LeaseApi with the apiserver's optimistic concurrency: every write bumps the
 * resourceVersion, an update with a stale one is a 409 conflict. Stored Leases come back with
 * `renewTime` as a string, as client-node sometimes hands it over, so the actor must parse it.
 * Faults are injected per method (`failNext`, or `faults` for slow calls, timeouts and hangs).
 */
import type { LeaseListApi } from '../../src/adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../src/adapters/kubernetes/model.js';
import { kubeError } from './kubeErrors.js';
import { RecordingApi } from './recordingApi.js';

type Method = keyof LeaseListApi;

export interface LeaseCall {
  readonly method: Method;
  readonly lease?: Lease;
}

export class FakeLeaseApi extends RecordingApi<Method, LeaseCall> implements LeaseListApi {
  readonly leases = new Map<string, Lease>();
  private seq = 0;

  get(namespace: string, name: string): Lease | undefined {
    return this.leases.get(`${namespace}/${name}`);
  }

  /** Another writer changes the Lease (its resourceVersion moves on). */
  touch(namespace: string, name: string): void {
    const lease = this.get(namespace, name);
    if (lease) lease.metadata = { ...lease.metadata, resourceVersion: String(++this.seq) };
  }

  getLease(namespace: string, name: string): Promise<Lease | undefined> {
    return this.call('getLease', `${namespace}/${name}`, undefined, () => {
      const lease = this.get(namespace, name);
      return lease && stored(lease);
    });
  }

  /** Leases of `namespace` whose labels have `key=value` (the one selector form Tether uses). */
  listLeases(namespace: string, labelSelector: string): Promise<Lease[]> {
    const [key = '', value = ''] = labelSelector.split('=');
    return this.call('listLeases', `${namespace} ${labelSelector}`, undefined, () =>
      [...this.leases.values()]
        .filter((l) => l.metadata?.namespace === namespace && l.metadata.labels?.[key] === value)
        .map(stored));
  }

  deleteLease(namespace: string, name: string): Promise<void> {
    return this.call('deleteLease', `${namespace}/${name}`, undefined, () => {
      this.leases.delete(`${namespace}/${name}`);
    });
  }

  createLease(lease: Lease): Promise<Lease> {
    const key = keyOf(lease);
    return this.call('createLease', key, lease, () => {
      if (this.leases.has(key)) throw kubeError('already-exists', `create lease ${key}`);
      return this.store(key, lease);
    });
  }

  updateLease(lease: Lease): Promise<Lease> {
    const key = keyOf(lease);
    return this.call('updateLease', key, lease, () => {
      const current = this.leases.get(key);
      if (!current) throw kubeError('not-found', `update lease ${key}`);
      if (current.metadata?.resourceVersion !== lease.metadata?.resourceVersion) throw kubeError('conflict', `update lease ${key}`);
      return this.store(key, lease);
    });
  }

  private call<T>(method: Method, key: string, lease: Lease | undefined, run: () => T): Promise<T> {
    return this.serve({ method, ...(lease ? { lease: stored(lease) } : {}) }, `${method} ${key}`, run);
  }

  private store(key: string, lease: Lease): Lease {
    const saved = stored(lease);
    saved.metadata = { ...saved.metadata, resourceVersion: String(++this.seq), uid: this.leases.get(key)?.metadata?.uid ?? `lease-uid-${this.seq}` };
    this.leases.set(key, saved);
    return stored(saved);
  }
}

function keyOf(lease: Lease): string {
  return `${lease.metadata?.namespace ?? ''}/${lease.metadata?.name ?? ''}`;
}

/** A JSON round trip: Dates become strings, as over the wire. */
function stored(lease: Lease): Lease {
  return JSON.parse(JSON.stringify(lease)) as Lease;
}
