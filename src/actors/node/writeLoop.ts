import { backoffDelay } from '../../lib/backoff.js';
import type { RetryConfig } from './config.js';
import type { WriteLoop } from './protocol.js';

/**
 * One API write at a time, retried with backoff: the bookkeeping the node actor keeps for its
 * registration, its status writes and its deletion. Pure; the caller turns `start` into an effect
 * and `retryAfterMs` into a timer.
 */
export const idleLoop: WriteLoop = { inFlight: false, again: false, failures: 0, retryPending: false, lastError: undefined };

/** Asks for a write: starts one now, or remembers to write again after the one in flight or pending. */
export function requestWrite(loop: WriteLoop): { loop: WriteLoop; start: boolean } {
  if (loop.inFlight) return { loop: { ...loop, again: true }, start: false };
  if (loop.retryPending) return { loop, start: false };
  return { loop: { ...loop, inFlight: true }, start: true };
}

/** The write succeeded; `start` if it was asked for again meanwhile. */
export function writeSucceeded(loop: WriteLoop): { loop: WriteLoop; start: boolean } {
  return { loop: { ...idleLoop, inFlight: loop.again }, start: loop.again };
}

/** The write failed: wait `retryAfterMs` (exponential, factor 2, no jitter), then write again. */
export function writeFailed(loop: WriteLoop, error: string, retry: RetryConfig): { loop: WriteLoop; retryAfterMs: number } {
  const retryAfterMs = backoffDelay({ minMs: retry.minMs, maxMs: retry.maxMs, factor: 2, jitter: 0 }, loop.failures);
  return { loop: { inFlight: false, again: false, failures: loop.failures + 1, retryPending: true, lastError: error }, retryAfterMs };
}

/** The retry timer fired: write now. */
export function retryDue(loop: WriteLoop): { loop: WriteLoop; start: boolean } {
  return requestWrite({ ...loop, retryPending: false });
}
