/**
 * One abort listener per signal, however many waiters: a long-lived signal (a cluster's write
 * fence, a stop signal) is handed to every call, and a listener per call in flight or queued
 * grows with the load (Node warns past 10: "MaxListenersExceededWarning ... abort listeners").
 * Waiters subscribe here instead: the signal carries a single listener while any waiter is
 * subscribed, and none once the last has left.
 */

interface FanOut {
  readonly waiters: Set<() => void>;
  readonly listener: () => void;
}

const fanOuts = new WeakMap<AbortSignal, FanOut>();

function fanOutOf(signal: AbortSignal): FanOut {
  const existing = fanOuts.get(signal);
  if (existing) return existing;
  const waiters = new Set<() => void>();
  const listener = (): void => {
    fanOuts.delete(signal);
    for (const waiter of [...waiters]) waiter();
    waiters.clear();
  };
  const created: FanOut = { waiters, listener };
  fanOuts.set(signal, created);
  signal.addEventListener('abort', listener, { once: true });
  return created;
}

/**
 * Calls `handler` once when `signal` aborts (at once if it already has). Returns the unsubscribe,
 * to call when the wait settles another way; calling it again, or after the abort, is harmless.
 */
export function onAbort(signal: AbortSignal, handler: () => void): () => void {
  if (signal.aborted) {
    handler();
    return () => undefined;
  }
  const fanOut = fanOutOf(signal);
  // A wrapper of its own, so the same handler subscribed twice is two waiters.
  const waiter = (): void => handler();
  fanOut.waiters.add(waiter);
  return () => {
    if (!fanOut.waiters.delete(waiter) || fanOut.waiters.size > 0) return;
    if (fanOuts.get(signal) === fanOut) fanOuts.delete(signal);
    signal.removeEventListener('abort', fanOut.listener);
  };
}
