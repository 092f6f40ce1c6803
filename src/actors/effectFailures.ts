/**
 * Which provider errors the actors answer and which crash them: a provider error is an answer
 * when it is classified (providers/errors.ts); anything else is a provider bug, and the actor
 * crashes so that its supervisor restarts it. Kubernetes API errors are classified beside the
 * runtime (runtime/apiFailures.ts), where the node locks in src/ha can use them too.
 */
import { errorMessage } from '../lib/errorMessage.js';
import { providerKindOf, type ProviderErrorKind } from '../providers/errors.js';
import { failure } from '../runtime/apiFailures.js';
import type { Classifier } from '../runtime/effectOutcome.js';

/** A provider's answer: `not-found`, `invalid-input` or `transient`; unclassified is a provider bug. */
export const providerFailure: Classifier<ProviderErrorKind> = (error) => {
  const kind = providerKindOf(error);
  return kind === undefined ? undefined : failure(kind, errorMessage(error), error);
};
