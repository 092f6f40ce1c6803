/**
 * A problem with one field of a configuration, as data: validators return these, and whoever
 * shows them (the config loader, `tether validate`) formats the path in its own terms. Paths are
 * never parsed back out of message text.
 */
import type { BackoffPolicy } from './backoff.js';

export type FieldPath = readonly (string | number)[];

export interface FieldProblem {
  readonly path: FieldPath;
  readonly message: string;
}

/** The same problems, one level down: `under(['lease'], [{path: ['namespace'], …}])`. */
export function under(prefix: FieldPath, problems: readonly FieldProblem[]): FieldProblem[] {
  return problems.map((p) => ({ path: [...prefix, ...p.path], message: p.message }));
}

/** Checks that push a problem for each value that fails, phrased "expected …, got …". */
export function fieldChecks(problems: FieldProblem[]): {
  check(ok: boolean, path: FieldPath, expected: string, value: unknown): void;
  positive(value: unknown, path: FieldPath): void;
  positiveInt(value: unknown, path: FieldPath): void;
} {
  const check = (ok: boolean, path: FieldPath, expected: string, value: unknown): void => {
    if (!ok) problems.push({ path, message: `expected ${expected}, got ${JSON.stringify(value) ?? String(value)}` });
  };
  return {
    check,
    positive: (value, path) => check(typeof value === 'number' && Number.isFinite(value) && value > 0, path, 'a positive number', value),
    positiveInt: (value, path) => check(typeof value === 'number' && Number.isInteger(value) && value > 0, path, 'a positive integer', value),
  };
}

/** A retry's backoff: both bounds positive, the upper not below the lower, a factor >= 1, a jitter 0..1. */
export function retryProblems(retry: BackoffPolicy, path: FieldPath): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { check, positive } = fieldChecks(problems);
  positive(retry.minMs, [...path, 'minMs']);
  positive(retry.maxMs, [...path, 'maxMs']);
  const { factor, jitter }: { factor: unknown; jitter: unknown } = retry;
  check(typeof factor === 'number' && factor >= 1, [...path, 'factor'], 'a number >= 1', factor);
  check(typeof jitter === 'number' && jitter >= 0 && jitter <= 1, [...path, 'jitter'], 'a number from 0 to 1', jitter);
  const name = path.join('.');
  if (retry.maxMs < retry.minMs) problems.push({ path: [...path, 'maxMs'], message: `must not be below ${name}.minMs (${retry.minMs})` });
  return problems;
}
