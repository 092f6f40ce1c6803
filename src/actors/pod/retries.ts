/**
 * Backoff for the pod actor's retries outside creation, deletion and status writes: provider
 * re-reads, annotation patches and provider updates. One formula (lib/backoff.ts), a jitter that
 * is a pure function of the pod and the attempt (see transitions.ts), and the server's
 * Retry-After honoured.
 */
import { backoffDelay, notBefore } from '../../lib/backoff.js';
import type { PodMsg, PodState, RetryKind } from './protocol.js';
import type { PodActorConfig } from './config.js';
import { type Next, retryDelay, withEffects } from './transitions.js';

/** Counts one more failure of `kind` and schedules `msg` after the backoff. */
export function retryLater(config: PodActorConfig, state: PodState, kind: RetryKind, msg: PodMsg, retryAfterMs?: number): Next {
  const attempt = state.retries?.[kind] ?? 0;
  const delay = kind === 'fetch'
    ? backoffDelay({ ...config.retry, minMs: config.refetchMs }, attempt, jitterOf(state, kind, attempt))
    : retryDelay(config, { uid: `${state.uid}:${kind}` }, attempt);
  return withEffects({ ...state, retries: { ...state.retries, [kind]: attempt + 1 } }, [{ type: 'schedule', ms: notBefore(delay, retryAfterMs), msg }]);
}

/** `kind` succeeded: its next failure starts from the shortest delay again. */
export function succeeded(state: PodState, kind: RetryKind): PodState {
  if (!state.retries?.[kind]) return state;
  return { ...state, retries: { ...state.retries, [kind]: 0 } };
}

function jitterOf(state: PodState, kind: RetryKind, attempt: number): () => number {
  let hash = 0;
  for (const c of `${state.uid}:${kind}:${attempt}`) hash = (Math.imul(hash, 31) + c.charCodeAt(0)) >>> 0;
  return () => (hash % 10_000) / 10_000;
}
