/**
 * The entry to the simulated container's shell (the shell itself is in `shell/`): runs an argv
 * as an exec or a container's command would, `sh -c SCRIPT [NAME ARGS...]`, `sh FILE`, `sh`
 * reading lines from stdin (echoing them on a terminal), or a single command. What it supports
 * and what it does not is in shell/README.md.
 */
import type { TerminalSize } from '../provider.js';
import type { ContainerView } from './containerView.js';
import { BUILTINS } from './shell/builtins.js';
import { ExitRequest, LoopControl, ReturnRequest, SignalDeath, Unsupported } from './shell/context.js';
import { MemoryFileSystem, MemoryStore, normalizePath, TMP_STORE_LIMITS, type ShellFileSystem } from './shell/fileSystem.js';
import { Interpreter } from './shell/interpreter.js';
import { DEFAULT_LIMITS, LimitExceeded, ScriptLimit, type ShellLimits } from './shell/limits.js';
import { parse } from './shell/parser.js';
import { SignalHub } from './shell/signalHub.js';
import { BrokenPipe, Input } from './shell/streams.js';
import { SHELL_NAMES } from './shell/shellBuiltins.js';

export { parse } from './shell/parser.js';
export { Unsupported } from './shell/context.js';
export type { ShellFileSystem } from './shell/fileSystem.js';

/** The signals a container's main process receives from outside (the kubelet's stop sends TERM). */
export interface ShellSignals {
  /** Calls `handler` for each signal until the returned function is called. */
  subscribe(handler: (signal: 'TERM' | 'INT') => void): () => void;
}

export interface ShellIO {
  readonly view: ContainerView;
  readonly stdin?: AsyncIterable<Buffer>;
  readonly stdout: (chunk: string) => Promise<void>;
  readonly stderr: (chunk: string) => Promise<void>;
  readonly tty: boolean;
  /** The terminal's latest size (from the client's resizes), if any. */
  readonly terminalSize?: () => TerminalSize | undefined;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The hard kill (SIGKILL, status 137 to the caller): `run` rejects with its reason. */
  readonly signal?: AbortSignal;
  /** The files; without it, the view's files read-only and a private writable /tmp. */
  readonly files?: ShellFileSystem;
  /** TERM and INT from outside: a trap runs its handler, otherwise the script ends with 128 + n. */
  readonly signals?: ShellSignals;
  /** Now, in ms since the epoch, for `date` (the injected clock); Date.now without it. */
  readonly now?: () => number;
  /** Tighter or looser bounds than DEFAULT_LIMITS. */
  readonly limits?: Partial<ShellLimits>;
}

const SHELLS = new Set(SHELL_NAMES.flatMap((name) => [name, `/bin/${name}`, `/usr/bin/${name}`, `/usr/local/bin/${name}`]));

/** The commands the shell runs, by name. */
export const BUILTIN_COMMANDS: readonly string[] = [...BUILTINS.keys()].sort();

export class BuiltinShell {
  private readonly shell: Interpreter;
  private readonly stdin: Input;
  private readonly hub: SignalHub;

  constructor(private readonly io: ShellIO) {
    const limits = { ...DEFAULT_LIMITS, ...io.limits };
    this.hub = new SignalHub(io.sleep, limits, io.signal);
    this.stdin = io.stdin ? Input.fromStream(io.stdin, io.signal) : Input.empty();
    const fs = io.files ?? new MemoryFileSystem({ files: io.view.files, mounts: [{ path: '/tmp', store: new MemoryStore(TMP_STORE_LIMITS) }] });
    this.shell = new Interpreter({
      fs,
      hostname: io.view.hostname,
      limits,
      hub: this.hub,
      now: io.now ?? Date.now,
      tty: io.tty,
      terminalSize: io.terminalSize ?? (() => undefined),
      builtins: BUILTINS,
      io: { stdin: this.stdin, stdout: io.stdout, stderr: io.stderr },
    }, io.view.env);
  }

  /**
   * Runs argv and returns the exit code; rejects with the hard-kill signal's reason when it aborts.
   * What the simulated shell cannot run (Unsupported) is status 2 with its message on stderr, as
   * for an exec; `reject` hands it to the caller instead (a container's command: a start failure).
   */
  async run(argv: readonly string[], unsupported: 'status' | 'reject' = 'status'): Promise<number> {
    const leave = this.io.signals?.subscribe((signal) => this.shell.deliver(signal));
    try {
      return await this.completed(argv);
    } catch (error) {
      if (!(error instanceof Unsupported) || unsupported === 'reject') throw error;
      await this.io.stderr(`sh: ${error.message}\n`);
      return 2;
    } finally {
      leave?.();
    }
  }

  /** The script's status after its EXIT trap. */
  private async completed(argv: readonly string[]): Promise<number> {
    const code = await this.unwound(() => this.dispatch(argv));
    const exit = this.shell.traps.get('EXIT');
    if (exit === undefined) return code;
    this.shell.traps.delete('EXIT');
    this.shell.status = code;
    // An EXIT trap that calls `exit N` changes the status; otherwise the script's stays.
    let changed: number | undefined;
    await this.unwound(async () => {
      try {
        await this.shell.runScript(exit, 'same', this.ioOf());
      } catch (error) {
        if (error instanceof ExitRequest) changed = error.code;
        throw error;
      }
      return code;
    });
    return changed ?? code;
  }

  private ioOf(): { stdin: Input; stdout: ShellIO['stdout']; stderr: ShellIO['stderr'] } {
    return { stdin: this.stdin, stdout: this.io.stdout, stderr: this.io.stderr };
  }

  /** The status of `body`, with sh's unwinding requests and bounds turned into statuses. */
  private async unwound(body: () => Promise<number>): Promise<number> {
    try {
      const code = await body();
      await this.shell.runTraps();
      return code;
    } catch (error) {
      if (error instanceof ExitRequest || error instanceof SignalDeath || error instanceof ReturnRequest) return error.code;
      if (error instanceof LoopControl) return this.shell.status;
      if (error instanceof BrokenPipe) return 141;
      if (error instanceof ScriptLimit || error instanceof LimitExceeded) {
        await this.io.stderr(`sh: ${error.message}\n`);
        return error instanceof ScriptLimit ? 2 : 1;
      }
      throw error;
    }
  }

  private async dispatch(argv: readonly string[]): Promise<number> {
    const [name, ...rest] = argv;
    if (name === undefined) return 0;
    if (!SHELLS.has(name)) return this.shell.runArgv(argv, this.ioOf());
    const args = [...rest];
    while (args[0] !== undefined && /^[-+][a-bd-z]+$/.test(args[0])) args.shift();
    if (args[0] === undefined) return this.interactive();
    let text: string;
    if (/^-[a-z]*c[a-z]*$/.test(args[0])) {
      const [, script, scriptName, ...params] = args;
      if (script === undefined) {
        await this.io.stderr(`${name}: -c requires an argument\n`);
        return 2;
      }
      text = script;
      this.shell.name = scriptName ?? name;
      this.shell.positional = params;
    } else {
      const [file, ...params] = args;
      const content = this.shell.fs.read(normalizePath(file as string));
      if (content === undefined) {
        await this.io.stderr(`${name}: can't open '${file ?? ''}': No such file or directory\n`);
        return 2;
      }
      text = content.replace(/^#![^\n]*\n/, '');
      this.shell.name = file as string;
      this.shell.positional = params;
    }
    return this.shell.runScript(text, 'same', this.ioOf());
  }

  /** `sh` with no script: one line (or construct, when it spans lines) at a time from stdin. */
  private async interactive(): Promise<number> {
    const { tty } = this.io;
    const prompt = async (more: boolean): Promise<void> => {
      if (tty) await this.io.stdout(more ? '> ' : '# ');
    };
    await prompt(false);
    let pending = '';
    let line = '';
    const submit = async (): Promise<void> => {
      const text = pending === '' ? line : `${pending}\n${line}`;
      line = '';
      const parsed = parse(text, this.shell.limits);
      if (!parsed.ok && parsed.incomplete && text.length < this.shell.limits.scriptLength) {
        pending = text;
        await prompt(true);
        return;
      }
      pending = '';
      this.hub.rested();
      try {
        await this.shell.runScript(text, 'same', this.ioOf());
      } catch (error) {
        // A line the simulated shell cannot run fails alone; the session goes on.
        if (!(error instanceof Unsupported)) throw error;
        await this.io.stderr(`sh: ${error.message}\n`);
      }
      await prompt(false);
    };
    for (let chunk = await this.stdin.read(); chunk !== undefined; chunk = await this.stdin.read()) {
      this.io.signal?.throwIfAborted();
      for (const c of chunk) {
        if (c === '\r' || c === '\n') {
          if (tty) await this.io.stdout('\r\n');
          await submit();
        } else if (c === '\u0004' && line === '') return this.shell.status;
        else if (c === '\u007f') {
          if (line.length > 0 && tty) await this.io.stdout('\b \b');
          line = line.slice(0, -1);
        } else if (line.length >= this.shell.limits.scriptLength) {
          await this.io.stderr(`\nsh: line longer than ${this.shell.limits.scriptLength} characters\n`);
          return 2;
        } else {
          line += c;
          if (tty) await this.io.stdout(c);
        }
      }
    }
    if (line !== '' || pending !== '') await this.shell.runScript(pending === '' ? line : `${pending}\n${line}`, 'same', this.ioOf());
    return this.shell.status;
  }
}
