/**
 * Which Kubernetes API errors the actors answer and which crash them, decided once for every
 * actor that calls the API (the node, pod and lease actors in src/actors, the node locks in
 * src/ha): a failure the adapters gave a kind (lib/errorKind.ts; a passed deadline is transient)
 * is an answer, and so is a write dropped from the rate limiter's queue. Anything else is a bug:
 * the actor crashes and its supervisor restarts it. Here, not in src/actors, because src/ha may
 * not import the actors. Providers' errors: actors/effectFailures.ts.
 */
import { describeApiError, retryAfterMsOf } from '../adapters/kubernetes/errors.js';
import { isSuperseded } from '../adapters/kubernetes/rateLimiter.js';
import { kindOf, type ErrorKind } from '../lib/errorKind.js';
import { errorMessage } from '../lib/errorMessage.js';
import type { Classifier, Failure } from './effectOutcome.js';

/** A failure of `kind`, with the server's Retry-After when the error carries one. */
export function failure<K extends string>(kind: K, message: string, error: unknown): Failure<K> {
  const retryAfterMs = retryAfterMsOf(error);
  return retryAfterMs === undefined ? { kind, message, error } : { kind, message, retryAfterMs, error };
}

/** A Kubernetes API failure, by its kind (lib/errorKind.ts, set by the adapters); anything else is a bug. */
export const apiFailure: Classifier<ErrorKind> = (error) => {
  const kind = kindOf(error);
  return kind === undefined ? undefined : failure(kind, describeApiError(error), error);
};

/** A queued write: dropped unsent for a newer one of the same key (`superseded`), or an API failure. */
export const queuedWriteFailure: Classifier<ErrorKind | 'superseded'> = (error) =>
  isSuperseded(error) ? failure('superseded', errorMessage(error), error) : apiFailure(error);
