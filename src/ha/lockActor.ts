/**
 * The actor of one node lock (`tether/ha/lock-<node>`, kind `node-lock`): pure decisions
 * (lockDecide.ts) beside the effects that hold the node (lockEffects.ts), restarted by the `ha`
 * supervisor under `lockRestartPolicy`, and shown in the live tree with what it last saw.
 */
import { isoOrNull } from '../lib/clock.js';
import type { ActorBehavior } from '../runtime/behavior.js';
import { decideLock, initialLockState, startLock, type LockConfig } from './lockDecide.js';
import { lockEffects, type LockActorDeps } from './lockEffects.js';
import type { LockEffect, LockMsg, LockState } from './lockProtocol.js';

export type LockBehavior = ActorBehavior<LockState, LockMsg, LockEffect>;

export function lockActor(deps: LockActorDeps, config: LockConfig): LockBehavior {
  return {
    kind: 'node-lock',
    initialState: initialLockState,
    onStart: (state, now) => startLock(config, state, now),
    decide: (state, msg, now) => decideLock(config, state, msg, now),
    perform: lockEffects(deps, config),
    summarize: (state) => ({
      lock: `${config.settings.namespace}/${config.name}`,
      node: config.nodeName,
      phase: state.phase,
      holding: state.hold !== undefined,
      holder: state.holderSeen ?? null,
      lastRenewAt: isoOrNull(state.hold?.lastRenewAt),
      deadlineAt: isoOrNull(state.hold?.deadlineAt),
      freeSince: isoOrNull(state.freeSince),
      renewals: state.renewals,
      failures: state.failures,
      lastError: state.lastError ?? null,
    }),
  };
}
