/**
 * An in-memory LeaseApi with the apiserver's optimistic concurrency: every write bumps the
 * resourceVersion, an update with a stale one is a 409 conflict. Stored Leases come back with
 * `renewTime` as a string, as client-node sometimes hands it over, so the actor must parse it.
 */
import type { LeaseApi } from '../../../src/adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../../src/adapters/kubernetes/model.js';
import { kubeError } from './kubeErrors.js';
import { ScriptedFailures } from './scriptedFailures.js';

type Method = keyof LeaseApi;

export class FakeLeaseApi implements LeaseApi {
  readonly leases = new Map<string, Lease>();
  readonly calls: Array<{ method: Method; lease?: Lease }> = [];
  private readonly failures = new ScriptedFailures<Method>();
  private seq = 0;

  /** The next call(s) of `method` reject with these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.failures.failNext(method, ...errors);
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

  async getLease(namespace: string, name: string): Promise<Lease | undefined> {
    this.enter('getLease');
    const lease = this.get(namespace, name);
    return lease && stored(lease);
  }

  async createLease(lease: Lease): Promise<Lease> {
    this.enter('createLease', lease);
    const key = keyOf(lease);
    if (this.leases.has(key)) throw kubeError('alreadyExists', `create lease ${key}`);
    return this.store(key, lease);
  }

  async updateLease(lease: Lease): Promise<Lease> {
    this.enter('updateLease', lease);
    const key = keyOf(lease);
    const current = this.leases.get(key);
    if (!current) throw kubeError('notFound', `update lease ${key}`);
    if (current.metadata?.resourceVersion !== lease.metadata?.resourceVersion) throw kubeError('conflict', `update lease ${key}`);
    return this.store(key, lease);
  }

  private enter(method: Method, lease?: Lease): void {
    this.calls.push({ method, ...(lease ? { lease: stored(lease) } : {}) });
    this.failures.throwIfScripted(method);
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
