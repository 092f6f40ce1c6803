/**
 * A self-healing list+watch over client-node's `ListWatch`, the engine behind PodWatch and
 * NodeWatch.
 *
 * What client-node 1.4's ListWatch does by itself: re-lists after a 410 (and emits deletes for
 * what vanished), and reconnects from the last resourceVersion when a stream ends normally.
 * What it does not, and this class adds:
 * - Any other error (HTTP 5xx, ECONNRESET, a failed list) emits `error` and stops it for good.
 *   Here every such error schedules a restart with exponential backoff (reset after a quiet
 *   period), as a fresh ListWatch, i.e. a full re-list.
 * - `ListWatch.stop()` itself emits an `error` ("The user aborted a request."). Each ListWatch
 *   belongs to a generation; callbacks from an old generation or after `stop()` are ignored, so
 *   stopping never triggers a restart.
 * - A watch can stall silently (half-open connection). A watchdog restarts the watch when no
 *   event, (re)connect or successful list was seen for `watchdogMs`. On a quiet node this costs
 *   one list per watchdog period.
 * - A periodic resync lists again and emits synthetic events for anything the watch missed.
 * - `Watch.watch` rejects (instead of calling `done`) when building the request fails (e.g. an
 *   exec credential plugin fails); inside ListWatch's reconnect path that rejection would be
 *   unhandled and kill the process. The Watch used here turns it into a `done(err)`.
 * - Nothing is unbounded: a list (initial or resync) that has not finished within
 *   `listTimeoutMs` fails (so a resync that hangs cannot stop the resyncs for good), and a watch
 *   whose response headers have not arrived within `connectTimeoutMs` fails and is restarted.
 */
import { backoffDelay, backoffPolicy } from '../../lib/backoff.js';
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { ListWatch, Watch } from '@kubernetes/client-node';
import { Subject, type Observable } from 'rxjs';
import type { Clock, Timer } from '../../lib/clock.js';
import { callWithDeadline, DeadlineExceededError } from '../../lib/callWithDeadline.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../../lib/lifecycle.js';
import { describeApiError } from './errors.js';
import type { KubeLog } from './log.js';
import type { Change, Versioned } from './watchCache.js';
import { WatchCache } from './watchCache.js';

/** One complete list (all pages) and the resourceVersion it was taken at. */
export interface ListResult<T> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
}

export type EngineEvent<T> = Change<T> | { readonly type: 'synced' } | { readonly type: 'error'; readonly error: Error };

export interface WatchTiming {
  /** First restart delay after an error (default 1 s). */
  readonly initialBackoffMs?: number;
  /** Longest restart delay (default 30 s). */
  readonly maxBackoffMs?: number;
  /** A generation that stayed up this long resets the backoff (default 60 s). */
  readonly backoffResetMs?: number;
  /** Random spread of each delay, 0..1 (default 0.2). */
  readonly jitter?: number;
  /** Restart when nothing was heard for this long (default 5 min). */
  readonly watchdogMs?: number;
  /** Full re-list period (default 10 min). */
  readonly resyncMs?: number;
  /** A whole list (every page) that takes longer fails (default 2 min). */
  readonly listTimeoutMs?: number;
  /** A watch request whose response has not begun within this fails (default 15 s). */
  readonly connectTimeoutMs?: number;
  /** For tests: replaces Math.random in the jitter. */
  readonly random?: () => number;
}

export interface CachedListWatchOptions<T> extends WatchTiming {
  readonly kubeConfig: KubeConfig;
  /** API path of the collection, e.g. `/api/v1/pods`. */
  readonly path: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
  /** Lists with the same selectors (and through the rate limiter). */
  readonly list: () => Promise<ListResult<T>>;
  readonly clock: Clock;
  readonly log: KubeLog;
  /** Names the watch in logs and errors, e.g. "pods on node vk-1". */
  readonly description: string;
  /**
   * Applied to every object (listed or watched) before anything caches it, client-go's
   * `SetTransform`: e.g. `withoutManagedFields`. May change the object in place.
   */
  readonly transform?: (obj: T) => T;
}

/**
 * What readers of a list-watch use: its events and its cache (a seam for unit tests). The one
 * lifecycle (src/lib/lifecycle.ts): `start()` (idempotent) begins it, `ready` settles at the first
 * full list, `stop()` ends it for good (no more restarts, `events` completes). It never fails on
 * its own: errors restart it.
 */
export interface ListWatchSource<T> extends Lifecycle {
  readonly events: Observable<EngineEvent<T>>;
  start(): void;
  hasSynced(): boolean;
  /** By `namespace/name` (or `name` for cluster-scoped objects). */
  get(key: string): T | undefined;
  list(): T[];
}

export class CachedListWatch<T extends KubernetesObject & Versioned> implements ListWatchSource<T> {
  readonly events = new Subject<EngineEvent<T>>();
  readonly ready: Promise<void>;
  readonly done: Promise<void>;
  private readonly life: LifecycleControl;
  private readonly cache = new WatchCache<T>();
  private readonly t: Required<Omit<WatchTiming, 'random'>> & { random: () => number };
  private generation = 0;
  private current: ListWatch<T> | undefined;
  private started = false;
  private stopping = false;
  private synced = false;
  private failures = 0;
  private generationStartedAt = 0;
  private lastActivity = 0;
  private restartTimer: Timer | undefined;
  private watchdogTimer: Timer | undefined;
  private resyncTimer: Timer | undefined;

  constructor(private readonly o: CachedListWatchOptions<T>) {
    this.t = {
      initialBackoffMs: o.initialBackoffMs ?? 1_000,
      maxBackoffMs: o.maxBackoffMs ?? 30_000,
      backoffResetMs: o.backoffResetMs ?? 60_000,
      jitter: o.jitter ?? 0.2,
      watchdogMs: o.watchdogMs ?? 5 * 60_000,
      resyncMs: o.resyncMs ?? 10 * 60_000,
      listTimeoutMs: o.listTimeoutMs ?? 2 * 60_000,
      connectTimeoutMs: o.connectTimeoutMs ?? 15_000,
      random: o.random ?? Math.random,
    };
    this.life = new LifecycleControl({ clock: o.clock, release: () => this.release() });
    this.ready = this.life.ready;
    this.done = this.life.done;
  }

  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    this.startGeneration();
    this.armResync();
  }

  stop(options?: StopOptions): Promise<StopOutcome> {
    return this.life.stop(options);
  }

  private release(): void {
    this.stopping = true;
    for (const timer of [this.restartTimer, this.watchdogTimer, this.resyncTimer]) timer?.cancel();
    this.retireCurrent();
    this.events.complete();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  list(): T[] {
    return this.cache.values();
  }

  private startGeneration(): void {
    const gen = ++this.generation;
    this.generationStartedAt = this.o.clock.now();
    this.lastActivity = this.o.clock.now();
    const lw = new ListWatch<T>(
      this.o.path,
      new SafeWatch(this.o.kubeConfig, this.o.clock, this.t.connectTimeoutMs, this.o.transform as ((obj: unknown) => unknown) | undefined),
      () => this.listFor(gen),
      false,
      this.o.labelSelector,
      this.o.fieldSelector,
    );
    const live = (): boolean => gen === this.generation && !this.stopping;
    lw.on('add', (obj) => live() && this.apply(this.cache.upsert(obj)));
    lw.on('update', (obj) => live() && this.apply(this.cache.upsert(obj)));
    lw.on('delete', (obj) => live() && this.apply(this.cache.remove(obj)));
    lw.on('connect', () => live() && this.touch());
    lw.on('error', (err: unknown) => live() && this.onError(err));
    this.current = lw;
    lw.start().catch((err: unknown) => live() && this.onError(err));
    this.armWatchdog();
  }

  /** The list function handed to ListWatch: reconciles our cache first, then reports 'synced'. */
  private async listFor(gen: number): Promise<KubernetesListObject<T>> {
    const listed = await this.boundedList();
    const transform = this.o.transform;
    const result = transform ? { ...listed, items: listed.items.map((obj) => transform(obj)) } : listed;
    if (gen === this.generation && !this.stopping) {
      this.touch();
      this.emitList(result);
    }
    return { metadata: { resourceVersion: result.resourceVersion }, items: [...result.items] };
  }

  private emitList(result: ListResult<T>): void {
    this.apply(this.cache.replace(result.items, result.resourceVersion));
    this.synced = true;
    this.life.markReady();
    this.events.next({ type: 'synced' });
  }

  private apply(changes: Change<T>[]): boolean {
    this.touch();
    for (const c of changes) this.events.next(c);
    return true;
  }

  private touch(): boolean {
    this.lastActivity = this.o.clock.now();
    return true;
  }

  private onError(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    this.o.log.warn('watch failed; restarting with backoff', {
      watch: this.o.description,
      error: describeApiError(err),
    });
    this.events.next({ type: 'error', error });
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    this.retireCurrent();
    this.restartTimer?.cancel();
    if (this.o.clock.now() - this.generationStartedAt >= this.t.backoffResetMs) this.failures = 0;
    const backoff = backoffPolicy(this.t.initialBackoffMs, this.t.maxBackoffMs, { jitter: this.t.jitter });
    const delay = backoffDelay(backoff, this.failures, this.t.random);
    this.failures += 1;
    this.restartTimer = this.o.clock.setTimer(delay, () => {
      this.restartTimer = undefined;
      if (!this.stopping) this.startGeneration();
    });
  }

  /** Detaches and stops the current ListWatch; its abort `error` lands in a dead generation. */
  private retireCurrent(): void {
    this.generation += 1;
    this.watchdogTimer?.cancel();
    const lw = this.current;
    this.current = undefined;
    lw?.stop().catch(() => undefined);
  }

  private armWatchdog(): void {
    this.watchdogTimer?.cancel();
    const gen = this.generation;
    const due = this.lastActivity + this.t.watchdogMs - this.o.clock.now();
    this.watchdogTimer = this.o.clock.setTimer(Math.max(0, due), () => {
      if (gen !== this.generation || this.stopping) return;
      const quietFor = this.o.clock.now() - this.lastActivity;
      if (quietFor < this.t.watchdogMs) {
        this.armWatchdog();
        return;
      }
      this.o.log.warn('watch heard nothing; restarting', { watch: this.o.description, quietMs: quietFor });
      this.retireCurrent();
      this.startGeneration();
    });
  }

  private armResync(): void {
    this.resyncTimer = this.o.clock.setTimer(this.t.resyncMs, () => {
      if (this.stopping) return;
      void this.resync().then(() => {
        if (!this.stopping) this.armResync();
      });
    });
  }

  /** The list, failing with a DeadlineExceededError once listTimeoutMs has passed. */
  private boundedList(): Promise<ListResult<T>> {
    return callWithDeadline(this.o.clock, this.t.listTimeoutMs, undefined, () => this.o.list());
  }

  private async resync(): Promise<void> {
    try {
      const result = await this.boundedList();
      if (!this.stopping) this.emitList(result);
    } catch (err) {
      this.o.log.warn('watch resync list failed', { watch: this.o.description, error: describeApiError(err) });
      if (!this.stopping) this.events.next({ type: 'error', error: err instanceof Error ? err : new Error(String(err)) });
    }
  }
}

/**
 * A Watch whose request-building failures reach `done` instead of rejecting unobserved, and whose
 * connection fails (`done` with a DeadlineExceededError) when the response has not begun within
 * `connectTimeoutMs`: client-node's Watch has no connect timeout, and the request is built inside
 * it, so the deadline is a timer here and the late request is aborted once it is handed back.
 */
class SafeWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly clock: Clock,
    private readonly connectTimeoutMs: number,
    /** Applied to each watched object before ListWatch (which caches it too) sees it. */
    private readonly transform: ((obj: unknown) => unknown) | undefined,
  ) {
    super(config);
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    let finished = false;
    let timedOut = false;
    const doneOnce = (err: unknown): void => {
      if (finished) return;
      finished = true;
      done(err);
    };
    const timer = this.clock.setTimer(this.connectTimeoutMs, () => {
      timedOut = true;
      doneOnce(new DeadlineExceededError(this.connectTimeoutMs));
    });
    try {
      const transform = this.transform;
      const shaped = transform ? (phase: string, apiObj: unknown, watchObj?: unknown): void => callback(phase, isObject(apiObj) ? transform(apiObj) : apiObj, watchObj) : callback;
      const controller = await super.watch(path, queryParams, shaped, doneOnce);
      timer.cancel();
      if (timedOut) controller.abort();
      return controller;
    } catch (err) {
      timer.cancel();
      doneOnce(err);
      return new AbortController();
    }
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
