/**
 * Status writes, decided: each newer status is sent at once (the request queue keeps only the
 * newest per pod and runs them one at a time, in order: see PodApi.patchPodStatus), nothing is
 * written twice (nor what the host pod already shows), a Pending is held a moment in case Running
 * supersedes it, failures are retried, and a status changed by another writer is put back.
 */
import type { PodStatus } from '../../adapters/kubernetes/model.js';
import { isOlder } from '../../adapters/kubernetes/watchCache.js';
import { fingerprintOf } from '../../lib/fingerprint.js';
import { generationOf, withObservedGeneration } from './observedGeneration.js';
import { hostStatusFrom, isNotReadyMark, ownedFingerprint } from './podStatusView.js';
import type { PodActorConfig } from './config.js';
import type { PodEffect, PodMsg, PodState } from './protocol.js';
import { withReadinessGates } from './readinessGates.js';
import { withPostStartHeld } from './postStartHold.js';
import { asksUnsupported, withUnsupportedDuties } from './unsupportedDuties.js';
import { succeeded } from './retries.js';
import { failedAgain, retryDelay, withEffects, type Next } from './transitions.js';
import { definedOnly } from '../../lib/defaults.js';

/**
 * Another client wrote the status fields Tether owns: put Tether's back. Only when nothing is in
 * flight and the node is ready (otherwise the NotReady override or the write in flight wins anyway).
 */
export function repairDrift(state: PodState): Next {
  const hostStatus = state.host?.status;
  if (!state.node.ready || !state.provider || state.writes.inFlight > 0 || state.writes.stored === null) return { state };
  // A watch event can trail our own write (it was queued before the write landed): not another writer.
  const version = state.host?.metadata?.resourceVersion;
  if (version && state.writes.storedVersion && isOlder(version, state.writes.storedVersion)) return { state };
  // Nobody else wrote; but a readiness gate may have changed (requestWrite writes only what differs).
  if (ownedFingerprint(hostStatus) === state.writes.stored) return requestWrite(state, hostStatusFrom(state.provider));
  return requestWrite({ ...state, writes: { ...state.writes, confirmed: null } }, hostStatusFrom(state.provider));
}

/**
 * The host pod's spec changed (a new generation): write the status Tether shows again, for that
 * generation, as the kubelet does once it has synced the new spec. Nothing is written when the
 * generation is the one last written, nor before this incarnation has written anything (its first
 * write carries the generation), nor once the pod has ended.
 */
export function observeGeneration(state: PodState): Next {
  const last = state.writes.last;
  const generation = generationOf(state.host);
  if (!last || generation === undefined || last.observedGeneration === generation) return { state };
  switch (state.stage) {
    case 'terminating':
      // A graceful deletion is itself a new generation: the final status carries it (one write, as
      // virtual-kubelet's). A pod stopped for its deadline stays, so it is written like a running one.
      if (state.termination.cause === 'deletion') return { state };
      break;
    case 'done':
    case 'finishing':
    case 'orphaned':
      return { state };
    case 'starting':
    case 'creating':
    case 'backoff':
    case 'rejected':
    case 'running':
      break;
  }
  // The running pod's provider status, unless the last write is the NotReady override (it stays
  // until the node is back); in other stages what was written last (nothing runs to report).
  const mirrored = state.stage === 'running' || state.stage === 'terminating';
  const shown = mirrored && state.node.ready && state.provider && !isNotReadyMark(last) ? hostStatusFrom(state.provider) : last;
  return requestWrite(state, shown);
}

/**
 * The host pod changed without a new generation (or with one already written): the running pod's
 * status is asked for again, in case the spec now asks for what the provider cannot do (an
 * ephemeral container, a resize). requestWrite writes only what differs.
 */
export function showUnsupported(state: PodState): Next {
  const last = state.writes.last;
  if (state.stage !== 'running' || !last || !state.node.ready || !state.provider || isNotReadyMark(last) || !asksUnsupported(state.host, state.allocation, state.inPlace)) return { state };
  return requestWrite(state, hostStatusFrom(state.provider));
}

/**
 * How long a Pending status waits before it is written: a pod that starts within it is written once,
 * Running (virtual-kubelet's rate-limited queue coalesces the same way, by accident of its queue).
 */
export const PENDING_HOLD_MS = 1_000;

/** Only a pod that asks for what the provider cannot do pays for saying so (most never do). */
function unsupportedSaid(status: PodStatus, state: PodState): PodStatus {
  return asksUnsupported(state.host, state.allocation, state.inPlace) ? withUnsupportedDuties(status, state.host, state.allocation, state.inPlace) : status;
}

/**
 * Writes `status` to the host unless it is what the host will already have: the last status
 * confirmed when nothing is in flight, else the newest one sent. A newer status is sent even while
 * an older one waits in the queue, so the queue can drop the older one before it goes out. An
 * actor whose host pod is gone writes nothing; Ready follows the host pod's readiness gates.
 */
export function requestWrite(state: PodState, provided: PodStatus): Next {
  if (state.host === undefined) return { state };
  // Ready follows the host pod's readiness gates; the status carries the generation of its spec.
  // What the provider cannot do (ephemeral containers, a resize) is said as the kubelet says it.
  // A container whose postStart hook still runs has not started (postStart.ts).
  const status = withObservedGeneration(unsupportedSaid(withReadinessGates(withPostStartHeld(provided, state.postStart, state.host), state.host), state), state.host);
  const fp = fingerprintOf(status);
  const newest = state.writes.inFlight > 0 ? (state.writes.last ? fingerprintOf(state.writes.last) : null) : state.writes.confirmed;
  // Nothing new to write. With nothing in flight, this is also what a pending failure retry must
  // send (not a status this one made stale).
  if (fp === newest) return { state: { ...state, writes: { ...state.writes, held: null, ...definedOnly({ last: state.writes.inFlight === 0 ? status : undefined }) } } };
  if (state.writes.inFlight === 0 && hostAlreadyShows(state, status)) {
    // After a restart or a lost response: the API server holds this status already.
    return { state: { ...state, writes: { ...state.writes, held: null, last: status, confirmed: fp, stored: ownedFingerprint(status) } } };
  }
  if (status.phase === 'Pending' && state.node.ready && state.stage !== 'finishing') {
    if (state.writes.held !== null) return { state: { ...state, writes: { ...state.writes, held: status } } };
    const hold = state.writes.holds + 1;
    return withEffects({ ...state, writes: { ...state.writes, held: status, holds: hold } }, [{ type: 'schedule', ms: PENDING_HOLD_MS, msg: { type: 'pod.hold-expired', hold } }]);
  }
  return send({ ...state, writes: { ...state.writes, held: null } }, status);
}

function send(state: PodState, status: PodStatus): Next {
  return withEffects({ ...state, writes: { ...state.writes, inFlight: state.writes.inFlight + 1, last: status } }, [{ type: 'host.write-status', status }]);
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
  const inFlight = Math.max(0, state.writes.inFlight - 1);
  // Outcomes come back in the order the writes were sent (one runs at a time per pod).
  const landed = inFlight === 0 && state.writes.held === null && state.writes.waitingSince !== null;
  const next = {
    ...state,
    writes: { ...state.writes, inFlight, confirmed: msg.written, stored: msg.stored, storedVersion: msg.storedVersion ?? null, waitingSince: landed ? null : state.writes.waitingSince },
  };
  const settled = succeeded(next, 'write');
  const observed: PodEffect[] = landed ? [{ type: 'observe-status-latency', ms: now - (state.writes.waitingSince ?? now) }] : [];
  if (state.stage === 'finishing' && inFlight === 0) return withEffects(settled, [...observed, { type: 'host.delete' }]);
  return withEffects(settled, observed);
}

/**
 * The queue dropped a write for a newer one of the same pod: ours, which will report. If none of
 * ours is left in flight, someone else's took its place (another actor of a namesake pod): send
 * the newest status again.
 */
export function onStatusWriteSuperseded(state: PodState): Next {
  const inFlight = Math.max(0, state.writes.inFlight - 1);
  const next = { ...state, writes: { ...state.writes, inFlight } };
  if (inFlight > 0) return { state: next };
  if (state.stage === 'finishing') return withEffects(next, [{ type: 'host.delete' }]);
  return retryWrite(next);
}

export function onStatusWriteFailed(config: PodActorConfig, state: PodState, msg: Extract<PodMsg, { type: 'pod.status-write-failed' }>, now: number): Next {
  const inFlight = Math.max(0, state.writes.inFlight - 1);
  const retry = state.retries.write;
  const ms = retryDelay(config, state, retry.attempt);
  const retried = !msg.podGone && inFlight === 0 && state.stage !== 'finishing';
  const next: PodState = { ...state, writes: { ...state.writes, inFlight }, retries: { ...state.retries, write: failedAgain(retry, now, retried ? ms : null, msg.message) } };
  // Gone (404, or another uid holds the name): forget the host pod, so nothing more is written.
  if (msg.podGone) return state.stage === 'finishing' && inFlight === 0 ? { state: next, stop: true } : { state: { ...next, host: undefined } };
  if (inFlight > 0) return { state: next }; // a newer write is on its way; it carries the newest status
  if (state.stage === 'finishing') return withEffects(next, [{ type: 'host.delete' }]); // the pod is going anyway
  return withEffects(next, [{ type: 'schedule', ms, msg: { type: 'pod.retry-write' } }]);
}

/** A Pending's hold is over and nothing newer came: write it now (not once the pod is finishing). */
export function onHoldExpired(state: PodState, hold: number): Next {
  const held = state.writes.held;
  if (held === null || hold !== state.writes.holds) return { state };
  const next = { ...state, writes: { ...state.writes, held: null } };
  if (state.host === undefined || state.stage === 'finishing' || state.stage === 'done' || state.stage === 'orphaned') return { state: next };
  return send(next, held);
}

export function retryWrite(state: PodState): Next {
  const status = state.writes.last;
  if (!status || state.writes.inFlight > 0 || state.host === undefined || fingerprintOf(status) === state.writes.confirmed) return { state };
  return withEffects({ ...state, writes: { ...state.writes, inFlight: 1, last: status } }, [{ type: 'host.write-status', status }]);
}
