/**
 * Waiting on a condition instead of sleeping: poll until the probe yields a value, or fail with
 * a message that says what was awaited and the last thing the probe reported.
 */
import { errorMessage } from '../lib/errorMessage.js';

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * A probe returns the awaited value, or `undefined`/`false` for "not yet". A throw also means
 * "not yet" (the last error is reported on timeout), except `GiveUp`, which ends the wait at once.
 */
export type Probe<T> = () => T | undefined | false | Promise<T | undefined | false>;

export class WaitTimeoutError extends Error {
  constructor(description: string, timeoutMs: number, lastError: unknown) {
    const last = lastError === undefined ? '' : `; last error: ${errorMessage(lastError)}`;
    super(`timed out after ${timeoutMs} ms waiting for ${description}${last}`, { cause: lastError });
    this.name = 'WaitTimeoutError';
  }
}

/** Thrown by a probe to stop waiting at once (e.g. the process being waited on has exited). */
export class GiveUp extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GiveUp';
  }
}

export async function waitFor<T>(description: string, probe: Probe<T>, options: WaitOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 200;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) throw new WaitTimeoutError(description, timeoutMs, lastError);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}

export { errorMessage as describeError } from '../lib/errorMessage.js';
