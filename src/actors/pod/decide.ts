/**
 * The pod actor's decisions: pure functions from (state, message, now) to the next state and the
 * effects to run. Everything the pod actor does is decided here and tested message by message.
 */
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import type { ErrorKind } from '../../adapters/provider/errors.js';
import { backoffDelay } from '../../supervisors/backoff.js';
import type { Transition } from '../../runtime/behavior.js';
import { createErrorAnnotation, createErrorAtAnnotation } from './annotations.js';
import {
  gracePeriodSeconds,
  hasRunningContainers,
  hostStatusFrom,
  isTerminal,
  lostStatus,
  notReadyStatus,
  podForProvider,
  specFingerprint,
} from './podStatusView.js';
import { fingerprint } from '../../adapters/provider/statusFingerprint.js';
import { isOlder } from '../../adapters/kubernetes/watchCache.js';
import type { NodeReadiness, PodActorConfig, PodEffect, PodMsg, PodState } from './protocol.js';

type Next = Transition<PodState, PodEffect>;

export function initialPodState(host: Pod | undefined, identity: { namespace: string; name: string; uid: string }, node: NodeReadiness): PodState {
  return {
    ...identity,
    host,
    stage: 'starting',
    node,
    provider: undefined,
    createAttempts: 0,
    nextAttemptAt: null,
    createError: null,
    annotatedError: host?.metadata?.annotations?.[createErrorAnnotation] ?? null,
    annotationInFlight: false,
    sentSpec: null,
    deleteAttempts: 0,
    writes: { inFlight: false, pending: null, last: null, confirmed: null, stored: null, storedVersion: null, failures: 0, waitingSince: null },
  };
}

/** Every incarnation re-reads the truth from the provider before acting. */
export function onPodStart(state: PodState): Next {
  return { state: { ...state, stage: 'starting' }, effects: [{ type: 'provider.get' }] };
}

export function decidePod(config: PodActorConfig, state: PodState, msg: PodMsg, now: number): Next {
  switch (msg.type) {
    case 'pod.host-changed':
      return onHostChanged(config, { ...state, host: msg.pod }, now);
    case 'pod.host-deleted':
      return onHostDeleted(config, state);
    case 'pod.node-readiness':
      return onNodeReadiness(config, state, msg.readiness, now);
    case 'pod.provider-fetched':
      return onProviderFetched(config, state, msg.pod, now);
    case 'pod.provider-fetch-failed':
      return { state, effects: [{ type: 'timer', ms: config.refetchMs, msg: { type: 'pod.refetch' } }] };
    case 'pod.refetch':
      return { state, effects: [{ type: 'provider.get' }] };
    case 'pod.provider-status':
      return onProviderStatus(config, state, msg.status, now);
    case 'pod.provider-gone':
      return onProviderGone(config, state, msg.reason, msg.message, now);
    case 'pod.create-succeeded':
      return onCreateSucceeded(config, state, now);
    case 'pod.create-failed':
      return onCreateFailed(config, state, msg.kind, msg.message, now);
    case 'pod.retry-create':
      return onRetryCreate(config, state, now);
    case 'pod.update-failed':
      // The provider keeps the previous spec; the next spec change (or restart) tries again.
      return { state: { ...state, sentSpec: null }, effects: [event('Warning', 'ProviderUpdateFailed', `updating the pod at the provider failed: ${msg.message}`, 'Update')] };
    case 'pod.delete-accepted':
      return state.stage === 'orphaned' ? { state, stop: true } : { state };
    case 'pod.delete-failed':
      return onDeleteFailed(config, state, msg.kind, msg.message);
    case 'pod.retry-delete':
      return retryDelete(state);
    case 'pod.grace-expired':
      return state.stage === 'terminating'
        ? finish(state, event('Warning', 'GracePeriodExceeded', `the provider did not report the pod ended within its grace period (${gracePeriodSeconds(state.host)} s) plus ${config.graceMarginMs / 1000} s; deleting it from the host`, 'Delete'))
        : { state };
    case 'pod.status-written':
      return onStatusWritten(config, state, msg, now);
    case 'pod.status-write-failed':
      return onStatusWriteFailed(config, state, msg.podGone);
    case 'pod.retry-write':
      return retryWrite(state);
    case 'pod.annotation-written':
      return reconcileAnnotation({ ...state, annotationInFlight: false, annotatedError: msg.value }, now);
    case 'pod.annotation-failed':
      return { state: { ...state, annotationInFlight: false }, effects: [{ type: 'timer', ms: config.retry.minMs, msg: { type: 'pod.reconcile-annotation' } }] };
    case 'pod.reconcile-annotation':
      return reconcileAnnotation(state, now);
    case 'pod.host-delete-finished':
      return { state, stop: true };
    case 'pod.host-delete-failed': {
      const attempts = state.deleteAttempts + 1;
      return withEffects({ ...state, deleteAttempts: attempts }, [{ type: 'timer', ms: retryDelay(config, state, attempts - 1), msg: { type: 'pod.retry-host-delete' } }]);
    }
    case 'pod.retry-host-delete':
      return state.stage === 'finishing' ? withEffects(state, [{ type: 'host.delete' }]) : { state };
  }
}

// --- host pod ---------------------------------------------------------------------------------

function onHostChanged(config: PodActorConfig, state: PodState, now: number): Next {
  const host = state.host as Pod;
  if (host.metadata?.deletionTimestamp && !isDeleting(state)) return startDeletion(config, state);
  const spec = specFingerprint(host);
  switch (state.stage) {
    case 'rejected':
      // An invalid spec is terminal until the spec changes.
      return spec !== state.sentSpec ? create(config, { ...state, createAttempts: 0 }, now) : { state };
    case 'running':
      if (spec !== state.sentSpec) {
        return withEffects({ ...state, sentSpec: spec }, [{ type: 'provider.update', pod: podForProvider(host, config.nodeName) }]);
      }
      return repairDrift(state, now, config);
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

/**
 * Another client wrote the status fields Tether owns: put Tether's back. Only when nothing is in
 * flight and the node is ready (otherwise the NotReady override or the pending write wins anyway).
 */
function repairDrift(state: PodState, now: number, config: PodActorConfig): Next {
  const hostStatus = state.host?.status;
  if (!state.node.ready || !state.provider || state.writes.inFlight || state.writes.stored === null) return { state };
  // A watch event can trail our own write (it was queued before the write landed): not another writer.
  const version = state.host?.metadata?.resourceVersion;
  if (version && state.writes.storedVersion && isOlder(version, state.writes.storedVersion)) return { state };
  if (fingerprint(hostStatusFrom(hostStatus ?? {})) === state.writes.stored) return { state };
  return requestWrite({ ...state, writes: { ...state.writes, confirmed: null } }, hostStatusFrom(state.provider), now, config);
}

function onHostDeleted(config: PodActorConfig, state: PodState): Next {
  switch (state.stage) {
    case 'running':
    case 'creating':
    case 'starting': {
      // Deleted on the host without waiting for us (e.g. force-deleted): still stop it at the provider.
      const pod = state.host ?? minimalPod(state);
      return { state: { ...state, host: undefined, stage: 'orphaned' }, effects: [{ type: 'provider.delete', pod: podForProvider(pod, config.nodeName) }] };
    }
    case 'orphaned':
      return { state: { ...state, host: undefined } };
    case 'backoff':
    case 'rejected':
    case 'done':
    case 'terminating':
    case 'finishing':
      return { state: { ...state, host: undefined }, stop: true };
  }
}

const isDeleting = (state: PodState): boolean => state.stage === 'terminating' || state.stage === 'finishing' || state.stage === 'orphaned';

function startDeletion(config: PodActorConfig, state: PodState): Next {
  const host = state.host as Pod;
  switch (state.stage) {
    case 'starting':
    case 'creating':
      // Wait for the answer in flight; it decides whether anything runs at the provider.
      return { state };
    case 'backoff':
    case 'rejected':
    case 'done':
      // Nothing runs at the provider: finish at once.
      return finish(state);
    case 'running': {
      const toProvider: PodEffect = { type: 'provider.delete', pod: podForProvider(host, config.nodeName) };
      if (!hasRunningContainers(state.provider)) {
        // No container runs: nothing to wait for (the provider still removes its copy).
        const finished = finish(state);
        return withEffects(finished.state, [toProvider, ...(finished.stop ? [] : finished.effects ?? [])]);
      }
      const graceMs = gracePeriodSeconds(host) * 1000 + config.graceMarginMs;
      return withEffects({ ...state, stage: 'terminating' }, [
        toProvider,
        { type: 'timer', ms: graceMs, msg: { type: 'pod.grace-expired' } },
      ]);
    }
    case 'terminating':
    case 'finishing':
    case 'orphaned':
      return { state };
  }
}

/** Deletes the host pod for good (grace 0, UID precondition), after writing a final status if one is due. */
function finish(state: PodState, ...extra: PodEffect[]): Next {
  const finishing = { ...state, stage: 'finishing' as const };
  if (state.writes.inFlight || state.writes.pending) return withEffects(finishing, extra); // delete once the write lands
  return withEffects(finishing, [...extra, { type: 'host.delete' }]);
}

// --- provider ---------------------------------------------------------------------------------

function onProviderFetched(config: PodActorConfig, state: PodState, pod: Pod | undefined, now: number): Next {
  const sameUid = pod !== undefined && (pod.metadata?.uid === state.uid || pod.metadata?.annotations?.['tether.dev/host-uid'] === state.uid);
  if (!state.host) {
    return pod ? { state: { ...state, stage: 'orphaned' }, effects: [{ type: 'provider.delete', pod }] } : { state, stop: true };
  }
  if (state.stage !== 'starting' && state.stage !== 'running') return { state };
  if (pod && !sameUid) {
    // The provider still runs an older pod of the same name: have it removed, then create ours.
    return withEffects(
      { ...state, stage: 'backoff', createAttempts: state.createAttempts + 1 },
      [{ type: 'provider.delete', pod }, { type: 'timer', ms: retryDelay(config, state, state.createAttempts), msg: { type: 'pod.retry-create' } }],
    );
  }
  if (pod) {
    const running: PodState = { ...state, stage: 'running', sentSpec: state.sentSpec ?? specFingerprint(state.host), provider: pod.status ?? state.provider };
    if (state.host.metadata?.deletionTimestamp) return startDeletion(config, running);
    return running.provider ? onProviderStatus(config, running, running.provider, now) : { state: running };
  }
  if (state.stage === 'running') return onProviderGone(config, state, 'NotFound', 'the provider no longer has this pod', now);
  if (state.host.metadata?.deletionTimestamp) return finish(state);
  if (isTerminal(state.host.status)) return { state: { ...state, stage: 'done' } }; // it ran and ended before; nothing to run again
  return create(config, state, now);
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
  const next = { ...state, provider: status };
  if (state.stage === 'terminating' && isTerminal(status)) {
    const written = next.node.ready ? requestWrite(next, hostStatusFrom(status), now, config) : { state: next, effects: [] };
    return finish(written.state, ...(written.stop ? [] : written.effects ?? []));
  }
  // While the node is NotReady the provider's word is stale by definition: keep it, do not write it.
  if (!next.node.ready) return { state: next };
  const result = requestWrite(next, hostStatusFrom(status), now, config);
  if (result.stop) return result;
  const queued = result.state.writes.pending !== null || (result.effects ?? []).some((e) => e.type === 'host.write-status');
  if (!queued) return result;
  // Start the clock of the write-latency metric at the oldest status still on its way.
  return { ...result, state: { ...result.state, writes: { ...result.state.writes, waitingSince: result.state.writes.waitingSince ?? now } } };
}

function onProviderGone(config: PodActorConfig, state: PodState, reason: string, message: string, now: number): Next {
  switch (state.stage) {
    case 'terminating':
      return finish(state);
    case 'orphaned':
      return { state, stop: true };
    case 'running': {
      // Lost without being asked: say so on the host pod rather than silently re-create it.
      const failed = lostStatus(state.provider, reason, message, new Date(now));
      const next = requestWrite({ ...state, stage: 'done', provider: failed }, failed, now, config);
      return withEffects(next.state, [...(next.stop ? [] : next.effects ?? []), event('Warning', 'ProviderPodLost', `the provider lost the pod (${reason}): ${message}`, 'Sync')]);
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

// --- creation ---------------------------------------------------------------------------------

function create(config: PodActorConfig, state: PodState, _now: number): Next {
  const host = state.host as Pod;
  return withEffects(
    { ...state, stage: 'creating', nextAttemptAt: null, sentSpec: specFingerprint(host) },
    [{ type: 'provider.create', pod: podForProvider(host, config.nodeName) }],
  );
}

function onCreateSucceeded(config: PodActorConfig, state: PodState, now: number): Next {
  const recovered = state.createError !== null;
  const next: PodState = { ...state, stage: 'running', createAttempts: 0, createError: null, nextAttemptAt: null };
  if (state.host?.metadata?.deletionTimestamp || !state.host) {
    return state.host ? startDeletion(config, next) : onHostDeleted(config, next);
  }
  const annotated = reconcileAnnotation(next, now);
  const effects = annotated.stop ? [] : [...(annotated.effects ?? [])];
  if (recovered) effects.push(event('Normal', 'ProviderCreated', `created at the provider after ${state.createAttempts} failed attempt(s)`, 'Create'));
  return withEffects(annotated.state, effects);
}

function onCreateFailed(config: PodActorConfig, state: PodState, kind: ErrorKind, message: string, now: number): Next {
  const error = { kind, message, at: now };
  if (!state.host || state.host.metadata?.deletionTimestamp) {
    const next = { ...state, createError: error };
    return state.host ? finish({ ...next, stage: 'backoff' }) : { state: next, stop: true };
  }
  if (kind === 'invalid-input') {
    const next = reconcileAnnotation({ ...state, stage: 'rejected', createError: error }, now);
    return withEffects(next.state, [...(next.stop ? [] : next.effects ?? []), event('Warning', 'ProviderRejected', `the provider rejected the pod; it will not be retried until its spec changes: ${message}`, 'Create')]);
  }
  const attempts = state.createAttempts + 1;
  const delay = retryDelay(config, state, attempts - 1);
  const next = reconcileAnnotation({ ...state, stage: 'backoff', createAttempts: attempts, createError: error, nextAttemptAt: now + delay }, now);
  return withEffects(next.state, [
    ...(next.stop ? [] : next.effects ?? []),
    event('Warning', 'ProviderCreateFailed', `creating the pod at the provider failed: ${message}`, 'Create'),
    { type: 'timer', ms: delay, msg: { type: 'pod.retry-create' } },
  ]);
}

function onRetryCreate(config: PodActorConfig, state: PodState, now: number): Next {
  if (state.stage === 'starting') return { state, effects: [{ type: 'provider.get' }] };
  if (state.stage !== 'backoff' || !state.host) return { state };
  return create(config, state, now);
}

/** Makes the host pod's error annotation match the current creation error (one write at a time). */
function reconcileAnnotation(state: PodState, now: number): Next {
  if (state.annotationInFlight || !state.host) return { state };
  const wanted = state.createError?.message ?? null;
  if (wanted === state.annotatedError) return { state };
  if (wanted !== null) {
    const at = new Date(state.createError?.at ?? now).toISOString();
    return withEffects({ ...state, annotationInFlight: true }, [
      { type: 'host.annotate', annotations: { [createErrorAnnotation]: wanted, [createErrorAtAnnotation]: at } },
    ]);
  }
  return withEffects({ ...state, annotationInFlight: true }, [
    { type: 'host.annotate', annotations: { [createErrorAnnotation]: null, [createErrorAtAnnotation]: null } },
  ]);
}

// --- node readiness ---------------------------------------------------------------------------

function onNodeReadiness(config: PodActorConfig, state: PodState, readiness: NodeReadiness, now: number): Next {
  const was = state.node.ready;
  const next = { ...state, node: readiness };
  if (was === readiness.ready) return { state: next };
  const mirrored = next.stage === 'running' || next.stage === 'terminating';
  if (!readiness.ready) {
    return mirrored ? requestWrite(next, notReadyStatus(next.provider, readiness, config.nodeName, new Date(now)), now, config) : { state: next };
  }
  // Back to Ready: the status held while NotReady is stale; ask the provider for the current one.
  return mirrored ? { state: next, effects: [{ type: 'provider.get' }] } : { state: next };
}

// --- status writes ----------------------------------------------------------------------------

/** Writes `status` to the host, coalescing: one write in flight, only the newest waits. */
function requestWrite(state: PodState, status: PodStatus, _now: number, _config: PodActorConfig): Next {
  const fp = fingerprint(status);
  if (state.writes.inFlight) return { state: { ...state, writes: { ...state.writes, pending: status } } };
  if (fp === state.writes.confirmed) return { state };
  return withEffects({ ...state, writes: { ...state.writes, inFlight: true, pending: null, last: status } }, [{ type: 'host.write-status', status }]);
}

function onStatusWritten(config: PodActorConfig, state: PodState, msg: Extract<PodMsg, { type: 'pod.status-written' }>, now: number): Next {
  const landed = !state.writes.pending && state.writes.waitingSince !== null;
  const writes = { ...state.writes, inFlight: false, confirmed: msg.written, stored: msg.stored, storedVersion: msg.storedVersion ?? null, failures: 0, waitingSince: landed ? null : state.writes.waitingSince };
  const next = { ...state, writes: { ...writes, pending: null } };
  if (state.writes.pending) return requestWrite(next, state.writes.pending, now, config);
  const observed: PodEffect[] = landed ? [{ type: 'observe-status-latency', ms: now - (state.writes.waitingSince ?? now) }] : [];
  if (state.stage === 'finishing') return withEffects(next, [...observed, { type: 'host.delete' }]);
  return withEffects(next, observed);
}

function onStatusWriteFailed(config: PodActorConfig, state: PodState, podGone: boolean): Next {
  const failures = state.writes.failures + 1;
  const next = { ...state, writes: { ...state.writes, inFlight: false, failures } };
  if (podGone) return state.stage === 'finishing' ? { state: next, stop: true } : { state: { ...next, writes: { ...next.writes, pending: null } } };
  if (state.stage === 'finishing') return withEffects(next, [{ type: 'host.delete' }]); // the pod is going anyway
  return withEffects(next, [{ type: 'timer', ms: retryDelay(config, state, failures - 1), msg: { type: 'pod.retry-write' } }]);
}

function retryWrite(state: PodState): Next {
  const status = state.writes.pending ?? state.writes.last;
  if (!status || state.writes.inFlight) return { state };
  return withEffects({ ...state, writes: { ...state.writes, inFlight: true, pending: null, last: status } }, [{ type: 'host.write-status', status }]);
}

// --- deletion at the provider -----------------------------------------------------------------

function onDeleteFailed(config: PodActorConfig, state: PodState, kind: ErrorKind, message: string): Next {
  if (kind === 'not-found') {
    // Already gone at the provider: deletion is done there.
    if (state.stage === 'orphaned') return { state, stop: true };
    if (state.stage === 'terminating') return finish(state);
    return { state };
  }
  const attempts = state.deleteAttempts + 1;
  return withEffects({ ...state, deleteAttempts: attempts }, [
    event('Warning', 'ProviderDeleteFailed', `deleting the pod at the provider failed: ${message}`, 'Delete'),
    { type: 'timer', ms: retryDelay(config, state, attempts - 1), msg: { type: 'pod.retry-delete' } },
  ]);
}

function retryDelete(state: PodState): Next {
  if (state.stage !== 'terminating' && state.stage !== 'orphaned') return { state };
  const pod = state.host ?? minimalPod(state);
  return { state, effects: [{ type: 'provider.delete', pod }] };
}

// --- helpers ----------------------------------------------------------------------------------

function withEffects(state: PodState, effects: PodEffect[]): Next {
  return { state, effects };
}

function event(eventType: 'Normal' | 'Warning', reason: string, note: string, action: string): PodEffect {
  return { type: 'host.event', eventType, reason, note, action };
}

function minimalPod(state: PodState): Pod {
  return { metadata: { namespace: state.namespace, name: state.name, uid: state.uid } };
}

/**
 * Exponential backoff with a jitter derived from the pod's uid, so decisions stay pure and
 * repeatable while a storm of failing pods still spreads its retries.
 */
export function retryDelay(config: PodActorConfig, state: Pick<PodState, 'uid'>, attempt: number): number {
  const seed = fingerprint(`${state.uid}:${attempt}`);
  let hash = 0;
  for (let i = 0; i < seed.length; i++) hash = (Math.imul(hash, 31) + seed.charCodeAt(i)) >>> 0;
  return backoffDelay({ ...config.retry, resetAfterMs: 0 }, attempt, () => (hash % 10_000) / 10_000);
}
