/**
 * A node lock's decisions, pure: (state, message, now) -> state and effects. One look at a time,
 * each a read and maybe a write, all within `renewDeadlineMs`; the next look a retry period after
 * one ends (sooner at the end of a preference delay). A holder's deadline is armed at every
 * successful write: the effect runner loses the lock by a timer then (lockEffects.ts), and an
 * answer that arrives for a look overtaken by that loss, or by a stop, changes nothing.
 */
import type { ElectionSettings } from './settings.js';
import { acquireDelayMs, decideStep, isExpired, lockLease, observe, releasedLease } from './lockDecisions.js';
import type { LockEffect, LockMsg, LockState, Spread, WriteKind } from './lockProtocol.js';
import { schedule } from '../runtime/effectOutcome.js';

export interface LockConfig {
  readonly nodeName: string;
  /** The lock's name (`tether-node-<node>`) in `settings.namespace`. */
  readonly name: string;
  readonly settings: ElectionSettings;
}

export type LockStep = { readonly state: LockState; readonly effects?: readonly LockEffect[] };

export function initialLockState(): LockState {
  return {
    phase: 'running', observation: undefined, freeSince: undefined, stored: undefined, hold: undefined, look: undefined,
    looks: 0, holds: 0, holderSeen: undefined, renewals: 0, givenBack: 0, failures: 0, lastError: undefined,
  };
}

/** Every incarnation holds nothing and looks at once; what the last one shared is reset. */
export function startLock(config: LockConfig, state: LockState, now: number): LockStep {
  const step = beginLook(config, state, now);
  return { state: step.state, effects: [{ type: 'share', taking: false, holder: undefined }, ...(step.effects ?? [])] };
}

export function decideLock(config: LockConfig, state: LockState, msg: LockMsg, now: number): LockStep {
  return withShare(state, decide(config, state, msg, now));
}

function decide(config: LockConfig, state: LockState, msg: LockMsg, now: number): LockStep {
  if (state.phase === 'stopped') return { state };
  const { retryPeriodMs, renewDeadlineMs } = config.settings;
  switch (msg.type) {
    case 'lock.look':
      return state.look ? { state } : beginLook(config, state, now);
    case 'lock.read':
      return state.look?.seq === msg.seq ? afterRead(config, state, msg.lease, msg.spread, now) : { state };
    case 'lock.written': {
      const look = state.look;
      if (look?.seq !== msg.seq || !look.writing) return { state };
      if (look.writing.kind === 'release') return endLook({ ...state, stored: msg.lease, observation: observe(state.observation, msg.lease, now) }, retryPeriodMs);
      return afterWrite(config, { ...state, stored: msg.lease, observation: observe(state.observation, msg.lease, now) }, look.writing);
    }
    case 'lock.outrun':
      // Someone else wrote first: look again next period (a holder keeps its deadline).
      return state.look?.seq === msg.seq ? endLook(state, retryPeriodMs) : { state };
    case 'lock.call-failed': {
      if (state.look?.seq !== msg.seq) return { state };
      const failed: LockState = { ...state, failures: state.failures + 1, lastError: msg.error };
      const hold = state.hold;
      if (hold && now - hold.lastRenewAt >= renewDeadlineMs) return lose(endLook(failed, retryPeriodMs), 'renew deadline passed');
      return endLook(failed, retryPeriodMs);
    }
    case 'lock.deadline-passed': {
      if (state.hold?.gen !== msg.gen) return { state };
      // The runner has given the node up already. A look in flight is overtaken: its answers
      // are dropped, and the next look is scheduled here instead (one look or one wait at a time).
      const lost: LockState = { ...state, hold: undefined };
      return state.look ? { state: { ...lost, look: undefined }, effects: [lookIn(retryPeriodMs)] } : { state: lost };
    }
    case 'lock.stop': {
      const release = msg.release && state.hold ? releasedLease(state.stored, config.settings.identity, now) : undefined;
      const given = lose({ state }, 'stopping');
      return {
        state: { ...given.state, phase: 'stopped', look: undefined },
        effects: [...(given.effects ?? []), { type: 'stopped', release }],
      };
    }
  }
}

function beginLook(config: LockConfig, state: LockState, now: number): LockStep {
  const seq = state.looks + 1;
  const deadlineAt = now + config.settings.renewDeadlineMs;
  return { state: { ...state, looks: seq, look: { seq, deadlineAt, writing: undefined } }, effects: [{ type: 'read', seq, deadlineAt }] };
}

function endLook(state: LockState, nextMs: number): LockStep {
  return { state: { ...state, look: undefined }, effects: [lookIn(nextMs)] };
}

/** The next look, `ms` from now. */
function lookIn(ms: number): LockEffect {
  return schedule<LockMsg>(ms, { type: 'lock.look' });
}

function lose(step: LockStep, why: string): LockStep {
  const hold = step.state.hold;
  if (!hold) return step;
  return { state: { ...step.state, hold: undefined }, effects: [...(step.effects ?? []), { type: 'lose', gen: hold.gen, why }] };
}

function afterRead(config: LockConfig, state: LockState, lease: LockState['stored'], spread: Spread, now: number): LockStep {
  const { identity, leaseDurationMs, renewDeadlineMs, retryPeriodMs } = config.settings;
  const observation = observe(state.observation, lease, now);
  // Our own record counts as free: it is left from an incarnation (or a process) of this replica
  // that no longer holds it, and taking it back at once is what keeps the node driven.
  const freeNow = !lease || !observation || isExpired(observation, now, leaseDurationMs) || observation.holder === identity;
  // Held by this replica is not free: a lock given back is free from then, not from before it was taken.
  const freeSince = freeNow && !state.hold ? (state.freeSince ?? now) : undefined;
  const seen: LockState = { ...state, stored: lease, observation, freeSince, holderSeen: observation && !freeNow ? observation.holder : undefined, failures: 0, lastError: undefined };
  const vacant = !lease || observation?.holder === '';
  const delayMs = acquireDelayMs({ identity, nodeName: config.nodeName, held: spread.held, share: spread.share, vacant, retryPeriodMs, leaseDurationMs });
  const step = decideStep({
    identity, holding: state.hold !== undefined, lastRenewAt: state.hold?.lastRenewAt ?? 0, exists: lease !== undefined, observation,
    freeSince, delayMs, now, leaseDurationMs, renewDeadlineMs,
  });
  switch (step.type) {
    case 'wait':
      // Look again right when the preference delay ends, not a whole retry period later.
      return endLook(seen, step.reason === 'preference-delay' ? Math.min(retryPeriodMs, Math.max(1, (freeSince ?? now) + delayMs - now)) : retryPeriodMs);
    case 'lost':
      return lose(endLook(seen, retryPeriodMs), `the lock is held by ${observation?.holder ?? 'nobody'}`);
    case 'renew':
      if (spread.giveBack) return giveBack(config, seen, lease, now);
      return write(config, seen, lease, step.type, now);
    case 'take':
    case 'create':
      return write(config, seen, lease, step.type, now);
  }
}

function write(config: LockConfig, seen: LockState, lease: LockState['stored'], kind: 'renew' | 'take' | 'create', now: number): LockStep {
  const { identity, leaseDurationMs, namespace } = config.settings;
  const look = seen.look;
  if (!look) return { state: seen };
  const desired = lockLease(lease, { namespace, name: config.name, identity, leaseDurationMs, now, taking: kind !== 'renew' });
  return {
    state: { ...seen, look: { ...look, writing: { kind, at: now } } },
    effects: [{ type: 'write', seq: look.seq, kind, lease: desired, deadlineAt: look.deadlineAt }],
  };
}

/**
 * Scale-out: the node goes to a peer below its share. It is given up first (fenced and stopped
 * by the runner before the write leaves), then the lock is written with an empty holder, which
 * the peer takes at its next look. A failed write leaves the lock to expire, as a crash would.
 */
function giveBack(config: LockConfig, seen: LockState, lease: LockState['stored'], now: number): LockStep {
  const look = seen.look;
  const released = releasedLease(lease, config.settings.identity, now);
  if (!look || !released) return write(config, seen, lease, 'renew', now);
  const given = lose({ state: { ...seen, givenBack: seen.givenBack + 1, look: { ...look, writing: { kind: 'release', at: now } } } }, 'given back: this replica holds more than its share and a peer holds less');
  return {
    state: given.state,
    effects: [...(given.effects ?? []), { type: 'gave-back', at: now }, { type: 'write', seq: look.seq, kind: 'release', lease: released, deadlineAt: look.deadlineAt }],
  };
}

/** The lock is ours as of `writing.at`: held until renewDeadlineMs later unless renewed again. */
function afterWrite(config: LockConfig, state: LockState, writing: { readonly kind: WriteKind; readonly at: number }): LockStep {
  const deadlineAt = writing.at + config.settings.renewDeadlineMs;
  const ended = endLook(state, config.settings.retryPeriodMs);
  const hold = state.hold;
  if (hold) {
    return {
      state: { ...ended.state, hold: { ...hold, lastRenewAt: writing.at, deadlineAt }, renewals: state.renewals + 1 },
      effects: [{ type: 'renewed', gen: hold.gen, deadlineAt }, ...(ended.effects ?? [])],
    };
  }
  const gen = state.holds + 1;
  return {
    state: { ...ended.state, holds: gen, hold: { gen, lastRenewAt: writing.at, deadlineAt } },
    effects: [{ type: 'hold', gen, deadlineAt }, ...(ended.effects ?? [])],
  };
}

/** Taking this lock counts as holding it for the replica's spreading. */
const taking = (state: LockState): boolean => state.look?.writing?.kind === 'take' || state.look?.writing?.kind === 'create';

/** Appends a `share` effect when what the other locks read (taking, holder seen) changed. */
function withShare(before: LockState, step: LockStep): LockStep {
  const after = step.state;
  if (taking(before) === taking(after) && before.holderSeen === after.holderSeen) return step;
  return { state: after, effects: [...(step.effects ?? []), { type: 'share', taking: taking(after), holder: after.holderSeen }] };
}
