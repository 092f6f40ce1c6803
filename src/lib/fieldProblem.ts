/**
 * "This input is wrong", as data, one record wherever Tether checks input: the config file's schema
 * and the actors' cross-field validators, the pod a provider refuses to send. Validators return
 * problems without the object (they do not know where the input came from); whoever shows them
 * names it (`about`) and prints them with the one formatter:
 *   tether.yaml: nodes[1].ping.intervalMs: expected a positive number, got -5 (line 12)
 *   spec.volumes[root].hostPath (/): host paths are refused
 * Paths are never parsed back out of message text.
 */

/**
 * One step of a field path: a field name, a list index, or an entry of a list or map named by its
 * key (`containers[web]`, Kubernetes' `field.Path.Key`).
 */
export type FieldStep = string | number | { readonly key: string };
export type FieldPath = readonly FieldStep[];

export interface FieldProblem {
  /** The input as its user names it: a file, the flag or variable that set the field, a pod. */
  readonly object?: string;
  readonly path: FieldPath;
  /** The offending value as written, when the message does not say it: `hostPath (/etc)`. */
  readonly value?: string;
  readonly message: string;
  /** Where the field is in the object's text (a config file's line). */
  readonly line?: number;
}

/**
 * `nodes[1].ping.intervalMs`; a keyed entry is `containers[web]`; a field name that is not an
 * identifier is quoted: `labels["a/b"]`. The empty path is the whole object: `(top level)`.
 */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else if (typeof step === 'object') out += `[${step.key}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(step)) out += out === '' ? step : `.${step}`;
    else out += `[${JSON.stringify(step)}]`;
  }
  return out === '' ? '(top level)' : out;
}

/** The one way a problem is shown: `object: path (value): message (line N)`, each part when known. */
export function formatProblem(problem: FieldProblem): string {
  const object = problem.object === undefined ? '' : `${problem.object}: `;
  const value = problem.value === undefined ? '' : ` (${problem.value})`;
  const line = problem.line === undefined ? '' : ` (line ${problem.line})`;
  return `${object}${formatPath(problem.path)}${value}: ${problem.message}${line}`;
}

/** The same problems, named as part of `object`. */
export function about(object: string, problems: readonly FieldProblem[]): FieldProblem[] {
  return problems.map((p) => ({ ...p, object }));
}

/** The path as plain names and indexes (what a schema library's issue path takes). */
export function plainPath(path: FieldPath): (string | number)[] {
  return path.map((step) => (typeof step === 'object' ? step.key : step));
}

/** The same problems, one level down: `under(['lease'], [{path: ['namespace'], …}])`. */
export function under(prefix: FieldPath, problems: readonly FieldProblem[]): FieldProblem[] {
  return problems.map((p) => ({ ...p, path: [...prefix, ...p.path] }));
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
  if (retry.maxMs < retry.minMs) problems.push({ path: [...path, 'maxMs'], message: `must not be below ${formatPath([...path, 'minMs'])} (${retry.minMs})` });
  return problems;
}
