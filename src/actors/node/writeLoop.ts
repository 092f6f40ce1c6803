import { backoffDelay, notBefore, seededJitter, type BackoffPolicy } from '../../lib/backoff.js';
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

/**
 * The write failed: wait `retryAfterMs` (the node's backoff policy; never sooner
 * than the server's Retry-After), then write again. The jitter is a pure function of `seed` (the
 * node and the loop) and the attempt, so decisions stay repeatable.
 */
export function writeFailed(loop: WriteLoop, error: string, retry: BackoffPolicy, seed = '', serverRetryAfterMs?: number): { loop: WriteLoop; retryAfterMs: number } {
  const random = seededJitter(`${seed}:${loop.failures}`);
  const retryAfterMs = notBefore(backoffDelay(retry, loop.failures, random), serverRetryAfterMs);
  return { loop: { inFlight: false, again: false, failures: loop.failures + 1, retryPending: true, lastError: error }, retryAfterMs };
}

/** The retry timer fired: write now. */
export function retryDue(loop: WriteLoop): { loop: WriteLoop; start: boolean } {
  return requestWrite({ ...loop, retryPending: false });
}
