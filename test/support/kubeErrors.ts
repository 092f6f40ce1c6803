/** KubeApiErrors as the adapters would reject with them, for the fakes and the tests. */
import { KubeApiError, toKubeApiError } from '../../src/adapters/kubernetes/errors.js';
import type { ErrorKind } from '../../src/lib/errorKind.js';
import { DeadlineExceededError } from '../../src/lib/callWithDeadline.js';

const statusOf: Partial<Record<ErrorKind, number>> = {
  'not-found': 404, conflict: 409, 'already-exists': 409, 'invalid-input': 422, forbidden: 403, gone: 410, transient: 503,
};

export function kubeError(kind: ErrorKind, operation = 'fake call', message: string = kind): KubeApiError {
  const status = statusOf[kind];
  return new KubeApiError({ kind, message, ...(status !== undefined ? { status } : {}) }, operation);
}

/** What a call rejects with when its deadline passes (src/adapters/kubernetes/call.ts). */
export function kubeTimeout(operation: string, ms: number): KubeApiError {
  return toKubeApiError(new DeadlineExceededError(ms), operation);
}
