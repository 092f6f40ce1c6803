/**
 * Which errors the actors answer and which crash them, decided in one place: every effect outcome
 * (runtime/effectOutcome.ts) is classified by one of these. A provider error is an answer when it
 * is classified (providers/errors.ts); a Kubernetes API error when the adapters gave it a kind
 * (lib/errorKind.ts); a write dropped from the rate limiter's queue is an
 * answer of its own. Anything else is a bug: the actor crashes and its supervisor restarts it.
 */
import { describeApiError, retryAfterMsOf } from '../adapters/kubernetes/errors.js';
import { isSuperseded } from '../adapters/kubernetes/rateLimiter.js';
import { kindOf, type ErrorKind } from '../lib/errorKind.js';
import { errorMessage } from '../lib/errorMessage.js';
import { providerKindOf, type ProviderErrorKind } from '../providers/errors.js';
import type { Classifier, Failure } from '../runtime/effectOutcome.js';

function failure<K extends string>(kind: K, message: string, error: unknown): Failure<K> {
  const retryAfterMs = retryAfterMsOf(error);
  return retryAfterMs === undefined ? { kind, message, error } : { kind, message, retryAfterMs, error };
}

/** A provider's answer: `not-found`, `invalid-input` or `transient`; unclassified is a provider bug. */
export const providerFailure: Classifier<ProviderErrorKind> = (error) => {
  const kind = providerKindOf(error);
  return kind === undefined ? undefined : failure(kind, errorMessage(error), error);
};

/** A Kubernetes API failure, by its kind (lib/errorKind.ts, set by the adapters); anything else is a bug. */
export const apiFailure: Classifier<ErrorKind> = (error) => {
  const kind = kindOf(error);
  return kind === undefined ? undefined : failure(kind, describeApiError(error), error);
};

/** A queued write: dropped unsent for a newer one of the same key (`superseded`), or an API failure. */
export const queuedWriteFailure: Classifier<ErrorKind | 'superseded'> = (error) =>
  isSuperseded(error) ? failure('superseded', errorMessage(error), error) : apiFailure(error);
