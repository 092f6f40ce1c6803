/**
 * What a command sees when it runs (its arguments, streams and the shell serving it), and the
 * unwinding requests of sh's control flow (`exit`, `break`/`continue`, `return`, death by a
 * signal). Builtins depend on this file only, never on the interpreter itself.
 */
import type { TerminalSize } from '../../provider.js';
import type { ShellFileSystem } from './fileSystem.js';
import type { ShellLimits } from './limits.js';
import type { Input, Output } from './streams.js';

/** Signals a script can trap and send, by name, with their numbers (status 128 + n on death). */
export const SIGNALS = { HUP: 1, INT: 2, QUIT: 3, KILL: 9, USR1: 10, USR2: 12, TERM: 15 } as const;
export type SignalName = keyof typeof SIGNALS;

/** `TERM`, `SIGTERM`, `15`, `term` → `TERM`; undefined for anything else. */
export function signalName(text: string): SignalName | undefined {
  const upper = text.toUpperCase().replace(/^SIG/, '');
  if (upper in SIGNALS) return upper as SignalName;
  return (Object.keys(SIGNALS) as SignalName[]).find((name) => String(SIGNALS[name]) === text);
}

export class ExitRequest {
  constructor(readonly code: number) {}
}

export class LoopControl {
  constructor(readonly kind: 'break' | 'continue', readonly levels: number) {}
}

export class ReturnRequest {
  constructor(readonly code: number) {}
}

/** The shell was killed by a signal it did not trap: unwinds everything, status 128 + n. */
export class SignalDeath {
  constructor(readonly signal: SignalName) {}

  get code(): number {
    return 128 + SIGNALS[this.signal];
  }
}

/**
 * What a real shell would run but the simulated one cannot (a here-document, an option of a
 * builtin it does not implement). It unwinds the whole script: a container's command ends as a
 * runtime's start failure (StartError, RunContainerError), never as a script error a real node
 * would not give; an exec or a probe reports it as a status 2 with the message.
 */
export class Unsupported extends Error {}

/** The interpreter, as builtins use it. */
export interface ShellHandle {
  readonly fs: ShellFileSystem;
  readonly limits: ShellLimits;
  readonly hostname: string;
  readonly tty: boolean;
  readonly terminalSize: () => TerminalSize | undefined;
  cwd: string;
  /** `$?`. */
  readonly status: number;
  positional: string[];
  /** `set -e`: a failing command outside a condition ends the shell. */
  errexit: boolean;
  now(): number;
  /** Sleeps on the injected clock; 0, or 128 + n when a trapped signal interrupted it. `Infinity` sleeps until then. */
  sleep(ms: number): Promise<number>;
  /** Waits for a blocking read; 'interrupted' when a trapped signal came first. */
  block<T>(start: () => Promise<T>): Promise<{ readonly value: T } | 'interrupted'>;
  variable(name: string): string | undefined;
  setVariable(name: string, value: string): void;
  unsetVariable(name: string): void;
  markExported(name: string): void;
  /** The environment a command gets: the exported variables. */
  environment(): Map<string, string>;
  traps: Map<SignalName | 'EXIT', string>;
  /** Sends a signal to process `pid` (1 is this shell, others are background jobs); false when there is none. */
  kill(pid: number, signal: SignalName | 0): boolean;
  /** Waits for the background jobs (or one); 128 + n when a trapped signal interrupted the wait. */
  wait(pid?: number): Promise<number>;
  /** Runs script text in this shell (`eval`, `.`), or in a child shell with its own `$0` and arguments (`sh -c`). */
  runScript(text: string, scope: 'same' | { readonly name: string; readonly args: readonly string[] }, io: CommandIO): Promise<number>;
  /** Runs argv as a command (builtin, function or script file), for `exec`, `env CMD` and `command`. */
  runArgv(argv: readonly string[], io: CommandIO, env?: ReadonlyMap<string, string>): Promise<number>;
}

export interface CommandIO {
  readonly stdin: Input;
  readonly stdout: Output;
  readonly stderr: Output;
}

export interface CommandContext extends CommandIO {
  /** As the command was called (`[`, `/bin/echo`). */
  readonly name: string;
  readonly args: readonly string[];
  readonly shell: ShellHandle;
  /** The command's environment (exported variables plus its own assignments). */
  readonly env: ReadonlyMap<string, string>;
}

/** A command run inside the shell; resolves with its exit status. */
export type Builtin = (ctx: CommandContext) => Promise<number>;
