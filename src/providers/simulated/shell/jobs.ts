/**
 * Background jobs (`cmd &`) of one process tree: pids from 2 (the shell is 1), `$!`, `kill PID`
 * (the job ends at once with 128 + n; its own traps are not consulted) and `wait`. Bounded in
 * number, so a fork bomb fails with a clear error.
 */
import { SignalDeath, type SignalName } from './context.js';
import { ScriptLimit } from './limits.js';
import type { SignalHub } from './signalHub.js';

interface Job {
  readonly done: Promise<number>;
  readonly stop: AbortController;
  finished: boolean;
}

export class Jobs {
  private readonly jobs = new Map<number, Job>();
  private nextPid = 2;
  last: number | undefined;

  constructor(private readonly limit: number) {}

  /** Starts `run` in the background and returns its pid. */
  start(run: () => Promise<number>): number {
    const live = [...this.jobs.values()].filter((j) => !j.finished).length;
    if (live >= this.limit) throw new ScriptLimit(`more than ${this.limit} background jobs`);
    const pid = this.nextPid++;
    const stop = new AbortController();
    const killed = new Promise<number>((resolve) => stop.signal.addEventListener('abort', () => resolve((stop.signal.reason as SignalDeath).code), { once: true }));
    const job: Job = {
      stop,
      finished: false,
      done: Promise.race([run(), killed]).catch((error: unknown) => (error instanceof SignalDeath ? error.code : 1)).finally(() => {
        job.finished = true;
      }),
    };
    this.jobs.set(pid, job);
    this.last = pid;
    return pid;
  }

  /** False when there is no such live job. */
  kill(pid: number, signal: SignalName | 0): boolean {
    const job = this.jobs.get(pid);
    if (!job || job.finished) return false;
    if (signal !== 0) job.stop.abort(new SignalDeath(signal));
    return true;
  }

  /** The job's status (127 for an unknown pid), or every job's; 128 + 15 when a trapped signal interrupted the wait. */
  async wait(hub: SignalHub, pid?: number): Promise<number> {
    const jobs = pid === undefined ? [...this.jobs.values()] : [this.jobs.get(pid)].filter((j): j is Job => j !== undefined);
    if (pid !== undefined && jobs.length === 0) return 127;
    let status = 0;
    for (const job of jobs) {
      const waited = await hub.wait(() => job.done);
      if (waited === 'interrupted') return 128 + 15;
      status = waited.value;
    }
    if (pid === undefined) this.jobs.clear();
    return status;
  }
}
