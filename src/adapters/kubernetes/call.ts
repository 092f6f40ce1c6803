/**
 * The one way the client implementations call the API: through the rate limiter at a priority,
 * with every rejection converted into a KubeApiError naming the operation.
 */
import { isApiErrorKind, KubeApiError, translateErrors } from './errors.js';
import type { Priority, RequestScheduler } from './rateLimiter.js';

/** `operation` starts with the verb (`get pod …`, `patch status of …`): that is what is counted. */
export function call<T>(limiter: RequestScheduler, priority: Priority, operation: string, fn: () => Promise<T>): Promise<T> {
  const verb = operation.split(' ', 1)[0] ?? 'call';
  return limiter.schedule(priority, async () => {
    try {
      const result = await translateErrors(operation, fn);
      limiter.recordRequest?.(verb, '2xx');
      return result;
    } catch (error) {
      limiter.recordRequest?.(verb, error instanceof KubeApiError && error.status !== undefined ? String(error.status) : 'network');
      throw error;
    }
  });
}

/** Resolves to undefined when the object does not exist (404); other errors pass through. */
export async function orUndefined<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (err) {
    if (isApiErrorKind(err, 'notFound')) return undefined;
    throw err;
  }
}

/** Resolves quietly when the object is already gone (404); other errors pass through. */
export async function ignoreNotFound(pending: Promise<unknown>): Promise<void> {
  try {
    await pending;
  } catch (err) {
    if (!isApiErrorKind(err, 'notFound')) throw err;
  }
}
