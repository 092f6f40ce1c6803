import type { Clock } from '../lib/clock.js';

/**
 * The contract every worker actor implements: pure decisions, effects outside them.
 *
 * `decide` is a pure function of (state, message, now): it returns the next state and the effects
 * to run. The runtime runs each effect with `perform`, detached from the mailbox, so a slow API
 * call never blocks the actor; effects report results back as ordinary messages. A rejected
 * `perform` is a crash (the supervisor's business); an expected failure is a message.
 * `effectOutcome.ts` is the one helper that turns an async call into those messages (and runs
 * `schedule`, the delayed self-message), so each actor states only its messages and its classifier.
 */
export type SummaryValue = string | number | boolean | null;
export type StateSummary = Readonly<Record<string, SummaryValue>>;

export type Transition<S, E> =
  | { readonly state: S; readonly effects?: readonly E[]; readonly stop?: undefined }
  /** The actor has finished its job (a normal exit, not a crash). */
  | { readonly state: S; readonly stop: true };

export interface ActorRef<M> {
  readonly path: string;
  /** Fire and forget. Messages to a stopped actor are dropped and counted as dead letters. */
  tell(msg: M): void;
}

/** What an effect may do: talk back to its actor, set timers, and notice when it is obsolete. */
export interface EffectContext<M> {
  readonly self: ActorRef<M>;
  readonly clock: Clock;
  /** Aborted when this incarnation of the actor ends (crash, restart or stop). */
  readonly signal: AbortSignal;
  /** Delivers `msg` to the actor after `ms`, unless the incarnation has ended by then. */
  schedule(ms: number, msg: M): void;
}

export interface ActorBehavior<S, M, E> {
  /** A short name for this kind of actor (`pod`, `node`, `lease`), shown in the actor tree. */
  readonly kind: string;
  /** The state each incarnation starts from. Truth is re-read by `onStart`'s effects, not here. */
  initialState(): S;
  /** Runs first in every incarnation (first start and each restart), before any queued message. */
  onStart?(state: S, now: number): Transition<S, E>;
  decide(state: S, msg: M, now: number): Transition<S, E>;
  perform(effect: E, ctx: EffectContext<M>): Promise<void> | void;
  /** A few fields for the live actor tree; called only when someone looks. */
  summarize?(state: S): StateSummary;
}
