import type { EffectContext } from '../../runtime/behavior.js';
import type { LeaseConfig } from './config.js';
import type { LeaseEffect, LeaseMsg } from './protocol.js';
import { leaseRenewal, type RenewalDeps } from './renewal.js';

/**
 * The lease actor's effects: each renewal (renewal.ts), timed by the clock and fenced to this
 * incarnation, and stopping them.
 */
export type LeaseActorDeps = RenewalDeps;

export function leaseEffects(deps: LeaseActorDeps, config: LeaseConfig): (effect: LeaseEffect, ctx: EffectContext<LeaseMsg>) => Promise<void> | void {
  const renewal = leaseRenewal(deps, config);
  return (effect, ctx) => {
    switch (effect.type) {
      case 'renew':
        return renewal.renew(effect, ctx);
      case 'stop-renewal':
        renewal.stop(ctx);
        return;
    }
  };
}
