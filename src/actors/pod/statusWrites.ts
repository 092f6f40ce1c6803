/**
 * Status writes, decided: one write in flight per pod, only the newest status waits, nothing is
 * written twice, failures are retried, and a status changed by another writer is put back.
 */
import type { PodStatus } from '../../adapters/kubernetes/model.js';
import { isOlder } from '../../adapters/kubernetes/watchCache.js';
import { fingerprint } from '../../lib/fingerprint.js';
import { hostStatusFrom } from './podStatusView.js';
import { withReadinessGates } from './readinessGates.js';
import type { PodActorConfig } from './config.js';
import type { PodEffect, PodMsg, PodState } from './protocol.js';
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
  // Nobody else wrote; but a readiness gate may have changed (requestWrite writes only what differs).
  if (fingerprint(hostStatusFrom(hostStatus ?? {})) === state.writes.stored) return requestWrite(state, hostStatusFrom(state.provider));
  return requestWrite({ ...state, writes: { ...state.writes, confirmed: null } }, hostStatusFrom(state.provider));
}

/**
 * Writes `status` to the host, coalescing: one write in flight, only the newest waits. An actor
 * whose host pod is gone writes nothing. Ready follows the host pod's readiness gates.
 */
export function requestWrite(state: PodState, provided: PodStatus): Next {
  if (state.host === undefined) return { state };
  const status = withReadinessGates(provided, state.host);
  const fp = fingerprint(status);
  if (state.writes.inFlight) return { state: { ...state, writes: { ...state.writes, pending: status } } };
  if (fp === state.writes.confirmed) return { state };
  return withEffects({ ...state, writes: { ...state.writes, inFlight: true, pending: null, last: status } }, [{ type: 'host.write-status', status }]);
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
  // Gone (404, or another uid holds the name): forget the host pod, so nothing more is written.
  if (podGone) return state.stage === 'finishing' ? { state: next, stop: true } : { state: { ...next, host: undefined, writes: { ...next.writes, pending: null } } };
  if (state.stage === 'finishing') return withEffects(next, [{ type: 'host.delete' }]); // the pod is going anyway
  return withEffects(next, [{ type: 'timer', ms: retryDelay(config, state, failures - 1), msg: { type: 'pod.retry-write' } }]);
}

export function retryWrite(state: PodState): Next {
  const status = state.writes.pending ?? state.writes.last;
  if (!status || state.writes.inFlight || state.host === undefined) return { state };
  return withEffects({ ...state, writes: { ...state.writes, inFlight: true, pending: null, last: status } }, [{ type: 'host.write-status', status }]);
}
