import { backoffDelay } from '../lib/backoff.js';
import type { CrashDecision } from '../runtime/supervision.js';
import type { Intensity, RestartPolicy, RestartType } from './restartPolicy.js';

/** What a supervisor remembers about one child's restarts. */
export interface ChildLedger {
  /** When each restart within the current intensity window happened. */
  readonly restartTimes: readonly number[];
  /** Restarts since the child last ran quietly for `backoff.resetAfterMs`; drives the backoff. */
  readonly consecutive: number;
  /** When the child's current incarnation started. */
  readonly startedAt: number;
}

export type { CrashDecision } from '../runtime/supervision.js';

export interface CrashInput {
  readonly policy: RestartPolicy;
  readonly restartType: RestartType;
  readonly child: ChildLedger;
  readonly supervisorRestarts: readonly number[];
  readonly now: number;
  readonly random?: () => number;
}

export interface CrashOutcome {
  readonly decision: CrashDecision;
  readonly child: ChildLedger;
  readonly supervisorRestarts: readonly number[];
}

export const newLedger = (now: number): ChildLedger => ({ restartTimes: [], consecutive: 0, startedAt: now });

const within = (times: readonly number[], budget: Intensity, now: number): number[] =>
  times.filter((t) => now - t < budget.withinMs);

/**
 * Decides what a crash means, given the policy and the restart history. Pure: the supervisor
 * applies the outcome. Order matters: the supervisor-wide budget is checked first, because
 * exceeding it means the subtree as a whole is unhealthy, whichever child crashed last.
 */
export function decideOnCrash(input: CrashInput): CrashOutcome {
  const { policy, restartType, child, now } = input;
  if (restartType === 'temporary') {
    return {
      decision: { action: 'give-up', reason: 'a temporary child is never restarted' },
      child,
      supervisorRestarts: input.supervisorRestarts,
    };
  }
  const quiet = now - child.startedAt >= policy.backoff.resetAfterMs;
  const consecutive = quiet ? 0 : child.consecutive;
  const childTimes = policy.childIntensity ? [...within(child.restartTimes, policy.childIntensity, now), now] : [];
  const supTimes = policy.intensity ? [...within(input.supervisorRestarts, policy.intensity, now), now] : [];

  if (policy.intensity && supTimes.length > policy.intensity.maxRestarts) {
    const { maxRestarts, withinMs } = policy.intensity;
    return {
      decision: { action: 'escalate', reason: `more than ${maxRestarts} restarts within ${withinMs} ms in this supervisor` },
      child,
      supervisorRestarts: supTimes,
    };
  }
  if (policy.childIntensity && childTimes.length > policy.childIntensity.maxRestarts) {
    const { maxRestarts, withinMs } = policy.childIntensity;
    return {
      decision: { action: 'give-up', reason: `more than ${maxRestarts} restarts within ${withinMs} ms` },
      child: { ...child, restartTimes: childTimes },
      supervisorRestarts: supTimes,
    };
  }
  return {
    decision: {
      action: 'restart',
      delayMs: backoffDelay(policy.backoff, consecutive, input.random),
      siblings: policy.strategy === 'all-for-one',
    },
    child: { restartTimes: childTimes, consecutive: consecutive + 1, startedAt: now },
    supervisorRestarts: supTimes,
  };
}

/** Whether a child that finished normally (not a crash) is started again. */
export const restartsAfterNormalExit = (restartType: RestartType): boolean => restartType === 'permanent';

/** Crashes left before `budget` is exceeded, given the restarts recorded in its window (null: no budget). */
export function crashesLeft(times: readonly number[], budget: Intensity | undefined, now: number): number | null {
  if (!budget) return null;
  return Math.max(0, budget.maxRestarts - within(times, budget, now).length);
}
