import type { LeaseConfig } from './config.js';
import type { LeaseEffect, LeaseMsg, LeaseState } from './protocol.js';

/**
 * The lease actor's decisions, pure. The cadence and the backoff are the renewer's (renewer.ts),
 * which renews from its own timer so that no renewal waits in a mailbox; the actor starts it in
 * every incarnation, tells it the Node's uid, stops it, and keeps the figures shown in the tree.
 */
export type LeaseStep = { readonly state: LeaseState; readonly effects?: readonly LeaseEffect[] };

export function initialLeaseState(): LeaseState {
  return {
    phase: 'running',
    nodeUid: undefined,
    lease: undefined,
    failures: 0,
    renewals: 0,
    lastRenewAt: undefined,
    lastLagMs: undefined,
    maxLagMs: 0,
    lastError: undefined,
  };
}

/** Every incarnation starts its renewer, which renews at once. */
export function startLease(state: LeaseState, _now: number): LeaseStep {
  return { state, effects: [{ type: 'start-renewer', nodeUid: state.nodeUid }] };
}

export function decideLease(_config: LeaseConfig, state: LeaseState, msg: LeaseMsg, _now: number): LeaseStep {
  switch (msg.type) {
    case 'lease.renewed':
      return {
        state: {
          ...state,
          lease: msg.lease,
          failures: 0,
          renewals: state.renewals + 1,
          lastRenewAt: msg.at,
          lastLagMs: msg.lagMs,
          maxLagMs: Math.max(state.maxLagMs, msg.lagMs),
          lastError: undefined,
        },
      };
    case 'lease.renew-failed':
      return { state: { ...state, failures: msg.failures, lastError: msg.error } };
    case 'lease.renewer-crashed':
      return { state, effects: [{ type: 'crash', error: msg.error }] };
    case 'lease.node-registered':
      // Takes effect with the next renewal (a node re-created under a new uid is re-owned then).
      if (state.phase !== 'running') return { state: { ...state, nodeUid: msg.uid } };
      return { state: { ...state, nodeUid: msg.uid }, effects: [{ type: 'set-owner', uid: msg.uid }] };
    case 'lease.stop':
      if (state.phase === 'stopped') return { state };
      return { state: { ...state, phase: 'stopped' }, effects: [{ type: 'stop-renewer' }] };
  }
}
