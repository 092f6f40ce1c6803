import { isoOrNull } from '../../lib/clock.js';
import type { ActorBehavior } from '../../runtime/behavior.js';
import type { LeaseConfig } from './config.js';
import { decideLease, initialLeaseState, startLease } from './decide.js';
import { leaseEffects, type LeaseActorDeps } from './effects.js';
import { renewTimeOf } from './leaseObject.js';
import type { LeaseEffect, LeaseMsg, LeaseState } from './protocol.js';

/**
 * The LeaseActor: one per virtual node, owning the node's heartbeat Lease. decide.ts says when
 * each renewal is due; each renewal is an effect timed by the clock, outside every mailbox
 * (renewal.ts); renewLease.ts has the renew/conflict/create procedure.
 */
export type LeaseBehavior = ActorBehavior<LeaseState, LeaseMsg, LeaseEffect>;

export function leaseActor(deps: LeaseActorDeps, config: LeaseConfig): LeaseBehavior {
  return {
    kind: 'lease',
    initialState: initialLeaseState,
    onStart: (state, now) => startLease(state, now),
    decide: (state, msg, now) => decideLease(config, state, msg, now),
    perform: leaseEffects(deps, config),
    summarize: (state) => {
      const renewTime = renewTimeOf(state.lease);
      return {
        lease: `${config.namespace}/${config.nodeName}`,
        phase: state.phase,
        renewals: state.renewals,
        lastRenewAt: isoOrNull(state.lastRenewAt),
        nextRenewalAt: isoOrNull(state.nextAt),
        expiresAt: isoOrNull(renewTime === undefined ? undefined : renewTime + config.durationSeconds * 1000),
        lastLagMs: state.lastLagMs ?? null,
        maxLagMs: state.maxLagMs,
        failures: state.failures,
        lastError: state.lastError ?? null,
        owned: state.nodeUid !== undefined,
      };
    },
  };
}
