import type { CoordinationV1Api } from '@kubernetes/client-node';
import { V1MicroTime } from '@kubernetes/client-node';
import { call, type Caller, orUndefined } from './call.js';
import type { LeaseListApi } from './leaseApi.js';
import type { Lease } from './model.js';
import { operation } from './operation.js';

/**
 * {@link LeaseListApi} over client-node's CoordinationV1Api, every call at 'lease' priority.
 *
 * client-node quirk handled here: `renewTime`/`acquireTime` are typed V1MicroTime but come back
 * as strings, and a plain Date would be sent with millisecond precision, which the apiserver's
 * MicroTime parser (exactly six fractional digits) rejects. Reads return V1MicroTime instances,
 * and writes convert any Date or string to V1MicroTime.
 */
export class LeaseApiClient implements LeaseListApi {
  constructor(
    private readonly coordination: CoordinationV1Api,
    private readonly limiter: Caller,
  ) {}

  async getLease(namespace: string, name: string): Promise<Lease | undefined> {
    const lease = await orUndefined(
      call(this.limiter, 'lease', operation('get', `lease ${namespace}/${name}`), (o) =>
        this.coordination.readNamespacedLease({ name, namespace }, o),
      ),
    );
    return lease && withMicroTimes(lease);
  }

  async listLeases(namespace: string, labelSelector: string): Promise<Lease[]> {
    const list = await call(this.limiter, 'lease', operation('list', `leases ${namespace} (${labelSelector})`), (o) =>
      this.coordination.listNamespacedLease({ namespace, labelSelector }, o),
    );
    return list.items.map(withMicroTimes);
  }

  async deleteLease(namespace: string, name: string): Promise<void> {
    await orUndefined(call(this.limiter, 'lease', operation('delete', `lease ${namespace}/${name}`), (o) =>
      this.coordination.deleteNamespacedLease({ name, namespace }, o),
    ));
  }

  async createLease(lease: Lease): Promise<Lease> {
    const { namespace, name } = identity(lease);
    const created = await call(this.limiter, 'lease', operation('create', `lease ${namespace}/${name}`), (o) =>
      this.coordination.createNamespacedLease({ namespace, body: withMicroTimes(lease) }, o),
    );
    return withMicroTimes(created);
  }

  async updateLease(lease: Lease): Promise<Lease> {
    const { namespace, name } = identity(lease);
    const updated = await call(this.limiter, 'lease', operation('update', `lease ${namespace}/${name}`), (o) =>
      this.coordination.replaceNamespacedLease({ name, namespace, body: withMicroTimes(lease) }, o),
    );
    return withMicroTimes(updated);
  }
}

function identity(lease: Lease): { namespace: string; name: string } {
  return { namespace: lease.metadata?.namespace ?? 'kube-node-lease', name: lease.metadata?.name ?? '' };
}

/** A shallow copy whose spec times are V1MicroTime instances. */
function withMicroTimes(lease: Lease): Lease {
  if (!lease.spec) return lease;
  const spec = { ...lease.spec };
  if (spec.renewTime !== undefined) spec.renewTime = microTime(spec.renewTime);
  if (spec.acquireTime !== undefined) spec.acquireTime = microTime(spec.acquireTime);
  return { ...lease, spec };
}

function microTime(value: Date | string): V1MicroTime {
  if (value instanceof V1MicroTime) return value;
  return new V1MicroTime(value instanceof Date ? value.getTime() : value);
}
