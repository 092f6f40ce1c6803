/**
 * The Tether under attack: a real `tether run --config FILE` in a process of its own, so that its
 * pid, RSS and CPU are its own and a request that ends it ends it alone. The caller says how to
 * run the CLI (from source with the test's TypeScript loader, or dist/ for the bench). It can be
 * started again with the same config (the nodes and their pods come back), so that one case that
 * ends the process does not take the evidence of the next with it.
 */
import { writeFileSync } from 'node:fs';
import { startProcess, type ExitStatus, type ManagedProcess } from '../../src/harness/processes.js';
import { cpuSeconds, memKiB } from '../../bench/measure.js';

export type CliCommand = (args: readonly string[]) => { command: string; args: string[] };

export interface TetherProcessOptions {
  /** The config file's content (JSON is YAML). */
  readonly config: Record<string, unknown>;
  readonly configPath: string;
  readonly logPath: string;
  readonly cli: CliCommand;
}

export class TetherProcess {
  private current: ManagedProcess | undefined;
  /** How many processes were started (1 + restarts). */
  starts = 0;

  constructor(private readonly options: TetherProcessOptions) {
    writeFileSync(options.configPath, `${JSON.stringify(options.config, null, 2)}\n`);
  }

  start(): void {
    if (this.current?.running) throw new Error(`tether run is already running (pid ${this.current.pid})`);
    const { command, args } = this.options.cli(['run', '--config', this.options.configPath]);
    this.current = startProcess({ name: 'tether-run', command, args, logPath: this.options.logPath, env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', ...(process.env['HOSTILE_CHILD_DEBUG'] ? { NODE_DEBUG: process.env['HOSTILE_CHILD_DEBUG'] } : {}) } });
    this.starts++;
  }

  get pid(): number {
    if (!this.current) throw new Error('tether run was never started');
    return this.current.pid;
  }

  running(): boolean {
    return this.current?.running ?? false;
  }

  /** How the last process ended, if it has. */
  exitStatus(): ExitStatus | undefined {
    return this.current?.status;
  }

  rssMiB(): number {
    return memKiB(this.pid, 'VmRSS') / 1024;
  }

  cpuSeconds(): number {
    return cpuSeconds(this.pid);
  }

  /** Resets the kernel's peak-RSS mark (VmHWM) to the current RSS, so a window's peak is its own. */
  resetPeak(): boolean {
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      return true;
    } catch {
      return false;
    }
  }

  peakMiB(): number {
    return memKiB(this.pid, 'VmHWM') / 1024;
  }

  logTail(lines = 40): string {
    return this.current?.logTail(lines) ?? '(never started)';
  }

  async stop(graceMs = 8_000): Promise<void> {
    await this.current?.stop(graceMs);
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }
}
