/**
 * The bookkeeping of a reconcile loop, and nothing else: which keys are ready, running, dirty
 * (enqueued while running), waiting (a backoff or a requeue-after) and failing. Deterministic:
 * no clock, no timers, no randomness (a key's jitter is derived from the key and its failure
 * count), so `reconcilerActor.ts` decides with it and tests drive it event by event.
 *
 * It is a mutable object owned by one incarnation of one actor (never shared, thrown away with the
 * incarnation), rather than a value copied per message: a resync enqueues every known key, and a
 * copy per completion would make that quadratic.
 *
 * The rules (controller-runtime's workqueue, with one difference noted):
 * - a key is in at most one of ready / running; a key enqueued while ready is queued once;
 * - a key enqueued while running is marked dirty and becomes ready when its run completes;
 * - at most `maxInFlight` keys run at once; ready keys start in the order they became ready;
 * - a transient failure waits `backoffDelay(backoff, failures - 1)` with jitter, capped; an
 *   enqueue of a key waiting for its backoff does not cut the wait short (unlike
 *   controller-runtime): the retry reads the newest level anyway, and a hot key whose remote is
 *   failing costs one attempt per backoff step, not one per event;
 * - success (done or requeue-after) forgets the key's failures; a permanent failure is kept (the
 *   key shows as failing) but retried only when the key is enqueued again.
 */
import { backoffDelay, seededJitter, type BackoffPolicy } from '../lib/backoff.js';
import type { ReconcileResult } from '../lib/reconcile.js';

export interface KeyFailure {
  readonly count: number;
  readonly kind: 'transient' | 'permanent';
  readonly message: string;
  readonly at: number;
}

export interface Started {
  readonly key: string;
  readonly failures: number;
}

export class ReconcileQueue {
  /** Insertion-ordered: the first key is the next to start. */
  private readonly ready = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  /** Key to the time it becomes ready. */
  private readonly waiting = new Map<string, number>();
  private readonly failures = new Map<string, KeyFailure>();
  lastError: { readonly key: string; readonly message: string; readonly at: number } | undefined;

  constructor(private readonly backoff: BackoffPolicy) {}

  enqueue(key: string, now: number, afterMs = 0): void {
    if (afterMs > 0) {
      this.waitUntil(key, now + afterMs);
      return;
    }
    if (this.inBackoff(key)) return; // its retry is already due at the backoff's time
    this.waiting.delete(key);
    this.promote(key);
  }

  /** Every key of the level source; failure records of keys no longer known and not pending are dropped. */
  resync(keys: readonly string[], now: number): void {
    const known = new Set(keys);
    for (const key of keys) this.enqueue(key, now);
    for (const key of [...this.failures.keys()]) if (!known.has(key) && !this.pending(key)) this.failures.delete(key);
  }

  /** Keys whose wait has ended become ready (or dirty, if running). */
  due(now: number): void {
    for (const [key, at] of [...this.waiting]) {
      if (at > now) continue;
      this.waiting.delete(key);
      this.promote(key);
    }
  }

  /** Starts ready keys, up to `maxInFlight` running in all. */
  start(maxInFlight: number): Started[] {
    const started: Started[] = [];
    for (const key of this.ready) {
      if (this.running.size >= maxInFlight) break;
      this.ready.delete(key);
      this.running.add(key);
      started.push({ key, failures: this.failures.get(key)?.count ?? 0 });
    }
    return started;
  }

  complete(key: string, result: ReconcileResult, now: number): void {
    if (!this.running.delete(key)) return;
    const wasDirty = this.dirty.delete(key);
    switch (result.type) {
      case 'done':
        this.failures.delete(key);
        break;
      case 'requeue-after':
        this.failures.delete(key);
        if (!wasDirty) this.waitUntil(key, now + result.ms);
        break;
      case 'error': {
        const count = (this.failures.get(key)?.count ?? 0) + 1;
        this.failures.set(key, { count, kind: result.kind, message: result.message, at: now });
        this.lastError = { key, message: result.message, at: now };
        if (result.kind === 'transient') {
          this.waiting.set(key, now + backoffDelay(this.backoff, count - 1, seededJitter(`${key}:${count}`)));
          return; // dirty or not, the retry waits for the backoff
        }
        break;
      }
    }
    if (wasDirty) {
      this.waiting.delete(key);
      this.promote(key);
    }
  }

  /** When the earliest waiting key becomes ready; undefined when none waits. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const at of this.waiting.values()) if (next === undefined || at < next) next = at;
    return next;
  }

  isRunning(key: string): boolean {
    return this.running.has(key);
  }

  get counts(): { readonly ready: number; readonly running: number; readonly dirty: number; readonly waiting: number; readonly failing: number } {
    return { ready: this.ready.size, running: this.running.size, dirty: this.dirty.size, waiting: this.waiting.size, failing: this.failures.size };
  }

  /** The failing keys, oldest failure first, at most `limit`. */
  failingKeys(limit: number): string[] {
    return [...this.failures.entries()].sort((a, b) => a[1].at - b[1].at).slice(0, limit).map(([key]) => key);
  }

  private promote(key: string): void {
    if (this.running.has(key)) this.dirty.add(key);
    else this.ready.add(key);
  }

  private waitUntil(key: string, at: number): void {
    if (this.ready.has(key)) return;
    const current = this.waiting.get(key);
    if (current === undefined || at < current) this.waiting.set(key, at);
  }

  private inBackoff(key: string): boolean {
    return this.waiting.has(key) && this.failures.get(key)?.kind === 'transient';
  }

  private pending(key: string): boolean {
    return this.ready.has(key) || this.running.has(key) || this.waiting.has(key);
  }
}
