/**
 * A problem with one field of a configuration, as data: validators return these, and whoever
 * shows them (the config loader, `tether validate`) formats the path in its own terms. Paths are
 * never parsed back out of message text.
 */
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

/** A retry range: both bounds positive, the upper not below the lower. */
export function retryProblems(retry: { readonly minMs: number; readonly maxMs: number }, path: FieldPath): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { positive } = fieldChecks(problems);
  positive(retry.minMs, [...path, 'minMs']);
  positive(retry.maxMs, [...path, 'maxMs']);
  const name = path.join('.');
  if (retry.maxMs < retry.minMs) problems.push({ path: [...path, 'maxMs'], message: `must not be below ${name}.minMs (${retry.minMs})` });
  return problems;
}
