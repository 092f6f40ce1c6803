/**
 * What the in-memory APIs of the Node and the Lease share: every call recorded as the server
 * received it, and faults injected per method (`failNext`, or `faults` for slow calls, timeouts
 * and hangs) before the call reaches the store.
 */
import type { Clock } from '../../src/lib/clock.js';
import { ApiFaults } from './apiFaults.js';

export abstract class RecordingApi<Method extends string, Call extends { readonly method: Method }> {
  readonly calls: Call[] = [];
  readonly faults: ApiFaults<Method>;

  /** `clock`: where delayed faults wait (needed only for those). */
  constructor(clock?: Clock) {
    this.faults = new ApiFaults<Method>(clock);
  }

  /** The next call(s) of `method` reject with these errors, in order. */
  failNext(method: Method, ...errors: Error[]): void {
    this.faults.failNext(method, ...errors);
  }

  count(method: Method): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  /** Records the call, plays out its fault (if any), then runs it against the store. */
  protected async serve<T>(call: Call, operation: string, run: () => T): Promise<T> {
    this.calls.push(call);
    const settle = await this.faults.enter(call.method, operation);
    const result = run();
    settle();
    return result;
  }
}
