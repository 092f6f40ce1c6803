/**
 * An in-memory LeaseApi with the apiserver's optimistic concurrency: every write bumps the
 * resourceVersion, an update with a stale one is a 409 conflict. Stored Leases come back with
 * `renewTime` as a string, as client-node sometimes hands it over, so the actor must parse it.
 * Faults are injected per method (`failNext`, or `faults` for slow calls, timeouts and hangs).
 */
import type { Clock } from '../../src/lib/clock.js';
import type { LeaseApi } from '../../src/adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../src/adapters/kubernetes/model.js';
import { ApiFaults } from './apiFaults.js';
import { kubeError } from './kubeErrors.js';

type Method = keyof LeaseApi;

export class FakeLeaseApi implements LeaseApi {
  readonly leases = new Map<string, Lease>();
  readonly calls: Array<{ method: Method; lease?: Lease }> = [];
  readonly faults: ApiFaults<Method>;
  private seq = 0;

  /** `clock`: where delayed faults wait (needed only for those). */
  constructor(clock?: Clock) {
    this.faults = new ApiFaults<Method>(clock);
  }

  /** The next call(s) of `method` reject with these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.faults.failNext(method, ...errors);
  }

  count(method: Method): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  get(namespace: string, name: string): Lease | undefined {
    return this.leases.get(`${namespace}/${name}`);
  }

  /** Another writer changes the Lease (its resourceVersion moves on). */
  touch(namespace: string, name: string): void {
    const lease = this.get(namespace, name);
    if (lease) lease.metadata = { ...lease.metadata, resourceVersion: String(++this.seq) };
  }

  getLease(namespace: string, name: string): Promise<Lease | undefined> {
    return this.serve('getLease', `${namespace}/${name}`, undefined, () => {
      const lease = this.get(namespace, name);
      return lease && stored(lease);
    });
  }

  createLease(lease: Lease): Promise<Lease> {
    const key = keyOf(lease);
    return this.serve('createLease', key, lease, () => {
      if (this.leases.has(key)) throw kubeError('alreadyExists', `create lease ${key}`);
      return this.store(key, lease);
    });
  }

  updateLease(lease: Lease): Promise<Lease> {
    const key = keyOf(lease);
    return this.serve('updateLease', key, lease, () => {
      const current = this.leases.get(key);
      if (!current) throw kubeError('notFound', `update lease ${key}`);
      if (current.metadata?.resourceVersion !== lease.metadata?.resourceVersion) throw kubeError('conflict', `update lease ${key}`);
      return this.store(key, lease);
    });
  }

  /** Records the call, plays out its fault (if any), then runs it against the store. */
  private async serve<T>(method: Method, key: string, lease: Lease | undefined, run: () => T): Promise<T> {
    this.calls.push({ method, ...(lease ? { lease: stored(lease) } : {}) });
    const settle = await this.faults.enter(method, `${method} ${key}`);
    const result = run();
    settle();
    return result;
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
