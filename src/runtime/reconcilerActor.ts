/**
 * The reconcile primitive: a `Reconciler` (src/lib/reconcile.ts) run as an ordinary worker actor
 * (`ActorBehavior`, so a WorkerCell under a supervisor, in the live tree, restarted by policy).
 * controller-runtime's controller loop in actor form; the bookkeeping is `reconcileQueue.ts`.
 *
 * What a reconcile may assume:
 * - it is never called twice at once for one key; at most `maxInFlight` keys run at once;
 * - it is level-based: the key is all it is told (and how often it failed since its last
 *   success), so it reads the current truth; an event's copy of an object is never handed over;
 * - its `signal` aborts at its deadline (`deadlineMs`) and when the incarnation ends.
 *
 * What each outcome means:
 * - `done`: the key's failures are forgotten; it runs again when enqueued (or at a resync);
 * - `requeue-after(ms)`: as done, and it runs again after `ms` (sooner if enqueued);
 * - `error` transient: retried after the key's backoff (exponential, jitter, capped); events
 *   meanwhile do not cut the wait short; permanent: kept as failing, retried only when enqueued;
 * - past its deadline: counted as a transient error, whatever it answers later;
 * - a throw or rejection (unclassified), or a reconcile still unsettled `abandonAfterMs` after its
 *   deadline: a crash of the reconciler, for its supervisor.
 *
 * Ordering: a key enqueued while queued runs once; enqueued while running, it runs once more after
 * that run (so the last enqueue is always followed by a reconcile that starts after it). Keys run
 * in the order they became ready; there is no order between keys beyond that.
 *
 * What a crash costs: the queue, the backoffs and the failure records (they live in the
 * incarnation). Every incarnation connects its event source and reads `keys()` first, so every
 * known key is reconciled again after a restart; events sent between the crash and the restart
 * are dropped and covered by that listing. A reconcile still running from the old incarnation has
 * its signal aborted and its answer dropped.
 */
import { onAbort } from '../lib/abortFanOut.js';
import type { Timer } from '../lib/clock.js';
import { defaultReconcilerSettings, type ReconcileResult, type Reconciler, type ReconcilerSettings } from '../lib/reconcile.js';
import type { ActorBehavior, EffectContext, StateSummary, Transition } from './behavior.js';
import { ReconcileQueue } from './reconcileQueue.js';
import { when } from '../lib/defaults.js';

export type ReconcilerMsg =
  | { readonly type: 'reconcile.enqueue'; readonly key: string; readonly afterMs?: number | undefined }
  | { readonly type: 'reconcile.listed'; readonly keys: readonly string[] }
  | { readonly type: 'reconcile.finished'; readonly key: string; readonly result: ReconcileResult }
  | { readonly type: 'reconcile.wake' };

export type ReconcilerEffect =
  | { readonly type: 'connect' }
  | { readonly type: 'list' }
  | { readonly type: 'run'; readonly key: string; readonly failures: number }
  | { readonly type: 'wake'; readonly afterMs: number };

export interface ReconcilerState {
  readonly queue: ReconcileQueue;
  /** Keys the level source named at its last listing. */
  readonly known: number;
  readonly resyncs: number;
  readonly resyncAt: number;
  /** The earliest wake already scheduled. */
  readonly wakeAt: number | undefined;
}

/** Thrown by a reconcile that ignored its signal for `abandonAfterMs` past its deadline: a crash. */
export class AbandonedReconcile extends Error {
  constructor(key: string, settings: ReconcilerSettings) {
    super(`reconcile of ${key} did not settle within ${settings.abandonAfterMs} ms after its ${settings.deadlineMs} ms deadline`);
    this.name = 'AbandonedReconcile';
  }
}

export function resolveReconcilerSettings(partial: Partial<ReconcilerSettings> = {}): ReconcilerSettings {
  const settings = { ...defaultReconcilerSettings, ...partial };
  const positive = (value: number): boolean => Number.isFinite(value) && value > 0;
  if (!Number.isInteger(settings.maxInFlight) || settings.maxInFlight < 1) throw new Error(`reconciler maxInFlight must be a positive integer, got ${settings.maxInFlight}`);
  for (const field of ['resyncMs', 'deadlineMs', 'abandonAfterMs'] as const) {
    if (!positive(settings[field])) throw new Error(`reconciler ${field} must be a positive number, got ${settings[field]}`);
  }
  return settings;
}

export function reconcilerActor(reconciler: Reconciler): ActorBehavior<ReconcilerState, ReconcilerMsg, ReconcilerEffect> {
  const settings = resolveReconcilerSettings(reconciler.settings);
  type Next = Transition<ReconcilerState, ReconcilerEffect>;

  /** Starts what may start, and makes sure a wake is scheduled for the earliest due time. */
  const pump = (state: ReconcilerState, now: number, effects: ReconcilerEffect[] = []): Next => {
    for (const { key, failures } of state.queue.start(settings.maxInFlight)) effects.push({ type: 'run', key, failures });
    const due = state.queue.nextDue();
    const next = due === undefined ? state.resyncAt : Math.min(due, state.resyncAt);
    if (state.wakeAt !== undefined && state.wakeAt <= next) return { state, effects };
    effects.push({ type: 'wake', afterMs: Math.max(0, next - now) });
    return { state: { ...state, wakeAt: next }, effects };
  };

  return {
    kind: reconciler.kind ?? 'reconciler',
    initialState: () => ({ queue: new ReconcileQueue(settings.backoff), known: 0, resyncs: 0, resyncAt: 0, wakeAt: undefined }),
    // Every incarnation starts from the level source: connect the events first, then list.
    onStart: (state, now) => pump({ ...state, resyncAt: now + settings.resyncMs }, now, [{ type: 'connect' }]),
    decide(state, msg, now): Next {
      switch (msg.type) {
        case 'reconcile.enqueue':
          state.queue.enqueue(msg.key, now, msg.afterMs ?? 0);
          return pump(state, now);
        case 'reconcile.listed':
          state.queue.resync(msg.keys, now);
          return pump({ ...state, known: msg.keys.length }, now);
        case 'reconcile.finished':
          state.queue.complete(msg.key, msg.result, now);
          return pump(state, now);
        case 'reconcile.wake': {
          state.queue.due(now);
          const resync = now >= state.resyncAt;
          const woken = { ...state, wakeAt: undefined, ...when(resync, () => ({ resyncAt: now + settings.resyncMs, resyncs: state.resyncs + 1 })) };
          return pump(woken, now, resync ? [{ type: 'list' }] : []);
        }
      }
    },
    async perform(effect, ctx): Promise<void> {
      switch (effect.type) {
        case 'connect': {
          const disconnect = reconciler.connect((key, afterMs) => ctx.self.tell({ type: 'reconcile.enqueue', key, afterMs }));
          onAbort(ctx.signal, disconnect);
          ctx.self.tell({ type: 'reconcile.listed', keys: await reconciler.keys() });
          return;
        }
        case 'list':
          ctx.self.tell({ type: 'reconcile.listed', keys: await reconciler.keys() });
          return;
        case 'run':
          await runOne(reconciler, settings, effect.key, effect.failures, ctx);
          return;
        case 'wake':
          ctx.schedule(effect.afterMs, { type: 'reconcile.wake' });
          return;
      }
    },
    summarize: (state) => summarize(state),
  };
}

function summarize(state: ReconcilerState): StateSummary {
  const counts = state.queue.counts;
  const failing = state.queue.failingKeys(3);
  const last = state.queue.lastError;
  return {
    keys: state.known,
    queued: counts.ready + counts.dirty,
    inFlight: counts.running,
    waiting: counts.waiting,
    failing: counts.failing,
    failingKeys: failing.length === 0 ? null : failing.join(', ') + (counts.failing > failing.length ? ` (+${counts.failing - failing.length})` : ''),
    lastError: last ? `${last.key}: ${last.message}` : null,
    lastErrorAt: last ? new Date(last.at).toISOString() : null,
    resyncs: state.resyncs,
  };
}

type Settled = { readonly ok: true; readonly result: ReconcileResult } | { readonly ok: false; readonly error: unknown } | { readonly ok: 'abandoned' } | { readonly ok: 'ended' };

/** One reconcile under its deadline; reports its outcome, or rejects (a crash) for a bug. */
async function runOne(reconciler: Reconciler, settings: ReconcilerSettings, key: string, failures: number, ctx: EffectContext<ReconcilerMsg>): Promise<void> {
  if (ctx.signal.aborted) return;
  const controller = new AbortController();
  const timers: Timer[] = [];
  let overdue = false;
  let leave = (): void => undefined;
  const outcome = await new Promise<Settled>((resolve) => {
    leave = onAbort(ctx.signal, () => {
      controller.abort(ctx.signal.reason);
      resolve({ ok: 'ended' });
    });
    timers.push(ctx.clock.setTimer(settings.deadlineMs, () => {
      overdue = true;
      controller.abort(new Error(`deadline of ${settings.deadlineMs} ms exceeded`));
    }));
    timers.push(ctx.clock.setTimer(settings.deadlineMs + settings.abandonAfterMs, () => resolve({ ok: 'abandoned' })));
    let call: Promise<ReconcileResult>;
    try {
      call = reconciler.reconcile(key, { signal: controller.signal, failures });
    } catch (error) {
      resolve({ ok: false, error });
      return;
    }
    call.then((result) => resolve({ ok: true, result }), (error: unknown) => resolve({ ok: false, error }));
  });
  leave();
  for (const timer of timers) timer.cancel();
  if (outcome.ok === 'ended') return; // the incarnation is gone; its answer would be dropped anyway
  if (outcome.ok === 'abandoned') throw new AbandonedReconcile(key, settings);
  if (overdue) {
    ctx.self.tell({ type: 'reconcile.finished', key, result: { type: 'error', kind: 'transient', message: `deadline of ${settings.deadlineMs} ms exceeded` } });
    return;
  }
  if (!outcome.ok) throw outcome.error;
  ctx.self.tell({ type: 'reconcile.finished', key, result: outcome.result });
}
