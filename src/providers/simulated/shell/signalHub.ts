/**
 * Signals and waiting, shared by a shell and its subshells (one hub per process tree). A signal
 * with no trap kills the tree (every wait in flight rejects with SignalDeath, status 128 + n); a
 * trapped one is queued for the main shell to run at its next command and interrupts every sleep
 * and wait in flight (as `sleep & wait` would in sh; a foreground `sleep` in sh would first run to
 * its end). The hard kill (the caller's AbortSignal) rejects with its own reason, as today.
 * Waiting costs nothing while it waits: a timer on the injected clock, or only listeners.
 */
import { onAbort } from '../../../lib/abortFanOut.js';
import { SignalDeath, type SignalName } from './context.js';
import { ScriptLimit, type ShellLimits } from './limits.js';

const INTERRUPTED = Symbol('interrupted');
/** The longest timer a JavaScript clock can hold (setTimeout overflows past it). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export type Sleeper = (ms: number, signal?: AbortSignal) => Promise<void>;

export class SignalHub {
  readonly pending: SignalName[] = [];
  private death = new AbortController();
  private interruption = new AbortController();
  private steps = 0;

  constructor(private readonly sleeper: Sleeper, private readonly limits: ShellLimits, readonly hard?: AbortSignal) {}

  /** Kills the tree (an untrapped signal, `kill` of the shell itself). */
  die(signal: SignalName): void {
    if (!this.death.signal.aborted) this.death.abort(new SignalDeath(signal));
  }

  /** A trapped signal: queued for the main shell, and every wait in flight returns early. */
  interrupt(signal: SignalName): void {
    this.pending.push(signal);
    const current = this.interruption;
    this.interruption = new AbortController();
    current.abort(INTERRUPTED);
  }

  /** Throws if the tree was killed or hard-aborted; called at every command. */
  check(): void {
    this.hard?.throwIfAborted();
    if (this.death.signal.aborted) throw this.death.signal.reason;
  }

  /** One command ran: yields to the event loop now and then, and ends a busy loop. */
  async step(): Promise<void> {
    this.check();
    this.steps++;
    if (this.steps > this.limits.busySteps) throw new ScriptLimit(`busy loop: ${this.limits.busySteps} commands ran without a sleep; add a sleep to the loop`);
    if (this.steps % this.limits.yieldEvery === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** The script blocked (a sleep, a read): it is not busy. */
  rested(): void {
    this.steps = 0;
  }

  /**
   * Waits for `start`'s promise, given a signal that aborts on a hard kill, a death or an
   * interruption. Resolves with the value, or 'interrupted'; rejects on a hard kill or a death.
   */
  async wait<T>(start: (signal: AbortSignal) => Promise<T>): Promise<{ value: T } | 'interrupted'> {
    this.check();
    const local = new AbortController();
    const leave = [this.death.signal, this.interruption.signal, ...(this.hard ? [this.hard] : [])].map((s) => onAbort(s, () => local.abort(s.reason)));
    try {
      return { value: await start(local.signal) };
    } catch (error) {
      this.check();
      if (local.signal.reason === INTERRUPTED) return 'interrupted';
      throw error;
    } finally {
      for (const unsubscribe of leave) unsubscribe();
    }
  }

  /** A blocking read: waits like `wait`, and the script has rested once it returns. */
  async block<T>(start: () => Promise<T>): Promise<{ value: T } | 'interrupted'> {
    const waited = await this.wait(start);
    this.rested();
    return waited;
  }

  /** Sleeps `ms` on the injected clock (`Infinity`: until a signal); true when it slept to its end. */
  async sleep(ms: number): Promise<boolean> {
    this.rested();
    if (ms === Infinity) return (await this.wait((signal) => new Promise<never>((_resolve, reject) => onAbort(signal, () => reject(signal.reason))))) !== 'interrupted';
    for (let left = ms; left > 0; left -= MAX_TIMER_MS) {
      const slept = await this.wait((signal) => this.sleeper(Math.min(left, MAX_TIMER_MS), signal));
      if (slept === 'interrupted') return false;
    }
    this.rested();
    return true;
  }
}
