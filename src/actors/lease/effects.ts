import type { LeaseApi } from '../../adapters/kubernetes/leaseApi.js';
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
