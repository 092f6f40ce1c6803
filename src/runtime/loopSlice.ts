import { performance } from 'node:perf_hooks';

/**
 * A time budget for one stretch of back-to-back actor messages, so that timers (every node's
 * Lease renewal among them) are never held up by more than about one budget of actor work.
 *
 * nact handles each message of each actor in a `setImmediate` of its own, and Node runs every
 * immediate already queued in one go before it looks at its timers again: with 2,000 pod actors
 * busy at once (a storm on one virtual node), one loop turn is one message of each, hundreds of
 * ms, and every other node's renewal timer waits for all of it. The slice counts the time spent
 * in handlers since the loop was last idle; once it is past the budget, the next handler waits
 * for the next loop turn (one shared `setImmediate`, after the timers and I/O phases), where a
 * new slice starts. Messages of one actor stay in order (nact waits for the handler); messages of
 * different actors never had an order.
 */
export interface LoopSliceOptions {
  /** How long one stretch of actor work may hold the loop before it yields a turn. */
  readonly budgetMs: number;
  /** Where the slice reads the time: the real one, not a simulated clock (tests inject one). */
  readonly now?: () => number;
}

/** Handlers that start within this of the last one's end belong to the same stretch. */
const IDLE_GAP_MS = 1;

export const DEFAULT_LOOP_SLICE_MS = 10;

export class LoopSlice {
  private readonly budgetMs: number;
  private readonly now: () => number;
  private startedAt = 0;
  private lastEnd = Number.NEGATIVE_INFINITY;
  private turn: Promise<void> | undefined;
  /** How many times a stretch of actor work was cut for a loop turn (for the bench and tests). */
  yields = 0;

  constructor(options: LoopSliceOptions) {
    this.budgetMs = options.budgetMs;
    this.now = options.now ?? ((): number => performance.now());
  }

  /**
   * Undefined: the handler may run now (and calls `end()` when it returns). A promise: wait for
   * it, then ask again (the new turn's slice may be used up by the handlers that went first).
   */
  enter(): Promise<void> | undefined {
    if (this.turn) return this.turn;
    const now = this.now();
    if (now - this.lastEnd > IDLE_GAP_MS) this.startedAt = now;
    if (now - this.startedAt < this.budgetMs) return undefined;
    this.yields++;
    this.turn = new Promise<void>((resolve) =>
      setImmediate(() => {
        this.turn = undefined;
        this.startedAt = this.now();
        this.lastEnd = this.startedAt;
        resolve();
      }),
    );
    return this.turn;
  }

  end(): void {
    this.lastEnd = this.now();
  }
}
