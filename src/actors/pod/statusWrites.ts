/**
 * Status writes, decided: one write in flight per pod, only the newest status waits, nothing is
 * written twice (nor what the host pod already shows), a Pending is held a moment in case Running
 * supersedes it, failures are retried, and a status changed by another writer is put back.
 */
import type { PodStatus } from '../../adapters/kubernetes/model.js';
import { isOlder } from '../../adapters/kubernetes/watchCache.js';
import { fingerprint } from '../../lib/fingerprint.js';
import { hostStatusFrom, ownedFingerprint } from './podStatusView.js';
import type { PodActorConfig, PodEffect, PodMsg, PodState } from './protocol.js';
import { retryDelay, withEffects, type Next } from './transitions.js';

/**
 * Another client wrote the status fields Tether owns: put Tether's back. Only when nothing is in
 * flight and the node is ready (otherwise the NotReady override or the pending write wins anyway).
 */
export function repairDrift(state: PodState): Next {
  const hostStatus = state.host?.status;
  if (!state.node.ready || !state.provider || state.writes.inFlight || state.writes.stored === null) return { state };
  // A watch event can trail our own write (it was queued before the write landed): not another writer.
  const version = state.host?.metadata?.resourceVersion;
  if (version && state.writes.storedVersion && isOlder(version, state.writes.storedVersion)) return { state };
  if (ownedFingerprint(hostStatus) === state.writes.stored) return { state };
  return requestWrite({ ...state, writes: { ...state.writes, confirmed: null } }, hostStatusFrom(state.provider));
}

/**
 * How long a Pending status waits before it is written: a pod that starts within it is written once,
 * Running (virtual-kubelet's rate-limited queue coalesces the same way, by accident of its queue).
 */
export const PENDING_HOLD_MS = 1_000;

/** Writes `status` to the host, coalescing: one write in flight, only the newest waits. */
export function requestWrite(state: PodState, status: PodStatus): Next {
  const fp = fingerprint(status);
  if (state.writes.inFlight) return { state: { ...state, writes: { ...state.writes, pending: status } } };
  if (fp === state.writes.confirmed) return { state };
  if (hostAlreadyShows(state, status)) {
    // After a restart or a lost response: the API server holds this status already.
    return { state: { ...state, writes: { ...state.writes, pending: null, confirmed: fp, stored: ownedFingerprint(status) } } };
  }
  if (status.phase === 'Pending' && state.node.ready) {
    const held = state.writes.pending !== null;
    const next = { ...state, writes: { ...state.writes, pending: status } };
    return held ? { state: next } : withEffects(next, [{ type: 'timer', ms: PENDING_HOLD_MS, msg: { type: 'pod.retry-write' } }]);
  }
  return withEffects({ ...state, writes: { ...state.writes, inFlight: true, pending: null, last: status } }, [{ type: 'host.write-status', status }]);
}

/** The host pod, as last watched and no older than our last write, shows `status` already. */
function hostAlreadyShows(state: PodState, status: PodStatus): boolean {
  const host = state.host;
  if (!host?.status) return false;
  const version = host.metadata?.resourceVersion;
  if (state.writes.storedVersion && (!version || isOlder(version, state.writes.storedVersion))) return false;
  return ownedFingerprint(host.status) === ownedFingerprint(status);
}

export function onStatusWritten(config: PodActorConfig, state: PodState, msg: Extract<PodMsg, { type: 'pod.status-written' }>, now: number): Next {
  const landed = !state.writes.pending && state.writes.waitingSince !== null;
  const writes = { ...state.writes, inFlight: false, confirmed: msg.written, stored: msg.stored, storedVersion: msg.storedVersion ?? null, failures: 0, waitingSince: landed ? null : state.writes.waitingSince };
  const next = { ...state, writes: { ...writes, pending: null } };
  if (state.writes.pending) return requestWrite(next, state.writes.pending);
  const observed: PodEffect[] = landed ? [{ type: 'observe-status-latency', ms: now - (state.writes.waitingSince ?? now) }] : [];
  if (state.stage === 'finishing') return withEffects(next, [...observed, { type: 'host.delete' }]);
  return withEffects(next, observed);
}

export function onStatusWriteFailed(config: PodActorConfig, state: PodState, podGone: boolean): Next {
  const failures = state.writes.failures + 1;
  const next = { ...state, writes: { ...state.writes, inFlight: false, failures } };
  if (podGone) return state.stage === 'finishing' ? { state: next, stop: true } : { state: { ...next, writes: { ...next.writes, pending: null } } };
  if (state.stage === 'finishing') return withEffects(next, [{ type: 'host.delete' }]); // the pod is going anyway
  return withEffects(next, [{ type: 'timer', ms: retryDelay(config, state, failures - 1), msg: { type: 'pod.retry-write' } }]);
}

export function retryWrite(state: PodState): Next {
  const status = state.writes.pending ?? state.writes.last;
  if (!status || state.writes.inFlight) return { state };
  // A held Pending was superseded and its successor written: the hold ends with nothing to do.
  if (state.writes.pending === null && fingerprint(status) === state.writes.confirmed) return { state };
  return withEffects({ ...state, writes: { ...state.writes, inFlight: true, pending: null, last: status } }, [{ type: 'host.write-status', status }]);
}
