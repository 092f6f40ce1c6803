/** KubeApiErrors as the adapters would reject with them, for the fakes and the tests. */
import { KubeApiError, type ApiErrorKind } from '../../../src/adapters/kubernetes/errors.js';

const statusOf: Partial<Record<ApiErrorKind, number>> = { notFound: 404, conflict: 409, alreadyExists: 409, invalid: 422, forbidden: 403, unavailable: 503 };

export function kubeError(kind: ApiErrorKind, operation = 'fake call', message = kind): KubeApiError {
  const status = statusOf[kind];
  return new KubeApiError({ kind, message, ...(status !== undefined ? { status } : {}) }, operation);
}
