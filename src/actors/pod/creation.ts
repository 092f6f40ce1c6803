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
import { enter, event, failedAgain, noRetry, plus, retryDelay, withEffects, type Next } from './transitions.js';

export function create(config: PodActorConfig, state: PodState, _now: number): Next {
  const host = state.host as Pod;
  // A retry keeps counting its failures; a first create (or one for a changed spec) starts afresh.
  const retry = state.stage === 'backoff' ? state.create : noRetry;
  return withEffects(
    enter(state, { stage: 'creating', create: { ...retry, dueAt: null }, sentSpec: specFingerprint(host) }),
    [
      { type: 'provider.create', pod: podForProvider(host, config.nodeName), deadlineMs: config.createDeadlineMs },
      // A create that never answers must not hold the pod (or its deletion) forever.
      { type: 'schedule', ms: config.createDeadlineMs, msg: { type: 'pod.create-deadline', attempt: retry.attempt } },
    ],
  );
}

/** The create in flight has not answered in time: a failure whose outcome at the provider is unknown. */
export function onCreateDeadline(config: PodActorConfig, state: PodState, attempt: number, now: number): Next {
  if (state.stage !== 'creating' || attempt !== state.create.attempt) return { state };
  return onCreateFailed(config, state, { kind: 'transient', message: `the provider did not answer the create within ${config.createDeadlineMs / 1000} s` }, now);
}

export function onCreateSucceeded(config: PodActorConfig, state: PodState, now: number): Next {
  // A late answer after the deadline still counts (the retry would be a no-op), unless a deletion
  // began meanwhile: then the pod may have landed after the delete, so ask again.
  if (state.stage === 'terminating' || state.stage === 'orphaned') return { state, effects: [{ type: 'provider.delete', pod: deletionRequest(config, state) }] };
  if (state.stage !== 'creating' && state.stage !== 'backoff') return { state };
  const recovered = state.createError !== null;
  const next = enter({ ...state, createError: null }, { stage: 'running', sentSpec: state.sentSpec, deadlineTimer: null });
  if (state.host?.metadata?.deletionTimestamp || !state.host) {
    return state.host ? startDeletion(config, next, now) : onHostDeleted(config, next);
  }
  const annotated = reconcileAnnotation(next, now);
  if (!recovered) return annotated;
  return plus(annotated, event('Normal', 'ProviderCreated', `created at the provider after ${state.create.attempt} failed attempt(s)`, 'Create'));
}

/** `reason`: the provider's precise Event reason (virtual-kubelet's, e.g. MandatorySecretNotFound), recorded beside Tether's own. */
export function onCreateFailed(
  config: PodActorConfig, state: PodState, failure: { readonly kind: ErrorKind; readonly message: string; readonly reason?: string | undefined }, now: number,
): Next {
  const { kind, message, reason } = failure;
  if (state.stage !== 'creating') return { state }; // a late answer: the deadline already decided
  const failed: PodState = { ...state, createError: { kind, message, at: now } };
  if (!state.host) return { state: failed, stop: true };
  if (state.host.metadata?.deletionTimestamp) {
    // Refused outright: nothing runs. Otherwise the create may have happened: the provider's answer to the delete says.
    return kind === 'invalid-input' ? finish(failed) : terminate(config, failed, now);
  }
  const precise = reason !== undefined ? [event('Warning', reason, message, 'Create')] : [];
  if (kind === 'invalid-input') {
    return plus(
      reconcileAnnotation(enter(failed, { stage: 'rejected', sentSpec: state.sentSpec }), now),
      ...precise,
      event('Warning', 'ProviderRejected', `the provider rejected the pod; it will not be retried until its spec changes: ${message}`, 'Create'),
    );
  }
  const delay = retryDelay(config, state, state.create.attempt);
  const backoff = enter(failed, { stage: 'backoff', create: failedAgain(state.create, now, delay, message), sentSpec: state.sentSpec });
  return plus(
    reconcileAnnotation(backoff, now),
    ...precise,
    event('Warning', 'ProviderCreateFailed', `creating the pod at the provider failed: ${message}`, 'Create'),
    { type: 'schedule', ms: delay, msg: { type: 'pod.retry-create' } },
  );
}

export function onRetryCreate(config: PodActorConfig, state: PodState, now: number): Next {
  if (state.stage === 'starting') return { state, effects: [{ type: 'provider.get' }] };
  if (state.stage !== 'backoff' || !state.host) return { state };
  return create(config, state, now);
}

/** Makes the host pod's error annotation match the current creation error (one write at a time). */
export function reconcileAnnotation(state: PodState, now: number): Next {
  if (state.annotation.inFlight || !state.host) return { state };
  const wanted = state.createError?.message ?? null;
  if (wanted === state.annotation.shown) return { state };
  const at = wanted === null ? null : new Date(state.createError?.at ?? now).toISOString();
  return withEffects({ ...state, annotation: { ...state.annotation, inFlight: true } }, [
    { type: 'host.annotate', annotations: { [createErrorAnnotation]: wanted, [createErrorAtAnnotation]: at } },
  ]);
}

/** The annotation patch landed (`shown` is what the host pod carries now): reconcile again if the wanted value moved on. */
export function onAnnotationWritten(state: PodState, shown: string | null, now: number): Next {
  return reconcileAnnotation({ ...state, annotation: { shown, inFlight: false } }, now);
}
