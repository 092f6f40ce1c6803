/**
 * Creation at the provider, decided: retried with backoff, the error recorded on the host pod as
 * an annotation and an Event (never as its phase or conditions), cleared once the pod runs; an
 * invalid spec waits for a spec change.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import type { ErrorKind } from '../../providers/errors.js';
import { createErrorAnnotation, createErrorAtAnnotation } from './annotations.js';
import { finish, onHostDeleted, startDeletion } from './deletion.js';
import { podForProvider, specFingerprint } from './podStatusView.js';
import type { PodActorConfig } from './config.js';
import type { PodState } from './protocol.js';
import { event, retryDelay, withEffects, type Next } from './transitions.js';

export function create(config: PodActorConfig, state: PodState, _now: number): Next {
  const host = state.host as Pod;
  return withEffects(
    { ...state, stage: 'creating', nextAttemptAt: null, sentSpec: specFingerprint(host) },
    [{ type: 'provider.create', pod: podForProvider(host, config.nodeName) }],
  );
}

export function onCreateSucceeded(config: PodActorConfig, state: PodState, now: number): Next {
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

export function onCreateFailed(config: PodActorConfig, state: PodState, kind: ErrorKind, message: string, now: number): Next {
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
