/** A request scheduler that runs each call at once: no rate limit, for tests of one call's shape. */
import type { RequestScheduler } from '../../src/adapters/kubernetes/rateLimiter.js';

export const immediateScheduler: RequestScheduler = { schedule: (_priority, fn) => fn() };
