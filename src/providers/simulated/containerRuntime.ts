/**
 * One run (instance) of a container: its program (imageCommands.ts) started, its output into its
 * log, its exit reported once to its owner. A server runs until stopped and costs nothing (no
 * timer, no promise); a shell program runs in the built-in shell, which sleeps on the clock. A
 * graceful stop sends TERM: a script that traps it exits in its own time, within the grace
 * period; one that does not takes TERM's default action (143) after the stop latency; whatever
 * is still running at the grace deadline is killed (137). A command the simulated shell cannot
 * run (a here-document, a builtin's option it lacks: shell Unsupported) ends as containerd reports
 * a task that failed to start: StartError, 128, a message naming what, and a line in the log; a
 * script's own failure (`exit 3`, a command not found) stays an Error exit. An exit after
 * `cancel` or after the first exit is ignored, so an old instance never reports into a newer one.
 */
import { sleep, type Clock, type Timer } from '../../lib/clock.js';
import type { PodSpec } from '../../adapters/kubernetes/model.js';
import { BuiltinShell, Unsupported, type ShellIO } from './builtinShell.js';
import type { ContainerLog } from './containerLog.js';
import { InstanceSignals, terminationFile, type ContainerFiles } from './containerFiles.js';
import type { ContainerView } from './containerView.js';
import type { ContainerProgram } from './imageCommands.js';
import { definedOnly } from '../../lib/defaults.js';

type Container = PodSpec['containers'][number];

export interface InstanceExit {
  readonly exitCode: number;
  /** Completed, Error, OOMKilled or StartError, as the kubelet reports them. */
  readonly reason: string;
  readonly message?: string;
}

/** The shell's IO with what the grown shell takes beside it (files, signals, the clock for `date`). */
export type RuntimeShellIO = ShellIO & { readonly files: ContainerFiles; readonly signals: InstanceSignals; readonly now: () => number };
/** Runs argv in a shell over `io`; the exit code. Rejects with Unsupported for what the simulator cannot run. */
export type ShellRunner = (argv: readonly string[], io: RuntimeShellIO) => Promise<number>;

export const builtinShellRunner: ShellRunner = (argv, io) => new BuiltinShell(io).run(argv, 'reject');

/** Where an instance reports its exit (the pod's containers): one object, not a closure per instance. */
export interface InstanceOwner {
  instanceExited(instance: ContainerInstance, exit: InstanceExit): void;
}

export interface ContainerInstanceOptions {
  readonly clock: Clock;
  readonly container: Pick<Container, 'name' | 'terminationMessagePath' | 'terminationMessagePolicy'>;
  readonly program: ContainerProgram;
  /**
   * The instance's log, for a program that writes one (a shell program, a server with a note);
   * without one (a server without a note, an instant init) its log is the synthetic lines
   * (syntheticLogs.ts), and an idle pod holds no log object.
   */
  readonly log?: ContainerLog;
  readonly view: ContainerView;
  readonly files: ContainerFiles;
  readonly runShell?: ShellRunner;
  /** When the runtime started it (the status's `startedAt`). */
  readonly startedAt: number;
  readonly owner: InstanceOwner;
}

const TERM_EXIT = 143;
const KILL_EXIT = 137;
/** containerd's exit code for a task that never started. */
const START_ERROR_EXIT = 128;

export class ContainerInstance {
  private ended = false;
  private termSent = false;
  private timer: Timer | undefined;
  private killTimer: Timer | undefined;
  /** Only a shell program has something to abort, or signals to take: both made when it starts (memory per idle server). */
  private abort: AbortController | undefined;
  private signals: InstanceSignals | undefined;

  constructor(private readonly options: ContainerInstanceOptions) {}

  get running(): boolean {
    return !this.ended;
  }

  get startedAt(): number {
    return this.options.startedAt;
  }

  /** The env and volume view it was launched with. */
  get view(): ContainerView {
    return this.options.view;
  }

  start(): void {
    const { program, log } = this.options;
    if (program.kind === 'instant') {
      this.finish(0, 'Completed');
      return;
    }
    if (program.kind === 'server') {
      if (program.note !== undefined) log?.write('stderr', program.note);
      return;
    }
    void this.runShell(program.argv);
  }

  /** Ends the instance now with this exit (exitAfterMs, OOM, an image change). */
  exit(exitCode: number, reason: string): void {
    this.finish(exitCode, reason);
  }

  /**
   * Graceful stop: TERM now, killed (137) at `deadline`; `latencyMs` is how long a TERM without a
   * handler takes. Called again (a shorter grace period), it only brings the deadline forward.
   */
  stop(deadline: number, latencyMs: number): void {
    if (this.ended) return;
    const { clock, program } = this.options;
    const signals = this.signals;
    const now = clock.now();
    this.killTimer?.cancel();
    this.killTimer = clock.setTimer(Math.max(0, deadline - now), () => this.finish(KILL_EXIT, 'Error'));
    if (this.termSent) return;
    this.termSent = true;
    if (signals?.handled === true) {
      signals.deliver('TERM');
      return;
    }
    if (now + latencyMs > deadline) return;
    const code = program.kind === 'shell' ? TERM_EXIT : 0;
    this.timer = clock.setTimer(latencyMs, () => this.finish(code, code === 0 ? 'Completed' : 'Error'));
  }

  /** Forgets the instance without an exit (the pod was lost, the provider stopped). */
  cancel(): void {
    this.ended = true;
    this.clearTimers();
    this.abort?.abort(new Error('container cancelled'));
  }

  private async runShell(argv: readonly string[]): Promise<void> {
    const { clock, log, view, files } = this.options;
    const runShell = this.options.runShell ?? builtinShellRunner;
    this.abort = new AbortController();
    const signals = new InstanceSignals();
    this.signals = signals;
    const io: RuntimeShellIO = {
      view,
      files,
      signals,
      stdout: async (chunk) => log?.write('stdout', chunk),
      stderr: async (chunk) => log?.write('stderr', chunk),
      tty: false,
      sleep: (ms, signal) => sleep(clock, ms, signal),
      now: () => clock.now(),
      signal: this.abort.signal,
    };
    let code: number;
    try {
      code = await runShell(argv, io);
    } catch (error) {
      if (this.ended) return;
      if (error instanceof Unsupported) {
        const message = `the simulated node cannot run this command: ${error.message}`;
        log?.write('stderr', `${message}\n`);
        this.finish(START_ERROR_EXIT, 'StartError', message);
        return;
      }
      log?.write('stderr', `simulated node: the command failed: ${error instanceof Error ? error.message : String(error)}\n`);
      code = 126;
    }
    this.finish(code, code === 0 ? 'Completed' : 'Error');
  }

  /** `startError` is the runtime's own message, in place of the command's termination message. */
  private finish(exitCode: number, reason: string, startError?: string): void {
    if (this.ended) return;
    this.ended = true;
    this.clearTimers();
    this.abort?.abort(new Error('container ended'));
    this.options.log?.close();
    const message = startError ?? this.terminationMessage(exitCode, reason);
    this.options.owner.instanceExited(this, { exitCode, reason, ...definedOnly({ message: message === '' ? undefined : message }) });
  }

  /** The file the command wrote, else (FallbackToLogsOnError, on a failure) the log's tail. */
  private terminationMessage(exitCode: number, reason: string): string {
    const { container, files, log, program } = this.options;
    if (program.kind !== 'shell') return '';
    const written = terminationFile(files, container.terminationMessagePath ?? '/dev/termination-log');
    if (written !== '') return written;
    const fallback = container.terminationMessagePolicy === 'FallbackToLogsOnError' && exitCode !== 0 && reason !== 'ContainerCannotRun';
    return fallback ? log?.tailMessage() ?? '' : '';
  }

  private clearTimers(): void {
    this.timer?.cancel();
    this.killTimer?.cancel();
    this.timer = undefined;
    this.killTimer = undefined;
  }
}
