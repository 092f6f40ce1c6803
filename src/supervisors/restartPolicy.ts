/**
 * Restart policies are data. A supervisor reads its policy to decide what a crash of one of its
 * children means; nothing about supervision is scattered through actor handlers.
 *
 * Vocabulary from Erlang/OTP and Akka:
 * - strategy: `one-for-one` restarts only the crashed child; `all-for-one` restarts its siblings too.
 * - restart type: `permanent` children are always restarted (even after a normal exit),
 *   `transient` ones only after a crash, `temporary` ones never.
 * - intensity: more than `maxRestarts` restarts within `withinMs`. Tether has two budgets:
 *   `childIntensity` is each child's own (over it the child is given up: stopped and reported
 *   failed, its siblings untouched, which is what a poison pod needs), and `intensity` is the whole
 *   supervisor's (over it the supervisor stops its children and fails to its own parent, OTP style).
 * - backoff: exponential with jitter between restarts of one child, reset after a quiet period.
 */
import { backoffPolicy, type BackoffPolicy } from '../lib/backoff.js';
import { fieldChecks, type FieldPath, type FieldProblem } from '../lib/fieldProblem.js';
import type { RestartType } from '../runtime/supervision.js';

export type { RestartType } from '../runtime/supervision.js';
export type Strategy = 'one-for-one' | 'all-for-one';

export interface Intensity {
  readonly maxRestarts: number;
  readonly withinMs: number;
}

/** The backoff between restarts of one child, and the quiet period after which it starts over. */
export interface RestartBackoff extends BackoffPolicy {
  /** A child that has run this long without crashing starts again from `minMs`. */
  readonly resetAfterMs: number;
}

export interface RestartPolicy {
  readonly strategy: Strategy;
  /** Restart type for children that do not name their own. */
  readonly restart: RestartType;
  readonly childIntensity?: Intensity;
  readonly intensity?: Intensity;
  readonly backoff: RestartBackoff;
}

/**
 * Pod actors (one per pod, under their node's shards): a crash restarts only that pod's actor, with
 * backoff; a pod whose actor keeps crashing is given up alone. No budget escalates, so a poison pod
 * can never take down its node or its siblings.
 */
export const podRestartPolicy: RestartPolicy = {
  strategy: 'one-for-one',
  restart: 'transient',
  childIntensity: { maxRestarts: 5, withinMs: 60_000 },
  backoff: { ...backoffPolicy(200, 30_000), resetAfterMs: 120_000 },
};

/**
 * A virtual node's own subtree (the node actor, its lease actor, the pod shards): a crash restarts
 * the crashed child; if the subtree as a whole keeps crashing it fails to the root.
 */
export const nodeRestartPolicy: RestartPolicy = {
  strategy: 'one-for-one',
  restart: 'permanent',
  intensity: { maxRestarts: 10, withinMs: 60_000 },
  backoff: { ...backoffPolicy(500, 30_000), resetAfterMs: 300_000 },
};

/**
 * The root, whose children are whole virtual nodes: a failing node is restarted a few times, then
 * given up alone (the others keep running). Only a storm across all nodes at once exceeds the
 * root's own budget, and that is when the whole system cannot continue.
 */
export const rootRestartPolicy: RestartPolicy = {
  strategy: 'one-for-one',
  restart: 'permanent',
  childIntensity: { maxRestarts: 3, withinMs: 300_000 },
  intensity: { maxRestarts: 20, withinMs: 60_000 },
  backoff: { ...backoffPolicy(1_000, 60_000), resetAfterMs: 600_000 },
};

/** Lists every problem with a policy, naming the field; empty when the policy is sound. */
export function validateRestartPolicy(policy: RestartPolicy): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { check } = fieldChecks(problems);
  const nonNegative = (value: number, path: FieldPath): void => check(Number.isFinite(value) && value >= 0, path, 'a non-negative number', value);
  for (const [name, budget] of [['childIntensity', policy.childIntensity], ['intensity', policy.intensity]] as const) {
    if (!budget) continue;
    nonNegative(budget.maxRestarts, [name, 'maxRestarts']);
    check(Number.isFinite(budget.withinMs) && budget.withinMs > 0, [name, 'withinMs'], 'a positive number', budget.withinMs);
  }
  const b = policy.backoff;
  nonNegative(b.minMs, ['backoff', 'minMs']);
  nonNegative(b.maxMs, ['backoff', 'maxMs']);
  nonNegative(b.resetAfterMs, ['backoff', 'resetAfterMs']);
  check(b.factor >= 1, ['backoff', 'factor'], 'a number >= 1', b.factor);
  check(b.jitter >= 0 && b.jitter <= 1, ['backoff', 'jitter'], 'a fraction from 0 to 1', b.jitter);
  if (b.maxMs < b.minMs) problems.push({ path: ['backoff', 'maxMs'], message: `must not be below backoff.minMs (${b.minMs})` });
  return problems;
}
