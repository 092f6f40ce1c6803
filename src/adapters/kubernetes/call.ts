/**
 * The one way the client implementations call the API: through the rate limiter at a priority,
 * with every rejection converted into a KubeApiError naming the operation.
 */
import { isApiErrorKind, KubeApiError, translateErrors } from './errors.js';
import { SupersededError, type Priority, type RequestScheduler, type ScheduleOptions } from './rateLimiter.js';

/**
 * `operation` starts with the verb (`get pod …`, `patch status of …`): that is what is counted.
 * A request superseded in the queue (`options.key`) rejects with a KubeApiError whose cause is the
 * SupersededError (`isSuperseded` tells it apart).
 */
export function call<T>(limiter: RequestScheduler, priority: Priority, operation: string, fn: () => Promise<T>, options?: ScheduleOptions): Promise<T> {
  const verb = operation.split(' ', 1)[0] ?? 'call';
  return schedule(limiter, priority, operation, options, async () => {
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

function schedule<T>(limiter: RequestScheduler, priority: Priority, operation: string, options: ScheduleOptions | undefined, fn: () => Promise<T>): Promise<T> {
  const pending = options ? limiter.schedule(priority, fn, options) : limiter.schedule(priority, fn);
  return pending.catch((error: unknown) => {
    if (error instanceof SupersededError) throw new KubeApiError({ kind: 'unknown', message: error.message }, operation, error);
    throw error;
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
