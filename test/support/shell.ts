/** Runs the simulated shell in a test: scripts, stdin, a file system, the manual clock and signals. */
import { sleep } from '../../src/lib/clock.js';
import { BuiltinShell, type ShellIO } from '../../src/providers/simulated/builtinShell.js';
import type { ContainerView } from '../../src/providers/simulated/containerView.js';
import type { ShellFileSystem } from '../../src/providers/simulated/shell/fileSystem.js';
import type { ShellLimits } from '../../src/providers/simulated/shell/limits.js';
import { ManualClock } from './manualClock.js';

export const VIEW: ContainerView = {
  env: new Map([['GREETING', 'hello world'], ['HOSTNAME', 'web']]),
  files: new Map([['/etc/cfg/a.conf', 'a=1\n'], ['/etc/cfg/b.conf', 'b=2\n']]),
  hostname: 'web',
};

export interface ShellRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export interface ShellOptions {
  readonly stdin?: readonly string[];
  readonly files?: ShellFileSystem;
  readonly clock?: ManualClock;
  readonly limits?: Partial<ShellLimits>;
  readonly signal?: AbortSignal;
}

/** A running shell: its output so far, a way to signal it, and its result. */
export interface RunningShell {
  readonly done: Promise<ShellRun>;
  readonly output: () => string;
  readonly send: (signal: 'TERM' | 'INT') => void;
}

export function startShell(argv: readonly string[], options: ShellOptions = {}): RunningShell {
  let out = '';
  let err = '';
  const handlers = new Set<(signal: 'TERM' | 'INT') => void>();
  const { clock } = options;
  const io: ShellIO = {
    view: VIEW,
    ...(options.stdin ? { stdin: (async function* () { for (const s of options.stdin ?? []) yield Buffer.from(s); })() } : {}),
    stdout: async (c) => void (out += c),
    stderr: async (c) => void (err += c),
    tty: false,
    sleep: clock ? (ms, s) => sleep(clock, ms, s) : async () => undefined,
    now: () => clock?.now() ?? 0,
    signals: { subscribe: (h) => (handlers.add(h), () => handlers.delete(h)) },
    ...(options.files ? { files: options.files } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const done = new BuiltinShell(io).run(argv).then((code) => ({ code, out, err }));
  return { done, output: () => out, send: (signal) => { for (const h of handlers) h(signal); } };
}

/** `sh -c script` to its end. */
export function sh(script: string, options: ShellOptions = {}): Promise<ShellRun> {
  return startShell(['sh', '-c', script], options).done;
}

/** Lets the shell run until it waits on something (a timer, a signal). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
