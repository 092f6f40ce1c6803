/**
 * The real clock: the door to the process's own timers. Everything else takes a `Clock`
 * (src/lib/clock.ts) so that tests drive time by hand.
 */
import type { Clock } from '../lib/clock.js';

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
};

/**
 * The real clock for background checks of something that is kept alive by other means (a
 * listening server): its timers never hold the process open on their own.
 */
export const backgroundClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};
