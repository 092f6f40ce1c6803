/**
 * Creation at the provider, decided: retried with backoff, the error recorded on the host pod as
 * an annotation and an Event (never as its phase or conditions), cleared once the pod runs; an
 * invalid spec waits for a spec change.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import type { ProviderErrorKind as ErrorKind } from '../../providers/errors.js';
import { createErrorAnnotation, createErrorAtAnnotation } from './annotations.js';
import { deletionRequest, finish, onHostDeleted, startDeletion, terminate } from './deletion.js';
import { podForProvider, specFingerprint } from './podStatusView.js';
import type { PodActorConfig } from './config.js';
import type { PodState } from './protocol.js';
import { event, retryDelay, withEffects, type Next } from './transitions.js';

export function create(config: PodActorConfig, state: PodState, _now: number): Next {
  const host = state.host as Pod;
  return withEffects(
    { ...state, stage: 'creating', nextAttemptAt: null, sentSpec: specFingerprint(host) },
    [
      { type: 'provider.create', pod: podForProvider(host, config.nodeName) },
      // A create that never answers must not hold the pod (or its deletion) forever.
      { type: 'schedule', ms: config.createDeadlineMs, msg: { type: 'pod.create-deadline', attempt: state.createAttempts } },
    ],
  );
}

/** The create in flight has not answered in time: a failure whose outcome at the provider is unknown. */
export function onCreateDeadline(config: PodActorConfig, state: PodState, attempt: number, now: number): Next {
  if (state.stage !== 'creating' || attempt !== state.createAttempts) return { state };
  return onCreateFailed(config, state, { kind: 'transient', message: `the provider did not answer the create within ${config.createDeadlineMs / 1000} s` }, now);
}

export function onCreateSucceeded(config: PodActorConfig, state: PodState, now: number): Next {
  // A late answer after the deadline still counts (the retry would be a no-op), unless a deletion
  // began meanwhile: then the pod may have landed after the delete, so ask again.
  if (state.stage === 'terminating' || state.stage === 'orphaned') return { state, effects: [{ type: 'provider.delete', pod: deletionRequest(config, state) }] };
  if (state.stage !== 'creating' && state.stage !== 'backoff') return { state };
  const recovered = state.createError !== null;
  const next: PodState = { ...state, stage: 'running', createAttempts: 0, createError: null, nextAttemptAt: null };
  if (state.host?.metadata?.deletionTimestamp || !state.host) {
    return state.host ? startDeletion(config, next, now) : onHostDeleted(config, next);
  }
  const annotated = reconcileAnnotation(next, now);
  const effects = annotated.stop ? [] : [...(annotated.effects ?? [])];
  if (recovered) effects.push(event('Normal', 'ProviderCreated', `created at the provider after ${state.createAttempts} failed attempt(s)`, 'Create'));
  return withEffects(annotated.state, effects);
}

/** `reason`: the provider's precise Event reason (virtual-kubelet's, e.g. MandatorySecretNotFound), recorded beside Tether's own. */
export function onCreateFailed(
  config: PodActorConfig, state: PodState, failure: { readonly kind: ErrorKind; readonly message: string; readonly reason?: string | undefined }, now: number,
): Next {
  const { kind, message, reason } = failure;
  if (state.stage !== 'creating') return { state }; // a late answer: the deadline already decided
  const error = { kind, message, at: now };
  if (!state.host || state.host.metadata?.deletionTimestamp) {
    const next = { ...state, createError: error };
    if (!state.host) return { state: next, stop: true };
    // Refused outright: nothing runs. Otherwise the create may have happened: the provider's answer to the delete says.
    return kind === 'invalid-input' ? finish({ ...next, stage: 'backoff' }) : terminate(config, { ...next, stage: 'backoff' }, now);
  }
  const precise = reason !== undefined ? [event('Warning', reason, message, 'Create')] : [];
  if (kind === 'invalid-input') {
    const next = reconcileAnnotation({ ...state, stage: 'rejected', createError: error }, now);
    return withEffects(next.state, [
      ...(next.stop ? [] : next.effects ?? []),
      ...precise,
      event('Warning', 'ProviderRejected', `the provider rejected the pod; it will not be retried until its spec changes: ${message}`, 'Create'),
    ]);
  }
  const attempts = state.createAttempts + 1;
  const delay = retryDelay(config, state, attempts - 1);
  const next = reconcileAnnotation({ ...state, stage: 'backoff', createAttempts: attempts, createError: error, nextAttemptAt: now + delay }, now);
  return withEffects(next.state, [
    ...(next.stop ? [] : next.effects ?? []),
    ...precise,
    event('Warning', 'ProviderCreateFailed', `creating the pod at the provider failed: ${message}`, 'Create'),
    { type: 'schedule', ms: delay, msg: { type: 'pod.retry-create' } },
  ]);
}

export function onRetryCreate(config: PodActorConfig, state: PodState, now: number): Next {
  if (state.stage === 'starting') return { state, effects: [{ type: 'provider.get' }] };
  if (state.stage !== 'backoff' || !state.host) return { state };
  return create(config, state, now);
}

/** Makes the host pod's error annotation match the current creation error (one write at a time). */
export function reconcileAnnotation(state: PodState, now: number): Next {
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
