import { backoffDelay } from '../../lib/backoff.js';
import type { LeaseConfig } from './config.js';
import type { LeaseEffect, LeaseMsg, LeaseState } from './protocol.js';

/**
 * The lease actor's decisions, pure. One renewal at a time: renew at start, then every
 * renewIntervalMs after each success; after a failure retry sooner (retry.minMs doubling to
 * retry.maxMs) and return to the normal cadence once a renewal succeeds.
 */
export type LeaseStep = { readonly state: LeaseState; readonly effects?: readonly LeaseEffect[] };

export function initialLeaseState(): LeaseState {
  return {
    phase: 'running',
    nodeUid: undefined,
    lease: undefined,
    inFlight: false,
    dueAt: 0,
    failures: 0,
    renewals: 0,
    lastRenewAt: undefined,
    lastLagMs: undefined,
    maxLagMs: 0,
    lastError: undefined,
  };
}

/** Every incarnation renews at once: the previous one may have left the Lease close to expiry. */
export function startLease(state: LeaseState, now: number): LeaseStep {
  return renew({ ...state, dueAt: now }, now);
}

export function decideLease(config: LeaseConfig, state: LeaseState, msg: LeaseMsg, now: number): LeaseStep {
  switch (msg.type) {
    case 'lease.tick':
      if (state.phase !== 'running' || state.inFlight) return { state };
      return renew(state, now);
    case 'lease.renewed': {
      const lag = Math.max(0, now - state.dueAt);
      const next: LeaseState = {
        ...state,
        lease: msg.lease,
        inFlight: false,
        failures: 0,
        renewals: state.renewals + 1,
        lastRenewAt: now,
        lastLagMs: lag,
        maxLagMs: Math.max(state.maxLagMs, lag),
        lastError: undefined,
        dueAt: now + config.renewIntervalMs,
      };
      if (state.phase !== 'running') return { state: next };
      return { state: next, effects: [{ type: 'schedule', ms: config.renewIntervalMs, msg: { type: 'lease.tick' } }] };
    }
    case 'lease.renew-failed': {
      // dueAt stays: the lag of the eventual success shows how late the heartbeat was.
      const retry = config.retry;
      const ms = backoffDelay({ minMs: retry.minMs, maxMs: retry.maxMs, factor: 2, jitter: 0 }, state.failures);
      const next: LeaseState = { ...state, inFlight: false, failures: state.failures + 1, lastError: msg.error };
      if (state.phase !== 'running') return { state: next };
      return { state: next, effects: [{ type: 'schedule', ms, msg: { type: 'lease.tick' } }] };
    }
    case 'lease.node-registered':
      // Takes effect with the next renewal (a node re-created under a new uid is re-owned then).
      return { state: { ...state, nodeUid: msg.uid } };
    case 'lease.stop':
      return { state: { ...state, phase: 'stopped' } };
  }
}

function renew(state: LeaseState, now: number): LeaseStep {
  return {
    state: { ...state, inFlight: true },
    effects: [{ type: 'renew', renewAt: now, known: state.lease, nodeUid: state.nodeUid }],
  };
}
