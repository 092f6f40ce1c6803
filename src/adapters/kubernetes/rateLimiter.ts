/**
 * Client-side rate limiting for API requests: one token bucket shared by every request, with
 * strict priority between classes, so a lease renewal or a delete never waits behind a backlog
 * of status writes.
 *
 * The bucket limits how often requests *start* (QPS, with `burst` tokens saved up); it does not
 * limit how many are in flight. Within a class, requests start in the order they were scheduled.
 */
import type { Clock, Timer } from '../../lib/clock.js';
import { systemClock } from '../clock.js';

/** Request classes, highest priority first. */
export const PRIORITIES = ['lease', 'delete', 'status', 'other'] as const;
export type Priority = (typeof PRIORITIES)[number];

export interface RateLimiterOptions {
  /** Sustained requests per second. `Infinity` disables limiting. Must be > 0. */
  readonly qps: number;
  /** Bucket size: how many requests may start at once after a quiet period. Must be >= 1. */
  readonly burst: number;
  readonly clock?: Clock;
}

/** Per-class counters, cumulative since construction (for metrics). */
export interface PriorityStats {
  /** Requests waiting for a token now. */
  readonly queued: number;
  /** Requests started so far. */
  readonly started: number;
  /** Total milliseconds that started requests spent queued. */
  readonly waitMs: number;
}

export interface ScheduleOptions {
  /** Aborted: the request, if still waiting, is dropped unsent and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** The interface callers (the API adapters) depend on. */
export interface RequestScheduler {
  /**
   * Runs `fn` once a token is available and no higher-priority request is waiting; resolves or
   * rejects with fn's outcome. A synchronous throw from `fn` becomes a rejection. If `signal`
   * aborts while the request still waits, it leaves the queue and rejects with the signal's
   * reason without ever running (a write of a node whose lock was lost is dropped, not sent).
   */
  schedule<T>(priority: Priority, fn: () => Promise<T>, options?: ScheduleOptions): Promise<T>;
  /** Counts one finished API request by verb and HTTP status (or `network` when none came back). */
  recordRequest?(verb: string, code: string): void;
}

interface Waiting {
  readonly enqueuedAt: number;
  readonly start: () => void;
}

interface ClassState {
  readonly queue: Waiting[];
  started: number;
  waitMs: number;
}

export class RateLimiter implements RequestScheduler {
  private readonly clock: Clock;
  private readonly qps: number;
  private readonly burst: number;
  private tokens: number;
  private refilledAt: number;
  private timer: Timer | undefined;
  private readonly classes: Record<Priority, ClassState>;

  constructor(options: RateLimiterOptions) {
    if (!(options.qps > 0)) throw new RangeError(`rate limiter qps must be > 0, got ${options.qps}`);
    if (!(options.burst >= 1)) throw new RangeError(`rate limiter burst must be >= 1, got ${options.burst}`);
    this.clock = options.clock ?? systemClock;
    this.qps = options.qps;
    this.burst = Math.floor(options.burst);
    this.tokens = this.burst;
    this.refilledAt = this.clock.now();
    const fresh = (): ClassState => ({ queue: [], started: 0, waitMs: 0 });
    this.classes = { lease: fresh(), delete: fresh(), status: fresh(), other: fresh() };
  }

  schedule<T>(priority: Priority, fn: () => Promise<T>, options: ScheduleOptions = {}): Promise<T> {
    const { signal } = options;
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const queue = this.classes[priority].queue;
      const onAbort = (): void => {
        const at = queue.indexOf(waiting);
        if (at >= 0) queue.splice(at, 1);
        reject(signal?.reason);
      };
      const waiting: Waiting = {
        enqueuedAt: this.clock.now(),
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          try {
            fn().then(resolve, reject);
          } catch (err) {
            reject(err);
          }
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiting);
      this.dispatch();
    });
  }

  /** Queue depth per class right now. */
  queueDepth(): Record<Priority, number> {
    const c = this.classes;
    return { lease: c.lease.queue.length, delete: c.delete.queue.length, status: c.status.queue.length, other: c.other.queue.length };
  }

  /** Cumulative counters per class. */
  private readonly requests = new Map<string, number>();

  recordRequest(verb: string, code: string): void {
    const key = `${verb} ${code}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  /** Finished API requests, keyed `<verb> <code>` (e.g. `patch 200`, `get 404`, `list network`). */
  requestCounts(): ReadonlyMap<string, number> {
    return this.requests;
  }

  stats(): Record<Priority, PriorityStats> {
    const one = (p: Priority): PriorityStats => {
      const c = this.classes[p];
      return { queued: c.queue.length, started: c.started, waitMs: c.waitMs };
    };
    return { lease: one('lease'), delete: one('delete'), status: one('status'), other: one('other') };
  }

  /** Starts as many waiting requests as tokens allow, highest class first; arms a timer for the rest. */
  private dispatch(): void {
    this.refill();
    for (;;) {
      const next = this.nextClass();
      if (next === undefined) return;
      if (this.tokens < 1) {
        this.armTimer();
        return;
      }
      const waiting = next.queue.shift();
      if (!waiting) return;
      this.tokens -= 1;
      next.started += 1;
      next.waitMs += this.clock.now() - waiting.enqueuedAt;
      waiting.start();
    }
  }

  private nextClass(): ClassState | undefined {
    for (const p of PRIORITIES) {
      const c = this.classes[p];
      if (c.queue.length > 0) return c;
    }
    return undefined;
  }

  private refill(): void {
    const now = this.clock.now();
    if (this.qps === Infinity) {
      this.tokens = this.burst;
    } else {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.qps) / 1000);
    }
    this.refilledAt = now;
  }

  private armTimer(): void {
    if (this.timer) return;
    const ms = Math.ceil(((1 - this.tokens) * 1000) / this.qps);
    this.timer = this.clock.setTimer(ms, () => {
      this.timer = undefined;
      this.dispatch();
    });
  }
}
