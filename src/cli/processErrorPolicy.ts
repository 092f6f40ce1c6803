/**
 * What `tether run` does with an error nothing caught (`uncaughtException`, `unhandledRejection`):
 * it is logged with its context and counted (`tether_process_uncaught_errors_total{kind}`), and
 * the process goes on, because one virtual node's broken request, stream or call must not take
 * every node down with it, and because the bytes a client sends must never be a way to end the
 * process. The process ends only on a true invariant failure: an assertion about Tether's own
 * state that turned out false (`node:assert`'s AssertionError, code ERR_ASSERTION) or one of
 * Node's own (ERR_INTERNAL_ASSERTION). Then state is known to be wrong, and the Deployment's
 * restart is the way out: the caller shuts down within its bound and exits 1. See
 * docs/operating.md ("Uncaught errors") and docs/security.md ("Hostile client").
 */
import type { Logger } from '../adapters/logger.js';
import { definedOnly, ifDefined } from '../lib/defaults.js';

export type UncaughtKind = 'uncaughtException' | 'unhandledRejection';

export type UncaughtDecision =
  | { readonly action: 'continue' }
  | { readonly action: 'exit'; readonly why: string };

/** Error codes that mean an invariant failed. */
const INVARIANT_CODES = new Set(['ERR_ASSERTION', 'ERR_INTERNAL_ASSERTION']);

function codeOf(error: unknown): unknown {
  return error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
}

/** The policy, as a pure decision: exit on a failed invariant, continue on anything else. */
export function decideUncaught(_kind: UncaughtKind, error: unknown): UncaughtDecision {
  const code = codeOf(error);
  if (typeof code === 'string' && INVARIANT_CODES.has(code)) {
    return { action: 'exit', why: `an invariant failed (${code}): Tether's state cannot be trusted` };
  }
  return { action: 'continue' };
}

/** What is logged of an error: its name, code, message and the first frames of its stack. */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { thrown: typeof error, value: String(error).slice(0, 500) };
  const code = codeOf(error);
  return {
    name: error.name,
    message: error.message.slice(0, 1_000),
    ...definedOnly({
      code: ifDefined(code, String),
      stack: error.stack ? error.stack.split('\n').slice(0, 12).join('\n') : undefined,
    }),
  };
}

export interface ProcessErrorPolicyOptions {
  /** Where the events come from; the process by default. */
  readonly target?: Pick<NodeJS.Process, 'on' | 'off'>;
  readonly logger: Logger;
  /** Counts each error by kind (TetherMetrics.recordUncaughtError). */
  readonly count?: (kind: UncaughtKind) => void;
  /** The first invariant failure: shut down within the bound, then exit non-zero. */
  readonly onInvariantFailure: (error: unknown) => void;
  /** A second invariant failure while shutting down: exit at once. */
  readonly exit: (code: number) => void;
}

/** Installs the handlers; returns their removal. */
export function installProcessErrorPolicy(options: ProcessErrorPolicyOptions): () => void {
  const target = options.target ?? process;
  let failing = false;
  const handle = (kind: UncaughtKind) => (error: unknown): void => {
    try {
      options.count?.(kind);
    } catch {
      // Counting is best effort; the decision below is not.
    }
    const decision = decideUncaught(kind, error);
    const log = (message: string): void => {
      try {
        options.logger.error(message, { kind, ...describeError(error) });
      } catch {
        // A throw here would end the process (Node exits 7 on a failing handler).
      }
    };
    if (decision.action === 'continue') return log(`${kind}: logged and counted; Tether runs on (only a failed invariant ends the process)`);
    log(`${kind}: ${decision.why}; shutting down`);
    if (failing) return options.exit(1);
    failing = true;
    options.onInvariantFailure(error);
  };
  const onException = handle('uncaughtException');
  const onRejection = handle('unhandledRejection');
  target.on('uncaughtException', onException);
  target.on('unhandledRejection', onRejection);
  return () => {
    target.off('uncaughtException', onException);
    target.off('unhandledRejection', onRejection);
  };
}
