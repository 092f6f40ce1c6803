/**
 * Control-plane components as child processes: each runs in its own process group (so teardown
 * reaches anything it forks), writes stdout and stderr to one log file in the cluster's directory,
 * and is killed at process exit unless explicitly released (shared clusters outlive their starter).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import { registerExitCleanup } from './exitCleanup.js';

export interface ProcessSpec {
  /** Component name, used in messages. */
  name: string;
  command: string;
  args: readonly string[];
  logPath: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export const DEFAULT_STOP_GRACE_MS = 10_000;

export class ManagedProcess {
  readonly pid: number;
  readonly exited: Promise<ExitStatus>;
  private exitStatus: ExitStatus | undefined;
  private readonly unregister: () => void;

  constructor(readonly spec: ProcessSpec) {
    const log = openSync(spec.logPath, 'a');
    try {
      const child = spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: spec.env ?? process.env,
        detached: true,
        stdio: ['ignore', log, log],
      });
      if (child.pid === undefined) throw new Error(`could not start ${spec.name} (${spec.command})`);
      this.pid = child.pid;
      this.exited = new Promise((resolve) => {
        child.once('exit', (code, signal) => {
          this.exitStatus = { code, signal };
          this.unregister();
          resolve(this.exitStatus);
        });
      });
      child.once('error', () => undefined);
      // Children never keep this process alive; the exit cleanup below kills them instead.
      child.unref();
    } finally {
      closeSync(log);
    }
    const pid = this.pid;
    this.unregister = registerExitCleanup(() => signalGroup(pid, 'SIGKILL'));
  }

  get running(): boolean {
    return this.exitStatus === undefined;
  }

  get status(): ExitStatus | undefined {
    return this.exitStatus;
  }

  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once the process has exited. */
  async stop(graceMs = DEFAULT_STOP_GRACE_MS): Promise<ExitStatus> {
    if (this.exitStatus) return this.exitStatus;
    signalGroup(this.pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const first = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (first === 'timeout') signalGroup(this.pid, 'SIGKILL');
    // The child is unref'd, so something must keep the event loop alive until its exit event.
    const keepAlive = setInterval(() => undefined, 1_000);
    try {
      return await this.exited;
    } finally {
      clearInterval(keepAlive);
    }
  }

  /** Stops killing this process at exit: the caller hands its lifetime to someone else. */
  release(): void {
    this.unregister();
  }

  logTail(lines = 40): string {
    return readLogTail(this.spec.logPath, lines);
  }
}

export function startProcess(spec: ProcessSpec): ManagedProcess {
  return new ManagedProcess(spec);
}

/** Stops a process group this process did not spawn (e.g. a shared cluster started by tap's `before`). */
export async function stopProcessGroup(pgid: number, graceMs = DEFAULT_STOP_GRACE_MS): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) {
      signalGroup(pgid, 'SIGKILL');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

/** The last `lines` lines of a log file (reads at most the final 64 KiB). */
export function readLogTail(path: string, lines = 40): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return `(no log at ${path})`;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8').split('\n').slice(-lines - 1).join('\n').trimEnd();
  } finally {
    closeSync(fd);
  }
}
