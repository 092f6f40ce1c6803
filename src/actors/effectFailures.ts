/**
 * Which errors the actors answer and which crash them, decided in one place: every effect outcome
 * (runtime/effectOutcome.ts) is classified by one of these. A provider error is an answer when it
 * is classified (providers/errors.ts); a Kubernetes API error when it is a KubeApiError (or wraps
 * something the adapter's taxonomy knows); a write dropped from the rate limiter's queue is an
 * answer of its own. Anything else is a bug: the actor crashes and its supervisor restarts it.
 */
import { classifyApiError, describeApiError, KubeApiError, retryAfterMsOf, type ApiErrorKind } from '../adapters/kubernetes/errors.js';
import { isSuperseded } from '../adapters/kubernetes/rateLimiter.js';
import { errorMessage } from '../lib/errorMessage.js';
import { classify, isClassified, type ErrorKind } from '../providers/errors.js';
import type { Classifier, Failure } from '../runtime/effectOutcome.js';

function failure<K extends string>(kind: K, message: string, error: unknown): Failure<K> {
  const retryAfterMs = retryAfterMsOf(error);
  return retryAfterMs === undefined ? { kind, message, error } : { kind, message, retryAfterMs, error };
}

/** A provider's answer: `not-found`, `invalid-input` or `transient`; unclassified is a provider bug. */
export const providerFailure: Classifier<ErrorKind> = (error) =>
  isClassified(error) ? failure(classify(error), errorMessage(error), error) : undefined;

/** A Kubernetes API failure, by the adapter's kinds; anything else is a bug. */
export const apiFailure: Classifier<ApiErrorKind> = (error) => {
  const info = classifyApiError(error);
  if (!(error instanceof KubeApiError) && info.kind === 'unknown') return undefined;
  return failure(info.kind, describeApiError(error), error);
};

/** A queued write: dropped unsent for a newer one of the same key (`superseded`), or an API failure. */
export const queuedWriteFailure: Classifier<ApiErrorKind | 'superseded'> = (error) =>
  isSuperseded(error) ? failure('superseded', errorMessage(error), error) : apiFailure(error);
