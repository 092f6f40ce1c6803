import { KubeApiError } from '../../adapters/kubernetes/errors.js';
import type { LeaseApi } from '../../adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../adapters/kubernetes/model.js';
import type { Logger } from '../../adapters/logger.js';
import type { EffectContext } from '../../runtime/behavior.js';
import type { LeaseConfig } from './config.js';
import type { LeaseEffect, LeaseMsg } from './protocol.js';
import { LeaseRenewer } from './renewer.js';

/**
 * The lease actor's effects: its renewer's life. The renewer reports into the mailbox only while
 * this incarnation lives, and stops when it ends (crash, restart or stop).
 */
export interface LeaseActorDeps {
  readonly leaseApi: LeaseApi;
  readonly logger: Logger;
  /** Replaces Math.random in the retry jitter (tests). */
  readonly random?: () => number;
}

export function leaseEffects(deps: LeaseActorDeps, config: LeaseConfig): (effect: LeaseEffect, ctx: EffectContext<LeaseMsg>) => Promise<void> | void {
  let renewer: LeaseRenewer | undefined;
  return (effect, ctx) => {
    switch (effect.type) {
      case 'start-renewer': {
        renewer?.stop();
        const own = new LeaseRenewer({ ...deps, clock: ctx.clock }, config, (msg) => {
          if (!ctx.signal.aborted) ctx.self.tell(msg);
        }, effect.nodeUid);
        renewer = own;
        ctx.signal.addEventListener('abort', () => own.stop(), { once: true });
        own.start();
        return;
      }
      case 'set-owner':
        renewer?.setOwner(effect.uid);
        return;
      case 'stop-renewer':
        renewer?.stop();
        return;
      case 'crash':
        throw effect.error;
    }
  };
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
