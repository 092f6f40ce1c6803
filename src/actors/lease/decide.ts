import { backoffDelay } from '../../lib/backoff.js';
import type { LeaseConfig } from './config.js';
import type { LeaseEffect, LeaseMsg, LeaseState } from './protocol.js';

/**
 * The lease actor's decisions, pure: renew at once in every incarnation, then every
 * `renewIntervalMs` after a success; after a failure back off (exponential, jitter, capped) and
 * resume the cadence on success. One renewal is outstanding at a time; each outcome decides the
 * next. Times are absolute, so a report that waited in the mailbox does not shift the cadence.
 */
export type LeaseStep = { readonly state: LeaseState; readonly effects?: readonly LeaseEffect[] };

export function initialLeaseState(): LeaseState {
  return {
    phase: 'running',
    nodeUid: undefined,
    lease: undefined,
    attempt: 0,
    nextAt: undefined,
    dueAt: 0,
    failures: 0,
    renewals: 0,
    lastRenewAt: undefined,
    lastLagMs: undefined,
    maxLagMs: 0,
    lastError: undefined,
  };
}

/** The delay before the next renewal: the cadence after a success, the backoff after `failures` failures. */
export function nextRenewalMs(config: LeaseConfig, failures: number, random: () => number = Math.random): number {
  if (failures === 0) return config.renewIntervalMs;
  return backoffDelay(config.retry, failures - 1, random);
}

/** Every incarnation renews at once: a previous one may have left the Lease close to expiry. */
export function startLease(state: LeaseState, now: number): LeaseStep {
  return renewAt({ ...state, dueAt: now }, state.attempt, now);
}

export function decideLease(config: LeaseConfig, state: LeaseState, msg: LeaseMsg, _now: number): LeaseStep {
  switch (msg.type) {
    case 'lease.renewed': {
      const lagMs = Math.max(0, msg.at - state.dueAt);
      const next: LeaseState = {
        ...state,
        lease: msg.lease,
        failures: 0,
        renewals: state.renewals + 1,
        lastRenewAt: msg.at,
        lastLagMs: lagMs,
        maxLagMs: Math.max(state.maxLagMs, lagMs),
        lastError: undefined,
        dueAt: msg.at + config.renewIntervalMs,
      };
      return state.phase === 'running' ? renewAt(next, state.attempt + 1, next.dueAt) : { state: next };
    }
    case 'lease.renew-failed': {
      const failures = state.failures + 1;
      const next: LeaseState = { ...state, failures, lastError: msg.error };
      if (state.phase !== 'running') return { state: next };
      return renewAt(next, state.attempt + 1, msg.at + nextRenewalMs(config, failures, () => msg.jitter));
    }
    case 'lease.node-registered': {
      // The renewal waiting for its time takes the new owner; one already in flight does not,
      // and the next one does (a node re-created under a new uid is re-owned then).
      const next: LeaseState = { ...state, nodeUid: msg.uid };
      if (state.phase !== 'running' || state.nextAt === undefined) return { state: next };
      return renewAt(next, state.attempt, state.nextAt);
    }
    case 'lease.stop':
      if (state.phase === 'stopped') return { state };
      return { state: { ...state, phase: 'stopped', nextAt: undefined }, effects: [{ type: 'stop-renewal' }] };
  }
}

function renewAt(state: LeaseState, attempt: number, startAt: number): LeaseStep {
  return {
    state: { ...state, attempt, nextAt: startAt },
    effects: [{ type: 'renew', attempt, startAt, nodeUid: state.nodeUid, known: state.lease }],
  };
}
