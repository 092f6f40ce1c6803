/**
 * Client-side rate limiting for API requests: one token bucket shared by every request, with
 * strict priority between classes, so a lease renewal or a delete never waits behind a backlog
 * of status writes.
 *
 * The bucket limits how often requests *start* (QPS, with `burst` tokens saved up); `maxInFlight`
 * limits how many run at once. Within a class, requests start in the order they were scheduled.
 *
 * Why a cap on requests in flight: client-node speaks HTTP/1.1, one socket per request in flight
 * (client-go multiplexes them over one HTTP/2 connection). With the budget lifted, a burst of a
 * thousand writes opened a thousand TLS connections, and the API server's own limit queued them
 * anyway. Held here instead, they wait where keyed writes coalesce, and the few sockets they
 * need stay open for reuse. Lease requests are never held for a slot: they are few, and a
 * backlog of writes must not cost a node its lock.
 *
 * Keyed requests (one key per object and kind of write, e.g. one pod's status) coalesce in the
 * queue, as a work queue's keys do: a newer request takes the place of an older one with the same
 * key still waiting (the older one is never sent and rejects with {@link SupersededError}), and
 * requests with one key run one at a time, in order, so an older write can never land last.
 *
 * `maxQueued` bounds the queue, for requests that may be lost (Events, as client-go's recorder
 * drops them past 1,000 queued): one scheduled while the queue is full is refused unsent.
 */
import { onAbort } from '../../lib/abortFanOut.js';
import type { Clock, Timer } from '../../lib/clock.js';
import { causeChain, KindedError } from '../../lib/errorKind.js';
import { systemClock } from '../clock.js';

/** Request classes, highest priority first. */
export const PRIORITIES = ['lease', 'delete', 'status', 'other'] as const;
export type Priority = (typeof PRIORITIES)[number];

/** The client-side budget when none is configured: the kubelet's own defaults. */
export const DEFAULT_RATE_LIMIT = { qps: 50, burst: 100 } as const;

/**
 * Requests in flight at once per cluster client when none is configured. At the ~10 ms a write
 * takes on a healthy API server, 32 in flight carry ~3,000 requests a second, far above what one
 * API server accepts (~100 status writes a second measured on the bench's control plane).
 */
export const DEFAULT_MAX_IN_FLIGHT = 32;

export interface RateLimiterOptions {
  /** Sustained requests per second. `Infinity` disables limiting. Must be > 0. */
  readonly qps: number;
  /** Bucket size: how many requests may start at once after a quiet period. Must be >= 1. */
  readonly burst: number;
  /** Requests running at once, lease requests aside (they never wait for a slot). Default: no cap. Must be >= 1. */
  readonly maxInFlight?: number;
  /** Requests waiting at most, all classes together; past it a new one is refused ({@link QueueFullError}). Default: no bound. Must be >= 0. */
  readonly maxQueued?: number;
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
  /** Requests refused unsent because the queue was full (only with `maxQueued`). */
  readonly dropped: number;
}

export interface ScheduleOptions {
  /** Requests with this key supersede each other while waiting and never run at once. */
  readonly key?: string;
  /** Aborted: the request, if still waiting, is dropped unsent and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** The rejection of a waiting request that a newer one with the same key replaced: it was never sent. */
export class SupersededError extends Error {
  override readonly name = 'SupersededError';
  constructor(readonly key: string) {
    super(`dropped before it was sent: a newer request (${key}) took its place`);
  }
}

/** The rejection of a request scheduled while the queue was full: it was never sent. */
export class QueueFullError extends KindedError {
  override readonly name = 'QueueFullError';
  constructor(readonly maxQueued: number) {
    super('transient', `dropped before it was sent: ${maxQueued} requests already wait for the rate limiter`);
  }
}

/** True if `err` or one of its causes is a {@link SupersededError}. */
export function isSuperseded(err: unknown): boolean {
  for (const e of causeChain(err)) if (e instanceof SupersededError) return true;
  return false;
}

/** True if `err` or one of its causes is a {@link QueueFullError}. */
export function isQueueFull(err: unknown): boolean {
  for (const e of causeChain(err)) if (e instanceof QueueFullError) return true;
  return false;
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
  /**
   * Whether an unkeyed request of `priority` scheduled now would be refused unsent (the queue is
   * at `maxQueued`); if so it is counted as dropped, as `schedule` counts one. Lets a caller with a
   * request it may lose (an Event in a storm) not build it at all.
   */
  refuses?(priority: Priority): boolean;
}

interface Waiting {
  readonly enqueuedAt: number;
  readonly key: string | undefined;
  /** Replaced when a newer request with the same key takes this place in the queue. */
  start: () => void;
  drop: (error: Error) => void;
}

interface ClassState {
  readonly queue: Waiting[];
  started: number;
  waitMs: number;
  dropped: number;
}

export class RateLimiter implements RequestScheduler {
  private readonly clock: Clock;
  private readonly qps: number;
  private readonly burst: number;
  private readonly maxInFlight: number;
  private readonly maxQueued: number;
  /** Requests started and not yet settled, lease requests included. */
  private running = 0;
  private tokens: number;
  private refilledAt: number;
  private timer: Timer | undefined;
  private readonly classes: Record<Priority, ClassState>;
  /** Keyed requests waiting, by key (at most one each). */
  private readonly waitingByKey = new Map<string, Waiting>();
  /** Keys with a request running now. */
  private readonly runningKeys = new Set<string>();

  constructor(options: RateLimiterOptions) {
    if (!(options.qps > 0)) throw new RangeError(`rate limiter qps must be > 0, got ${options.qps}`);
    if (!(options.burst >= 1)) throw new RangeError(`rate limiter burst must be >= 1, got ${options.burst}`);
    const maxInFlight = options.maxInFlight ?? Infinity;
    if (!(maxInFlight >= 1)) throw new RangeError(`rate limiter maxInFlight must be >= 1, got ${options.maxInFlight}`);
    this.maxInFlight = maxInFlight;
    const maxQueued = options.maxQueued ?? Infinity;
    if (!(maxQueued >= 0)) throw new RangeError(`rate limiter maxQueued must be >= 0, got ${options.maxQueued}`);
    this.maxQueued = maxQueued;
    this.clock = options.clock ?? systemClock;
    this.qps = options.qps;
    this.burst = Math.floor(options.burst);
    this.tokens = this.burst;
    this.refilledAt = this.clock.now();
    const fresh = (): ClassState => ({ queue: [], started: 0, waitMs: 0, dropped: 0 });
    this.classes = { lease: fresh(), delete: fresh(), status: fresh(), other: fresh() };
  }

  schedule<T>(priority: Priority, fn: () => Promise<T>, options: ScheduleOptions = {}): Promise<T> {
    const { key, signal } = options;
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      let forget = (): void => undefined;
      const start = (): void => {
        forget();
        let running: Promise<T>;
        try {
          running = fn();
        } catch (err) {
          running = Promise.reject(err);
        }
        this.running += 1;
        if (key !== undefined) this.runningKeys.add(key);
        const settled = (): void => {
          this.running -= 1;
          if (key !== undefined) this.runningKeys.delete(key);
          this.dispatch();
        };
        running.then((value) => (settled(), resolve(value)), (err: unknown) => (settled(), reject(err)));
      };
      const drop = (error: Error): void => {
        forget();
        reject(error);
      };
      let slot: Waiting | undefined;
      // Aborted while still waiting (its node's lock is lost): leave the queue, never run.
      const leaveQueue = (): void => {
        if (slot === undefined) return;
        if (slot.start !== start) return;
        // The slot may be an older request's, in its class's queue: look in every class.
        for (const p of PRIORITIES) {
          const queue = this.classes[p].queue;
          const at = queue.indexOf(slot);
          if (at >= 0) queue.splice(at, 1);
        }
        if (key !== undefined && this.waitingByKey.get(key) === slot) this.waitingByKey.delete(key);
        slot = undefined;
        reject(signal?.reason);
      };
      // One listener on the fence however many requests wait on it (abortFanOut.ts).
      if (signal) forget = onAbort(signal, leaveQueue);
      const older = key === undefined ? undefined : this.waitingByKey.get(key);
      if (older && key !== undefined) {
        // Take the older request's place (it has waited longer) and drop it unsent.
        older.drop(new SupersededError(key));
        older.start = start;
        older.drop = drop;
        slot = older;
        this.dispatch();
        return;
      }
      if (this.refuses(priority)) {
        drop(new QueueFullError(this.maxQueued));
        return;
      }
      const waiting: Waiting = { enqueuedAt: this.clock.now(), key, start, drop };
      slot = waiting;
      if (key !== undefined) this.waitingByKey.set(key, waiting);
      this.classes[priority].queue.push(waiting);
      this.dispatch();
    });
  }

  refuses(priority: Priority): boolean {
    if (this.waitingNow() < this.maxQueued) return false;
    this.classes[priority].dropped += 1;
    return true;
  }

  /** Queue depth per class right now. */
  queueDepth(): Record<Priority, number> {
    const c = this.classes;
    return { lease: c.lease.queue.length, delete: c.delete.queue.length, status: c.status.queue.length, other: c.other.queue.length };
  }

  /** Requests waiting now, all classes together. */
  private waitingNow(): number {
    let n = 0;
    for (const p of PRIORITIES) n += this.classes[p].queue.length;
    return n;
  }

  /** Requests started and not yet settled, lease requests included. */
  inFlight(): number {
    return this.running;
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
      return { queued: c.queue.length, started: c.started, waitMs: c.waitMs, dropped: c.dropped };
    };
    return { lease: one('lease'), delete: one('delete'), status: one('status'), other: one('other') };
  }

  /** Starts as many waiting requests as tokens allow, highest class first; arms a timer for the rest. */
  private dispatch(): void {
    this.refill();
    for (;;) {
      const next = this.nextStartable();
      if (next === undefined) return; // nothing startable: only keys already running, or no slot (their end dispatches)
      if (this.tokens < 1) {
        this.armTimer();
        return;
      }
      const [c, index] = next;
      const waiting = index === 0 ? c.queue.shift() : c.queue.splice(index, 1)[0];
      if (!waiting) return;
      if (waiting.key !== undefined) this.waitingByKey.delete(waiting.key);
      this.tokens -= 1;
      c.started += 1;
      c.waitMs += this.clock.now() - waiting.enqueuedAt;
      waiting.start();
    }
  }

  /**
   * The first waiting request, by class then order, whose key (if any) is not running; while
   * every slot is taken, only a lease request.
   */
  private nextStartable(): [ClassState, number] | undefined {
    const full = this.running >= this.maxInFlight;
    for (const p of PRIORITIES) {
      const c = this.classes[p];
      if (c.queue.length === 0) continue;
      if (full && p !== 'lease') return undefined;
      if (this.runningKeys.size === 0) return [c, 0];
      const index = c.queue.findIndex((w) => w.key === undefined || !this.runningKeys.has(w.key));
      if (index >= 0) return [c, index];
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
