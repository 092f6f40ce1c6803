/**
 * Backoff for the pod actor's retries that are not tied to a stage: provider re-reads, annotation
 * patches, provider updates and status writes. One formula (lib/backoff.ts), a jitter that is a
 * pure function of the pod and the attempt (see transitions.ts), and the server's Retry-After
 * honoured. Each operation keeps its own retry record (protocol.ts `Retry`).
 */
import { backoffDelay, notBefore, seededJitter } from '../../lib/backoff.js';
import type { PodMsg, PodState, RetryKind } from './protocol.js';
import type { PodActorConfig } from './config.js';
import { failedAgain, noRetry, type Next, retryDelay, withEffects } from './transitions.js';

/** The message each retry sends the actor when it is due. */
const retryMessage: Readonly<Record<RetryKind, PodMsg>> = {
  fetch: { type: 'pod.retry-fetch' },
  annotate: { type: 'pod.retry-annotate' },
  update: { type: 'pod.retry-update' },
  write: { type: 'pod.retry-write' },
};

/** Counts one more failure of `kind` and schedules its retry after the backoff (never sooner than Retry-After). */
export function retryLater(config: PodActorConfig, state: PodState, kind: RetryKind, failure: { readonly message: string; readonly retryAfterMs?: number | undefined }, now: number): Next {
  const retry = state.retries[kind];
  const ms = notBefore(delayOf(config, state, kind, retry.attempt), failure.retryAfterMs);
  return withEffects({ ...state, retries: { ...state.retries, [kind]: failedAgain(retry, now, ms, failure.message) } }, [{ type: 'schedule', ms, msg: retryMessage[kind] }]);
}

/** `kind` succeeded: its next failure starts from the shortest delay again. */
export function succeeded(state: PodState, kind: RetryKind): PodState {
  if (state.retries[kind].attempt === 0) return state;
  return { ...state, retries: { ...state.retries, [kind]: noRetry } };
}

function delayOf(config: PodActorConfig, state: PodState, kind: RetryKind, attempt: number): number {
  switch (kind) {
    case 'fetch':
      return backoffDelay({ ...config.retry, minMs: config.refetchMs }, attempt, jitterOf(state, kind, attempt));
    case 'annotate':
    case 'update':
      return retryDelay(config, { uid: `${state.uid}:${kind}` }, attempt);
    case 'write':
      return retryDelay(config, state, attempt);
  }
}

function jitterOf(state: PodState, kind: RetryKind, attempt: number): () => number {
  return seededJitter(`${state.uid}:${kind}:${attempt}`);
}
