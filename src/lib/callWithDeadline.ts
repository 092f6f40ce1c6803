import type { Clock } from './clock.js';

/** A call that did not answer within its deadline. Unclassified, so providers' `classify` reads it as transient. */
export class DeadlineExceededError extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * Calls `call` with a signal that aborts after `ms` on `clock` or when `parent` aborts, and stops
 * waiting at that moment: the returned promise rejects (with `timeoutError(ms)`, by default a
 * DeadlineExceededError, or the parent's reason) even if the call ignores its signal. Not idempotent: it makes the call once.
 */
export function callWithDeadline<T>(
  clock: Clock,
  ms: number,
  parent: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
  timeoutError: (ms: number) => unknown = (after) => new DeadlineExceededError(after),
): Promise<T> {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted === true) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const timer = clock.setTimer(ms, () => controller.abort(timeoutError(ms)));
  const cleanup = (): void => {
    timer.cancel();
    parent?.removeEventListener('abort', onParentAbort);
  };
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      cleanup();
      reject(controller.signal.reason);
    };
    if (controller.signal.aborted) {
      onAbort();
      return;
    }
    controller.signal.addEventListener('abort', onAbort, { once: true });
    call(controller.signal).then(
      (value) => {
        controller.signal.removeEventListener('abort', onAbort);
        cleanup();
        resolve(value);
      },
      (err: unknown) => {
        controller.signal.removeEventListener('abort', onAbort);
        cleanup();
        reject(err);
      },
    );
  });
}
