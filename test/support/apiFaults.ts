/**
 * Faults a fake API injects, per operation, in the order they were scripted: the next call of an
 * operation fails with an error, answers late (on the fake's clock), times out (the adapter's
 * deadline: with or without the request having landed), or hangs until released. A fault is used
 * up by the one call it applies to; an operation with nothing scripted answers at once.
 */
import type { Clock } from '../../src/lib/clock.js';
import { sleep } from '../../src/lib/clock.js';
import { kubeTimeout } from './kubeErrors.js';

export type Fault =
  | { readonly kind: 'fail'; readonly error: Error }
  /** Answered this much later (a slow apiserver); the request lands when the answer comes. */
  | { readonly kind: 'delay'; readonly ms: number }
  /**
   * The adapter's deadline passes after `afterMs`: the call rejects with a timeout. `applied`: the
   * request reached the server anyway (the answer was lost), as a real timeout may.
   */
  | { readonly kind: 'timeout'; readonly afterMs: number; readonly applied: boolean }
  /** No answer until `release()` (then answered normally). */
  | { readonly kind: 'hang'; readonly gate: Promise<void> };

export class ApiFaults<Op extends string> {
  private readonly queued = new Map<Op, Fault[]>();

  constructor(private readonly clock?: Clock) {}

  /** The next call(s) of `op` reject with these errors, in order, without reaching the server. */
  failNext(op: Op, ...errors: Error[]): void {
    this.push(op, ...errors.map((error): Fault => ({ kind: 'fail', error })));
  }

  /** The next `times` calls of `op` are answered `ms` later (on the fake's clock). */
  delayNext(op: Op, ms: number, times = 1): void {
    this.push(op, ...Array.from({ length: times }, (): Fault => ({ kind: 'delay', ms })));
  }

  /** The next call of `op` times out after `afterMs`; `applied`: the server did the work anyway. */
  timeoutNext(op: Op, options: { readonly afterMs: number; readonly applied?: boolean }): void {
    this.push(op, { kind: 'timeout', afterMs: options.afterMs, applied: options.applied ?? false });
  }

  /** The next call of `op` waits until the returned function is called. */
  hangNext(op: Op): () => void {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.push(op, { kind: 'hang', gate });
    return release;
  }

  /**
   * Plays out the next fault of `op` before a call is served: waits, or rejects. Resolves to a
   * function the fake calls once the call has run, which rejects a timed-out-but-applied call.
   */
  async enter(op: Op, operation: string): Promise<() => void> {
    const fault = this.queued.get(op)?.shift();
    if (!fault) return () => undefined;
    switch (fault.kind) {
      case 'fail':
        throw fault.error;
      case 'delay':
        await this.wait(fault.ms);
        return () => undefined;
      case 'hang':
        await fault.gate;
        return () => undefined;
      case 'timeout':
        await this.wait(fault.afterMs);
        if (!fault.applied) throw kubeTimeout(operation, fault.afterMs);
        return () => {
          throw kubeTimeout(operation, fault.afterMs);
        };
    }
  }

  private wait(ms: number): Promise<void> {
    if (!this.clock) throw new Error('a delayed fault needs the fake to have a clock');
    return sleep(this.clock, ms);
  }

  private push(op: Op, ...faults: Fault[]): void {
    this.queued.set(op, [...(this.queued.get(op) ?? []), ...faults]);
  }
}
