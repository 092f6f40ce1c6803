/**
 * Kubernetes API failures (remote or host) as provider errors, so the pod actor branches on the
 * class and shows the server's own words:
 *
 * | API failure                                  | provider error |
 * |----------------------------------------------|----------------|
 * | 404 NotFound                                 | notFound       |
 * | 400 BadRequest, 422 Invalid                  | invalidInput   |
 * | 403 from a check that judges the pod: Pod    | invalidInput: a rejection (annotation and Event), |
 * | Security, LimitRange, a quota that requires  | retried only once the spec changes                 |
 * | limits, a webhook or admission policy denial |                                                    |
 * | 403 exceeded quota, RBAC, any other 403      | transient (clears when pods end / an admin acts), the server's message kept |
 * | 409, 401, 410, 429, 5xx, network, timeouts   | transient      |
 *
 * The kind and, on a 403, which check refused (`denial`) come from the adapters
 * (adapters/kubernetes/errors.ts, admissionDenial.ts); this file branches on them only and never
 * reads message text.
 *
 * The message is `<operation>: <status> <reason>: <server message>` on one line. An error that is
 * no API failure at all (a TypeError: a bug) is passed through unclassified, so it crashes the
 * calling actor as it should.
 */
import type { AdmissionDenial } from '../../adapters/kubernetes/admissionDenial.js';
import { classifyApiError, describeApiError } from '../../adapters/kubernetes/errors.js';
import { invalidInput, notFound, ProviderError, transient } from '../errors.js';

/**
 * Refusals that judge the pod itself: retrying the same pod can never pass. An exhausted quota
 * and RBAC are about the cluster's state, not the pod; an unknown 403 is treated the same way.
 */
const JUDGES_THE_POD: ReadonlySet<AdmissionDenial> = new Set<AdmissionDenial>([
  'pod-security', 'limit-range', 'quota-requires', 'webhook', 'admission-policy',
]);

/** True if the refusal judged the pod as sent (so only a changed spec can pass). */
export function judgesThePod(denial: AdmissionDenial | undefined): boolean {
  return denial !== undefined && JUDGES_THE_POD.has(denial);
}

export function toProviderError(err: unknown, operation: string): unknown {
  if (err instanceof ProviderError) return err;
  const info = classifyApiError(err);
  if (info.kind === undefined) return err;
  const message = `${operation}: ${describeApiError(err)}`;
  switch (info.kind) {
    case 'not-found':
      return notFound(message, { cause: err });
    case 'invalid-input':
      return invalidInput(message, { cause: err });
    case 'forbidden':
      return judgesThePod(info.denial) ? invalidInput(message, { cause: err }) : transient(message, { cause: err });
    case 'conflict':
    case 'already-exists':
    case 'unauthorized':
    case 'gone':
    case 'transient':
      return transient(message, { cause: err });
  }
}

/** Runs `fn`, rejecting only with a classified provider error. */
export async function asProviderCall<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toProviderError(err, operation);
  }
}

/** Rejects with the signal's reason as soon as it aborts; the underlying work is not cancelled. */
export function untilAborted<T>(pending: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return pending;
  if (signal.aborted) {
    pending.catch(() => undefined); // nobody waits for it now: its failure must not go unhandled
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}
