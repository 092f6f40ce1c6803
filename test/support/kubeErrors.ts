/** KubeApiErrors as the adapters would reject with them, for the fakes and the tests. */
import { KubeApiError, toKubeApiError, type ApiErrorKind } from '../../src/adapters/kubernetes/errors.js';
import { DeadlineExceededError } from '../../src/lib/callWithDeadline.js';

const statusOf: Partial<Record<ApiErrorKind, number>> = {
  notFound: 404, conflict: 409, alreadyExists: 409, invalid: 422, forbidden: 403, gone: 410, unavailable: 503,
};

export function kubeError(kind: ApiErrorKind, operation = 'fake call', message: string = kind): KubeApiError {
  const status = statusOf[kind];
  return new KubeApiError({ kind, message, ...(status !== undefined ? { status } : {}) }, operation);
}

/** What a call rejects with when its deadline passes (src/adapters/kubernetes/call.ts). */
export function kubeTimeout(operation: string, ms: number): KubeApiError {
  return toKubeApiError(new DeadlineExceededError(ms), operation);
}
