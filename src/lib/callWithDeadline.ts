import { onAbort } from './abortFanOut.js';
import type { Clock } from './clock.js';
import { KindedError } from './errorKind.js';

/** A call that did not answer within its deadline: transient (errorKind.ts). */
export class DeadlineExceededError extends KindedError {
  constructor(readonly ms: number) {
    super('transient', `timed out after ${ms} ms`);
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
  // One listener on the parent however many calls share it (a fence, a stop signal): abortFanOut.ts.
  const leaveParent = parent ? onAbort(parent, () => controller.abort(parent.reason)) : (): void => undefined;
  const timer = clock.setTimer(ms, () => controller.abort(timeoutError(ms)));
  const cleanup = (): void => {
    timer.cancel();
    leaveParent();
  };
  return new Promise<T>((resolve, reject) => {
    const abandon = (): void => {
      cleanup();
      reject(controller.signal.reason);
    };
    if (controller.signal.aborted) {
      abandon();
      return;
    }
    controller.signal.addEventListener('abort', abandon, { once: true });
    call(controller.signal).then(
      (value) => {
        controller.signal.removeEventListener('abort', abandon);
        cleanup();
        resolve(value);
      },
      (err: unknown) => {
        controller.signal.removeEventListener('abort', abandon);
        cleanup();
        reject(err);
      },
    );
  });
}
