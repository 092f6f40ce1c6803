/**
 * The pod actor's decisions: pure functions from (state, message, now) to the next state and the
 * effects to run. This file routes each message and decides the host, provider and node-readiness
 * cases; creation, deletion and status writes have files of their own. Everything the pod actor
 * does is decided here and tested message by message (test/actors/pod/decide.test.ts).
 */
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { armActiveDeadline, onActiveDeadlineReached, pastActiveDeadline, stopForDeadline } from './activeDeadline.js';
import { askAdmission, onAdmissionRejected, onAdmitted } from './admission.js';
import { createErrorAnnotation, hostUidMark } from './annotations.js';
import { create, onAnnotationWritten, onCreateDeadline, onCreateFailed, onCreateSucceeded, onRetryCreate, reconcileAnnotation } from './creation.js';
import { endTermination, finish, isDeleting, onDeleteFailed, onGraceExpired, onHookFinished, onHostDeleted, onHostDeleteFailed, onPreStopDue, orphaned, resumePreStop, retryDelete, startDeletion } from './deletion.js';
import { markNotReady, onNodeReadiness } from './notReadyMarking.js';
import { hostStatusFrom, isTerminal, lostStatus, podForProvider, specFingerprint } from './podStatusView.js';
import { NO_IN_PLACE, type InPlaceDuties, type PodActorConfig } from './config.js';
import type { NodeReadiness, PodEffect, PodMsg, PodState } from './protocol.js';
import { observeGeneration, onHoldExpired, showUnsupported, onStatusWriteFailed, onStatusWriteSuperseded, onStatusWritten, repairDrift, requestWrite, retryWrite } from './statusWrites.js';
import { retryLater, succeeded } from './retries.js';
import { after, andThen, dutyEvent, enter, event, failedAgain, kubeletEvent, noRetry, plus, retryDelay, withEffects, type Next } from './transitions.js';
import { containerEvents } from './containerEvents.js';
import { beginPostStart, onPostStartDue, onPostStartFinished } from './postStart.js';
import { noPostStart } from './postStartHold.js';
import { onPostStartDoneFailed, retryPostStartDone } from './postStartDone.js';
import { trackAllocation, unsupportedDutyEvents } from './unsupportedDuties.js';

export { retryDelay } from './transitions.js';

export function initialPodState(host: Pod | undefined, identity: { namespace: string; name: string; uid: string }, node: NodeReadiness, inPlace: InPlaceDuties = NO_IN_PLACE): PodState {
  return {
    ...identity,
    host,
    stage: 'starting',
    node,
    provider: undefined,
    createError: null,
    annotation: { shown: host?.metadata?.annotations?.[createErrorAnnotation] ?? null, inFlight: false },
    writes: { inFlight: 0, last: null, held: null, holds: 0, confirmed: null, stored: null, storedVersion: null, waitingSince: null },
    retries: { fetch: noRetry, annotate: noRetry, update: noRetry, write: noRetry },
    allocation: null,
    postStart: noPostStart,
    inPlace,
  };
}

/**
 * Every incarnation re-reads the truth from the provider before acting; if the node is NotReady
 * it marks the pod at once, since the provider may not answer for a long while.
 */
export function onPodStart(config: PodActorConfig, state: PodState, now: number): Next {
  const starting = enter(state, { stage: 'starting' });
  const begun = starting.host?.metadata?.deletionTimestamp ? startDeletion(config, starting, now) : { state: starting };
  return after([{ type: 'provider.get' }], andThen(begun, (s) => markNotReady(config, s, now)));
}

/**
 * Each message decided, the container resources the provider has tracked first (a resize it cannot
 * apply is said on the status written); then the running pod's active-deadline timer armed if its
 * deadline moved, and the Events of what the provider cannot do that a new status says.
 */
export function decidePod(config: PodActorConfig, state: PodState, msg: PodMsg, now: number): Next {
  const tracked = trackAllocation(state, msg.type === 'pod.host-changed' ? msg.pod : state.host, now);
  return withDutyEvents(config, tracked, armActiveDeadline(route(config, tracked, msg, now), now));
}

/** The kubelet's Events for ephemeral containers and resizes the provider cannot do, once per status that says so. */
function withDutyEvents(config: PodActorConfig, before: PodState, next: Next): Next {
  const written = next.state.writes.last;
  if (next.stop || !written || written === before.writes.last) return next;
  const said = unsupportedDutyEvents(next.state.host, before.writes.last ?? before.host?.status, written, next.state.inPlace);
  return plus(next, ...said.map((e) => dutyEvent(config, e)));
}

function route(config: PodActorConfig, state: PodState, msg: PodMsg, now: number): Next {
  switch (msg.type) {
    case 'pod.host-changed':
      return onHostChanged(config, { ...state, host: msg.pod }, now);
    case 'pod.host-deleted':
      return onHostDeleted(config, state);
    case 'pod.node-readiness':
      return onNodeReadiness(config, state, msg.readiness, now);
    case 'pod.provider-fetched':
      return onProviderFetched(config, succeeded(state, 'fetch'), msg.pod, now);
    case 'pod.provider-fetch-failed':
      return retryLater(config, state, 'fetch', msg, now);
    case 'pod.retry-fetch':
      return { state, effects: [{ type: 'provider.get' }] };
    case 'pod.provider-status':
      return onProviderStatus(config, state, msg.status, now);
    case 'pod.provider-gone':
      return onProviderGone(config, state, msg.reason, msg.message, now);
    case 'pod.admitted':
      return onAdmitted(config, state, now);
    case 'pod.admission-rejected':
      return onAdmissionRejected(state, msg.reason, msg.message, msg.ownerWarning);
    case 'pod.admission-deferred':
      return { state, effects: [{ type: 'schedule', ms: config.refetchMs, msg: { type: 'pod.retry-admit' } }] };
    case 'pod.retry-admit':
      return state.stage === 'starting' && state.host && !state.host.metadata?.deletionTimestamp ? askAdmission(state) : { state };
    case 'pod.create-succeeded':
      return onCreateSucceeded(config, state, now);
    case 'pod.create-failed':
      return onCreateFailed(config, state, msg, now);
    case 'pod.create-deadline':
      return onCreateDeadline(config, state, msg.attempt, now);
    case 'pod.retry-create':
      return onRetryCreate(config, state, now);
    case 'pod.update-failed': {
      // The provider keeps the previous spec; retried with backoff (and by the next spec change).
      const resend = state.stage === 'running' ? { ...state, sentSpec: null } : state;
      return after(
        [event('Warning', 'ProviderUpdateFailed', `updating the pod at the provider failed: ${msg.message}`, 'Update')],
        retryLater(config, resend, 'update', msg, now),
      );
    }
    case 'pod.retry-update':
      return state.host && state.stage === 'running' ? onHostChanged(config, state, now) : { state };
    case 'pod.delete-accepted':
      return state.stage === 'orphaned' ? { state, stop: true } : { state };
    case 'pod.delete-failed':
      return onDeleteFailed(config, state, msg.kind, msg.message, now);
    case 'pod.retry-delete':
      return retryDelete(config, state);
    case 'pod.grace-expired':
      return onGraceExpired(config, state, msg, now);
    case 'pod.active-deadline-reached':
      return onActiveDeadlineReached(config, state, msg.at, now);
    case 'pod.prestop-due':
      return onPreStopDue(config, state, now);
    case 'pod.hook-finished':
      // A hook about a container's run is postStart's: its own, or the preStop of the kill after it fails.
      return msg.hook === 'postStart' || msg.run !== undefined ? onPostStartFinished(config, state, msg, now) : onHookFinished(config, state, msg, now);
    case 'pod.poststart-due':
      return onPostStartDue(config, state, msg, now);
    case 'pod.poststart-done-failed':
      return onPostStartDoneFailed(config, state, msg);
    case 'pod.retry-poststart-done':
      return retryPostStartDone(state, msg);
    case 'pod.status-written':
      return onStatusWritten(config, state, msg, now);
    case 'pod.status-write-failed':
      return onStatusWriteFailed(config, state, msg, now);
    case 'pod.status-write-superseded':
      return onStatusWriteSuperseded(state);
    case 'pod.retry-write':
      return retryWrite(state);
    case 'pod.hold-expired':
      return onHoldExpired(state, msg.hold);
    case 'pod.annotation-written':
      return onAnnotationWritten(succeeded(state, 'annotate'), msg.value, now);
    case 'pod.annotation-failed':
      return retryLater(config, { ...state, annotation: { ...state.annotation, inFlight: false } }, 'annotate', msg, now);
    case 'pod.retry-annotate':
      return reconcileAnnotation(state, now);
    case 'pod.host-delete-finished':
      return { state, stop: true };
    case 'pod.host-delete-failed':
      return onHostDeleteFailed(config, state, msg.message, now);
    case 'pod.retry-host-delete':
      return state.stage === 'finishing' ? withEffects(state, [{ type: 'host.delete' }]) : { state };
  }
}

// --- host pod ---------------------------------------------------------------------------------

function onHostChanged(config: PodActorConfig, state: PodState, now: number): Next {
  const host = state.host as Pod;
  if (host.metadata?.deletionTimestamp && (!isDeleting(state) || state.stage === 'terminating')) return startDeletion(config, state, now);
  // A new generation of the spec is answered with a status for it, as the kubelet does once synced.
  return andThen(andThen(onHostSpec(config, state, host, now), observeGeneration), showUnsupported);
}

function onHostSpec(config: PodActorConfig, state: PodState, host: Pod, now: number): Next {
  const spec = specFingerprint(host);
  switch (state.stage) {
    case 'rejected':
      // An invalid spec is terminal until the spec changes.
      return spec !== state.sentSpec ? create(config, state, now) : { state };
    case 'running':
      if (spec !== state.sentSpec) {
        return withEffects({ ...state, sentSpec: spec }, [{ type: 'provider.update', pod: podForProvider(host, config.nodeName) }]);
      }
      return repairDrift(state);
    case 'starting':
    case 'creating':
    case 'backoff':
    case 'done':
    case 'terminating':
    case 'finishing':
    case 'orphaned':
      return { state };
  }
}

// --- provider ---------------------------------------------------------------------------------

function onProviderFetched(config: PodActorConfig, state: PodState, pod: Pod | undefined, now: number): Next {
  const sameUid = pod !== undefined && (pod.metadata?.uid === state.uid || pod.metadata?.annotations?.[hostUidMark] === state.uid);
  if (!state.host) {
    return pod ? { state: orphaned(state), effects: [{ type: 'provider.delete', pod }] } : { state, stop: true };
  }
  if (state.stage === 'terminating') {
    // Read again (the node is Ready after an outage): gone at the provider ends the deletion.
    if (!pod || !sameUid) return endTermination(state, undefined, now);
    return pod.status ? onProviderStatus(config, state, pod.status, now) : { state };
  }
  if (state.stage !== 'starting' && state.stage !== 'running') return { state };
  if (pod && !sameUid) {
    // The provider still runs an older pod of the same name: have it removed, then create ours.
    const ms = retryDelay(config, state, 0);
    return withEffects(
      enter(state, { stage: 'backoff', create: failedAgain(noRetry, now, ms, null), sentSpec: state.stage === 'running' ? state.sentSpec : null }),
      [{ type: 'provider.delete', pod }, { type: 'schedule', ms, msg: { type: 'pod.retry-create' } }],
    );
  }
  if (pod) {
    const sentSpec = (state.stage === 'running' ? state.sentSpec : null) ?? specFingerprint(state.host);
    const said = pod.status ? containerEventsOf(config, state, pod.status) : [];
    const running = enter({ ...state, provider: pod.status ?? state.provider }, { stage: 'running', sentSpec, deadlineTimer: null });
    // Already at the provider (admitted before a restart): counted as admitted, never judged again.
    const adopted = state.stage === 'starting' ? [{ type: 'node.admitted-as-running', pod: state.host } as const] : [];
    return after([...adopted, ...said], adoptRunning(config, state, running, now));
  }
  if (state.stage === 'running') return onProviderGone(config, state, 'NotFound', 'the provider no longer has this pod', now);
  if (state.host.metadata?.deletionTimestamp) return finish(state);
  if (isTerminal(state.host.status)) return { state: enter(state, { stage: 'done' }) }; // it ran and ended before; nothing to run again
  return askAdmission(state);
}

function adoptRunning(config: PodActorConfig, state: PodState, running: PodState, now: number): Next {
  if (state.host?.metadata?.deletionTimestamp) return startDeletion(config, running, now);
  // Adopted while the node is NotReady: mark it from the provider's word, never write a Ready=True.
  if (!running.node.ready) return state.stage === 'starting' ? markNotReady(config, running, now) : { state: running };
  return running.provider ? onProviderStatus(config, running, running.provider, now) : { state: running };
}

function onProviderStatus(config: PodActorConfig, state: PodState, status: PodStatus, now: number): Next {
  switch (state.stage) {
    case 'orphaned':
    case 'finishing':
    case 'done':
      return { state };
    case 'starting':
    case 'creating':
    case 'backoff':
    case 'rejected':
    case 'running':
    case 'terminating':
      break;
  }
  const said = containerEventsOf(config, state, status);
  const next = { ...state, provider: status };
  // A new run of a container begins its postStart hook before its status is written (held not started).
  const hooked = state.stage === 'terminating' ? { state: next } : beginPostStart(config, next, status, now);
  return after(said, andThen(andThen(hooked, (s) => resumePreStop(config, s, status, now)), (s) => mirrorStatus(config, s, status, now)));
}

/**
 * The kubelet's container Events for the provider's new status, unless the provider's own kubelet
 * records them. Compared with the last status seen, else with what the host pod shows (written by
 * an earlier incarnation), so a restart repeats nothing.
 */
function containerEventsOf(config: PodActorConfig, state: PodState, status: PodStatus): PodEffect[] {
  if (config.containerDuties.by !== 'tether') return [];
  return containerEvents(state, state.provider ?? state.host?.status, status).map((e) => kubeletEvent(config, e));
}

function mirrorStatus(config: PodActorConfig, next: PodState, status: PodStatus, now: number): Next {
  if (next.stage === 'terminating' && isTerminal(status)) return endTermination(next, status, now);
  // Past its active deadline (an actor restarted late, say): stopped before anything is written.
  if (next.stage === 'running' && pastActiveDeadline(next, now)) return stopForDeadline(config, next, now);
  // While the node is NotReady the provider's word is stale by definition: keep it, do not write it.
  if (!next.node.ready) return { state: next };
  const result = requestWrite(next, hostStatusFrom(status));
  if (result.stop) return result;
  const queued = result.state.writes.held !== null || (result.effects ?? []).some((e) => e.type === 'host.write-status');
  if (!queued) return result;
  // Start the clock of the write-latency metric at the oldest status still on its way.
  return { ...result, state: { ...result.state, writes: { ...result.state.writes, waitingSince: result.state.writes.waitingSince ?? now } } };
}

function onProviderGone(config: PodActorConfig, state: PodState, reason: string, message: string, now: number): Next {
  switch (state.stage) {
    case 'terminating':
      return endTermination(state, undefined, now);
    case 'orphaned':
      return { state, stop: true };
    case 'running': {
      // Lost without being asked: say so on the host pod rather than silently re-create it.
      const failed = lostStatus(state.provider, reason, message, new Date(now));
      return plus(
        requestWrite(enter({ ...state, provider: failed }, { stage: 'done' }), failed),
        event('Warning', 'ProviderPodLost', `the provider lost the pod (${reason}): ${message}`, 'Sync'),
      );
    }
    case 'starting':
    case 'creating':
    case 'backoff':
    case 'rejected':
    case 'done':
    case 'finishing':
      return { state };
  }
}
