/**
 * Time as a value: actors, supervisors and providers take a Clock so that backoff, intensity
 * windows, lease renewals and start latencies are tested by advancing a manual clock, not by sleeping.
 */
import { onAbort } from './abortFanOut.js';

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds, unless cancelled first. */
  setTimer(ms: number, fn: () => void): Timer;
}

/** Resolves after `ms` on the given clock; rejects with the signal's reason if aborted first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let leave = (): void => undefined;
    const timer = clock.setTimer(ms, () => {
      leave();
      resolve();
    });
    if (signal) leave = onAbort(signal, () => {
      timer.cancel();
      reject(signal.reason);
    });
  });
}

/** A time for a summary in the actor tree: ISO 8601, or null when there is none. */
export function isoOrNull(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}
