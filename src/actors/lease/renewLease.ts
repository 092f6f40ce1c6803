import type { LeaseApi } from '../../adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../adapters/kubernetes/model.js';
import { isKind } from '../../lib/errorKind.js';
import type { LeaseConfig } from './config.js';

/**
 * One renewal: update with the last known resourceVersion; on conflict re-read and update once
 * more; if the Lease does not exist (never created, or garbage-collected with an old Node),
 * create it; if someone created it meanwhile, re-read and update. Returns the stored Lease.
 */
export async function renewLease(
  api: LeaseApi,
  config: LeaseConfig,
  build: (base: Lease | undefined) => Lease,
  known: Lease | undefined,
): Promise<Lease> {
  const { namespace, nodeName: name } = config;
  const reread = async (): Promise<Lease> => {
    const current = await api.getLease(namespace, name);
    return current === undefined ? create() : api.updateLease(build(current));
  };
  const create = async (): Promise<Lease> => {
    try {
      return await api.createLease(build(undefined));
    } catch (err) {
      if (!isKind(err, 'already-exists')) throw err;
      const current = await api.getLease(namespace, name);
      if (current === undefined) throw err;
      return api.updateLease(build(current));
    }
  };
  if (known === undefined) return reread();
  try {
    return await api.updateLease(build(known));
  } catch (err) {
    if (isKind(err, 'conflict')) return reread();
    if (isKind(err, 'not-found')) return create();
    throw err;
  }
}
