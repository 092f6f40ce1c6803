/**
 * The reconcile contract: what a keyed, level-based loop asks of the code that owns it
 * (controller-runtime's `Reconciler`, in Tether's words). Pure types and one tiny trigger, so that
 * providers (which may not import the runtime) define reconcilers, and the runtime runs them as
 * supervised actors (`src/runtime/reconcilerActor.ts`, whose module doc states the guarantees).
 *
 * - A key is a string naming one thing to keep in sync ("ConfigMap/shop/app-config"). It carries
 *   no state: `reconcile(key)` reads the truth (caches, watches) each time and acts on it.
 * - `keys()` is the level source: every key that may need work now. It is read at every start of
 *   the reconciler (first start and each restart) and at every resync, so a lost event, or a
 *   crash that lost the queue, costs one resync period at most, never a key.
 * - `connect(enqueue)` is the edge source: events (watch changes) enqueue the keys they touch.
 */
import { backoffPolicy, type BackoffPolicy } from './backoff.js';

/** What one reconcile of one key decided. */
export type ReconcileResult =
  /** In sync (or nothing to do): the key's backoff resets; it runs again only when enqueued. */
  | { readonly type: 'done' }
  /** In sync for now, look again after `ms` (a time-bound condition); the backoff resets. */
  | { readonly type: 'requeue-after'; readonly ms: number }
  /**
   * A classified failure. `transient` is retried with the key's backoff (exponential, jitter, a
   * cap); `permanent` is not retried until the key is enqueued again (its input changed).
   * Anything a reconcile throws instead is a bug: a crash of the reconciler, which its
   * supervisor restarts.
   */
  | { readonly type: 'error'; readonly kind: 'transient' | 'permanent'; readonly message: string };

export const done: ReconcileResult = { type: 'done' };

export const requeueAfter = (ms: number): ReconcileResult => ({ type: 'requeue-after', ms: Math.max(0, ms) });

export const reconcileError = (kind: 'transient' | 'permanent', message: string): ReconcileResult => ({ type: 'error', kind, message });

/** What one reconcile is told besides its key. */
export interface ReconcileContext {
  /** Aborts at the reconcile's deadline and when the reconciler's incarnation ends. */
  readonly signal: AbortSignal;
  /** Failures of this key since its last success (0 on a first try). */
  readonly failures: number;
}

export interface ReconcilerSettings {
  /** How many keys reconcile at once, across the reconciler (one per key always). */
  readonly maxInFlight: number;
  /** Each key's retry delays after transient failures; reset by a success. */
  readonly backoff: BackoffPolicy;
  /** Every known key (from `keys()`) is enqueued again this often. */
  readonly resyncMs: number;
  /** A reconcile's signal aborts after this long, and its outcome counts as a transient failure. */
  readonly deadlineMs: number;
  /**
   * A reconcile still unsettled this long after its deadline ignores its signal: that is a bug,
   * and the reconciler crashes (its restart re-lists every key) rather than leak a slot for good.
   */
  readonly abandonAfterMs: number;
}

export const defaultReconcilerSettings: ReconcilerSettings = {
  maxInFlight: 4,
  backoff: backoffPolicy(1_000, 5 * 60_000),
  resyncMs: 5 * 60_000,
  deadlineMs: 60_000,
  abandonAfterMs: 30_000,
};

/** Enqueues `key`, now or after `afterMs` (coalesced with any earlier request for it). */
export type Enqueue = (key: string, afterMs?: number) => void;

export interface Reconciler {
  /** Path-safe and unique among the node's reconcilers: the actor's name in the tree. */
  readonly name: string;
  /** Shown as the actor's kind in the tree; default `reconciler`. */
  readonly kind?: string;
  readonly settings?: Partial<ReconcilerSettings>;
  /** Level-based: read the truth for `key`, act, say what happened. Must honour `ctx.signal`. */
  reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult>;
  /** Every key that may need work (a read of caches; a rejection is a crash). */
  keys(): readonly string[] | Promise<readonly string[]>;
  /** Starts delivering events to `enqueue`; returns what stops it. Called once per incarnation. */
  connect(enqueue: Enqueue): () => void;
}

/**
 * The edge source most reconcilers need: the owner calls `enqueue` from its event handlers; the
 * current incarnation of the reconciler receives them. Enqueues while no incarnation is
 * connected (between a crash and its restart) are dropped: the restart re-lists every key.
 */
export interface ReconcileTrigger {
  readonly enqueue: Enqueue;
  readonly connect: (enqueue: Enqueue) => () => void;
}

export function reconcileTrigger(): ReconcileTrigger {
  let target: Enqueue | undefined;
  return {
    enqueue: (key, afterMs) => target?.(key, afterMs),
    connect: (enqueue) => {
      target = enqueue;
      return () => {
        if (target === enqueue) target = undefined;
      };
    },
  };
}
