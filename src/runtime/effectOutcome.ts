/**
 * One effect's asynchronous work turned into the actor's own messages (XState's `fromPromise`):
 * it resolves (the `done` message), fails with a classified error (the `failed` message, carrying
 * the kind and a one-line message), or fails with anything else, which rejects the effect: the
 * runtime makes that a crash of the actor, the supervisor's business. Which errors are answers is
 * the classifier's call, made in one place per kind of call.
 *
 * `schedule`, the delayed self-message, is built in the same way: an actor's effect union may
 * carry a {@link Schedule} and {@link performWithSchedule} runs it, so no actor dispatches it by hand.
 *
 * Outcomes go through the incarnation-fenced `ctx.self` and timers through `ctx.schedule`, so an
 * outcome arriving after a crash or restart never reaches the new incarnation, and a timer dies
 * with the incarnation that set it.
 */
import { onAbort } from '../lib/abortFanOut.js';
import type { EffectContext } from './behavior.js';

/** A failure the actor expects and answers with a message. */
export interface Failure<K extends string = string> {
  readonly kind: K;
  /** One line, fit for a log or an Event. */
  readonly message: string;
  /** The server's Retry-After, when the error carries one. */
  readonly retryAfterMs?: number;
  /** The error itself, for anything more the actor reads from it (a provider's Event reason). */
  readonly error: unknown;
}

/** An answer (the failure) or a bug (undefined: the effect rejects and the actor crashes). */
export type Classifier<K extends string> = (error: unknown) => Failure<K> | undefined;

export interface Outcome<T, M, K extends string> {
  readonly classify: Classifier<K>;
  /** The message for the resolved value (undefined: nothing to report). */
  readonly done: (value: T) => M | undefined;
  /** The message for a classified failure (undefined: nothing to report). */
  readonly failed: (failure: Failure<K>) => M | undefined;
}

export interface ReportOptions {
  /**
   * The work's signal also aborts this long after it starts: the actor's own deadline (a
   * scheduled message of the same length) decides what a silent call means, and the call itself
   * is abandoned, so one still queued is never sent late beside its retry.
   */
  readonly deadlineMs?: number;
}

/**
 * `reportTo(ctx)(work, outcome)` runs `work` with the incarnation's signal and reports its outcome
 * to the actor. The promise rejects only with an unclassified error, so `perform` returns it.
 * (Curried so that the actor's message type is fixed by `ctx` before the callbacks are typed.)
 */
export function reportTo<M>(ctx: EffectContext<M>): <T, K extends string>(work: (signal: AbortSignal) => Promise<T>, outcome: Outcome<T, M, K>, options?: ReportOptions) => Promise<void> {
  return async function report<T, K extends string>(work: (signal: AbortSignal) => Promise<T>, outcome: Outcome<T, M, K>, options: ReportOptions = {}): Promise<void> {
    const attempt = options.deadlineMs === undefined ? undefined : attemptSignal(ctx, options.deadlineMs);
    const signal = attempt?.signal ?? ctx.signal;
    let value: T;
    try {
      value = await work(signal);
    } catch (error) {
      // Once the incarnation has ended, or the deadline passed, the error is most likely the abort itself: nobody to tell.
      if (signal.aborted) return;
      const failure = outcome.classify(error);
      if (failure === undefined) throw error;
      tell(ctx, outcome.failed(failure));
      return;
    } finally {
      attempt?.done();
    }
    tell(ctx, outcome.done(value));
  };
}

/** A signal that aborts with the incarnation or `ms` from now on the actor's clock; `done` drops both. */
function attemptSignal<M>(ctx: EffectContext<M>, ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = ctx.clock.setTimer(ms, () => controller.abort(new Error(`no answer within ${ms} ms`)));
  const leave = onAbort(ctx.signal, () => controller.abort(ctx.signal.reason));
  return {
    signal: controller.signal,
    done: () => {
      timer.cancel();
      leave();
    },
  };
}

function tell<M>(ctx: EffectContext<M>, msg: M | undefined): void {
  if (msg !== undefined) ctx.self.tell(msg);
}

/** The delayed self-message: `msg` is delivered after `ms`, unless the incarnation has ended by then. */
export interface Schedule<M> {
  readonly type: 'schedule';
  readonly ms: number;
  readonly msg: M;
}

export function schedule<M>(ms: number, msg: M): Schedule<M> {
  return { type: 'schedule', ms, msg };
}

/** An actor's effects without the ones the runtime runs itself. */
export type OwnEffect<E, M> = Exclude<E, Schedule<M>>;

/** Runs a `schedule` itself and hands every other effect to the actor's own runner. */
export function performWithSchedule<M, E extends { readonly type: string }>(
  effect: E,
  ctx: EffectContext<M>,
  perform: (effect: OwnEffect<E, M>) => Promise<void> | void,
): Promise<void> | void {
  if (isSchedule<M>(effect)) {
    ctx.schedule(effect.ms, effect.msg);
    return;
  }
  return perform(effect as OwnEffect<E, M>);
}

/** `perform` with `schedule` built in, for behaviours that take a function. */
export function withSchedule<M, E extends { readonly type: string }>(
  perform: (effect: OwnEffect<E, M>, ctx: EffectContext<M>) => Promise<void> | void,
): (effect: E, ctx: EffectContext<M>) => Promise<void> | void {
  return (effect, ctx) => performWithSchedule(effect, ctx, (own) => perform(own, ctx));
}

function isSchedule<M>(effect: { readonly type: string }): effect is Schedule<M> {
  return effect.type === 'schedule';
}
