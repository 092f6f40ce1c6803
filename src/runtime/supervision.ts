/**
 * The words a cell and its parent share about crashes. They live in the runtime (not in
 * src/supervisors) so that the runtime never imports the supervisors built on top of it.
 */

/** `permanent` children restart even after a normal exit, `transient` only after a crash, `temporary` never. */
export type RestartType = 'permanent' | 'transient' | 'temporary';

/** What a parent decided about one crash of one child. */
export type CrashDecision =
  | { readonly action: 'restart'; readonly delayMs: number; readonly siblings: boolean }
  | { readonly action: 'give-up'; readonly reason: string }
  | { readonly action: 'escalate'; readonly reason: string };
