/**
 * The one lifecycle of Tether's long-lived parts (the agent, a virtual node, watches, providers,
 * servers and their certificates, node locks, API clients), after virtual-kubelet's Run/Ready/Done/Err:
 *
 * - it is started by its factory (`startX(...)`) or by `start()`, which is idempotent;
 * - `ready` settles once it does its work (a watch has listed, a server listens), and rejects
 *   if it never will;
 * - `done` settles once it has stopped for good: resolves after `stop()`, rejects with the
 *   error that ended it otherwise;
 * - `stop({ deadlineMs })` is idempotent and never rejects: it answers `clean` when everything
 *   was released in time, `timeout` when the deadline passed first (the release goes on behind).
 *   A part may take more stop options (the agent: whether to delete its Nodes); the first call's
 *   options are the ones that count. What went wrong while releasing is reported
 *   (`onReleaseFailed`), never lost; the parts a component owns are stopped with `stopParts`.
 */
import type { Clock } from './clock.js';
import { errorMessage } from './errorMessage.js';

export type StopOutcome = 'clean' | 'timeout';

export interface StopOptions {
  /** How long `stop` waits for the release before answering `timeout`. */
  readonly deadlineMs?: number;
}

export interface Lifecycle {
  readonly ready: Promise<void>;
  readonly done: Promise<void>;
  stop(options?: StopOptions): Promise<StopOutcome>;
}

export interface LifecycleOptions {
  readonly clock: Clock;
  /** Releases what the part holds; may be slow, may throw (a throw still counts as stopped). */
  readonly release: () => Promise<void> | void;
  /** The deadline of a `stop()` that names none. */
  readonly defaultDeadlineMs?: number;
  /** Told what the release threw or rejected with (the part counts as stopped all the same). */
  readonly onReleaseFailed?: (error: unknown) => void;
}

/** What a component owns and stops with itself: a watch, a reflector, a pool, a child Lifecycle. */
export interface StoppablePart {
  stop(): unknown;
}

/**
 * One part per entry, named `<key> <suffix>`: the subscription ends first, so nothing reacts to
 * what the watch emits while it stops, then the watch stops.
 */
export function subscribedWatchParts(
  entries: Readonly<Record<string, { readonly watch: StoppablePart; readonly subscription: { unsubscribe(): void } }>>,
  suffix: string,
): Record<string, StoppablePart> {
  return Object.fromEntries(Object.entries(entries).map(([key, { watch, subscription }]) => [`${key} ${suffix}`, {
    stop: () => {
      subscription.unsubscribe();
      return watch.stop();
    },
  }]));
}

/**
 * Stops every part, in order, each even when one before it threw, and waits for those that
 * answer with a promise. Rejects afterwards with an AggregateError naming each part that failed,
 * so one broken part neither keeps the others running nor hides its error.
 */
export async function stopParts(parts: Readonly<Record<string, StoppablePart>>): Promise<void> {
  const stops = Object.entries(parts).map(([name, part]) => {
    try {
      return Promise.resolve(part.stop()).then(() => undefined, (error: unknown) => ({ name, error }));
    } catch (error) {
      return Promise.resolve({ name, error });
    }
  });
  const failed = (await Promise.all(stops)).filter((f) => f !== undefined);
  if (failed.length === 0) return;
  const detail = failed.map(({ name, error }) => `${name} (${errorMessage(error)})`).join(', ');
  throw new AggregateError(failed.map((f) => f.error), `stopping failed: ${detail}`);
}

/**
 * The bookkeeping behind a {@link Lifecycle}, so that each part only says when it is ready, when
 * it failed, and how it releases. Promises it hands out never reject unobserved.
 */
export class LifecycleControl implements Lifecycle {
  readonly ready: Promise<void>;
  readonly done: Promise<void>;
  private settleReady: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  private settleDone: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  private stopping: Promise<StopOutcome> | undefined;

  constructor(private readonly options: LifecycleOptions) {
    this.ready = new Promise((resolve, reject) => {
      this.settleReady = { resolve, reject };
    });
    this.done = new Promise((resolve, reject) => {
      this.settleDone = { resolve, reject };
    });
    // A caller that never looks at `ready` or `done` must not see an unhandled rejection.
    this.ready.catch(() => undefined);
    this.done.catch(() => undefined);
  }

  private finish(): void {
    this.settleDone?.resolve();
    this.settleDone = undefined;
  }

  /** True once `stop()` was called. */
  get stopRequested(): boolean {
    return this.stopping !== undefined;
  }

  markReady(): void {
    this.settleReady?.resolve();
    this.settleReady = undefined;
  }

  /** It ended on its own, with `error`: `ready` (if still pending) and `done` reject with it. */
  fail(error: unknown): void {
    // Once stopping, the part ends as stopped: what its stop shook loose is no failure.
    if (this.stopping) return;
    this.settleReady?.reject(error);
    this.settleReady = undefined;
    this.settleDone?.reject(error);
    this.settleDone = undefined;
  }

  stop(options: StopOptions = {}): Promise<StopOutcome> {
    if (this.stopping) return this.stopping;
    const deadlineMs = options.deadlineMs ?? this.options.defaultDeadlineMs ?? 10_000;
    this.settleReady?.reject(new Error('stopped before it was ready'));
    this.settleReady = undefined;
    // The release starts now: a stopped part lets go at once. A synchronous release is done
    // before stop() returns (no deadline timer is left behind).
    let result: Promise<void> | void;
    try {
      result = this.options.release();
    } catch (error) {
      result = undefined; // a failed release still ends the part: nothing is left to retry it with
      this.options.onReleaseFailed?.(error);
    }
    if (!(result instanceof Promise)) {
      this.finish();
      this.stopping = Promise.resolve('clean');
      return this.stopping;
    }
    const released = result.catch((error: unknown) => this.options.onReleaseFailed?.(error)).then(() => this.finish());
    this.stopping = new Promise<StopOutcome>((resolve) => {
      const timer = this.options.clock.setTimer(deadlineMs, () => resolve('timeout'));
      void released.then(() => {
        timer.cancel();
        resolve('clean');
      });
    });
    return this.stopping;
  }
}
