import { describeApiError, KubeApiError } from '../../adapters/kubernetes/errors.js';
import type { LeaseApi } from '../../adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../adapters/kubernetes/model.js';
import type { Logger } from '../../adapters/logger.js';
import type { EffectContext } from '../../runtime/behavior.js';
import type { LeaseConfig } from './config.js';
import { desiredLease } from './leaseObject.js';
import type { LeaseEffect, LeaseMsg } from './protocol.js';

/**
 * The lease actor's effects. A KubeApiError of any kind is an expected failure (reported as
 * 'lease.renew-failed' and retried with backoff); anything else is a bug and crashes the actor.
 */
export interface LeaseActorDeps {
  readonly leaseApi: LeaseApi;
  readonly logger: Logger;
}

export function leaseEffects(deps: LeaseActorDeps, config: LeaseConfig): (effect: LeaseEffect, ctx: EffectContext<LeaseMsg>) => Promise<void> | void {
  return (effect, ctx) => {
    switch (effect.type) {
      case 'renew':
        return renewOnce(deps, config, effect, ctx);
      case 'schedule':
        ctx.schedule(effect.ms, effect.msg);
        return;
    }
  };
}

async function renewOnce(
  deps: LeaseActorDeps,
  config: LeaseConfig,
  effect: Extract<LeaseEffect, { type: 'renew' }>,
  ctx: EffectContext<LeaseMsg>,
): Promise<void> {
  let msg: LeaseMsg;
  try {
    const lease = await renewLease(deps.leaseApi, config, (base) => desiredLease(config, effect.renewAt, effect.nodeUid, base), effect.known);
    msg = { type: 'lease.renewed', lease };
  } catch (err) {
    if (ctx.signal.aborted) return;
    if (!(err instanceof KubeApiError)) throw err;
    const error = describeApiError(err);
    deps.logger.warn('lease renewal failed', { node: config.nodeName, error });
    msg = { type: 'lease.renew-failed', error };
  }
  if (!ctx.signal.aborted) ctx.self.tell(msg);
}

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
      if (!(err instanceof KubeApiError && err.kind === 'alreadyExists')) throw err;
      const current = await api.getLease(namespace, name);
      if (current === undefined) throw err;
      return api.updateLease(build(current));
    }
  };
  if (known === undefined) return reread();
  try {
    return await api.updateLease(build(known));
  } catch (err) {
    if (err instanceof KubeApiError && err.kind === 'conflict') return reread();
    if (err instanceof KubeApiError && err.kind === 'notFound') return create();
    throw err;
  }
}
