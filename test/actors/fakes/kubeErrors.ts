/** KubeApiErrors as the adapters would reject with them, for the fakes and the tests. */
import { KubeApiError } from '../../../src/adapters/kubernetes/errors.js';
import type { ErrorKind } from '../../../src/lib/errorKind.js';

const statusOf: Partial<Record<ErrorKind, number>> = {
  'not-found': 404, conflict: 409, 'already-exists': 409, 'invalid-input': 422, forbidden: 403, transient: 503,
};

export function kubeError(kind: ErrorKind, operation = 'fake call', message = kind): KubeApiError {
  const status = statusOf[kind];
  return new KubeApiError({ kind, message, ...(status !== undefined ? { status } : {}) }, operation);
}
