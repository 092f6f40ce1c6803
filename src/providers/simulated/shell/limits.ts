/**
 * The shell's bounds, so a hostile or runaway script costs a bounded amount of memory and CPU and
 * ends with a clear error instead of hanging the node's event loop.
 */

export interface ShellLimits {
  /** Characters in one script (`sh -c` text, a script file, `eval`). */
  readonly scriptLength: number;
  /** Nesting of compound commands, substitutions, subshells and function calls. */
  readonly depth: number;
  /** Commands run since the last sleep that blocked: a busy loop ends past this. */
  readonly busySteps: number;
  /** Commands between yields to the event loop, so a busy script never starves the node. */
  readonly yieldEvery: number;
  /** Bytes one command may write to stdout or stderr. */
  readonly outputBytes: number;
  /** Characters of one variable's value, word or line read. */
  readonly valueLength: number;
  /** Background jobs alive at once. */
  readonly jobs: number;
}

export const DEFAULT_LIMITS: ShellLimits = {
  scriptLength: 64 * 1024,
  depth: 64,
  busySteps: 100_000,
  yieldEvery: 500,
  outputBytes: 1024 * 1024,
  valueLength: 1024 * 1024,
  jobs: 32,
};

/** A bound was crossed; the message says which and is printed as `sh: <message>`. */
export class LimitExceeded extends Error {}

/** A bound that ends the whole script (a busy loop, runaway recursion), not just one command. */
export class ScriptLimit extends Error {}
