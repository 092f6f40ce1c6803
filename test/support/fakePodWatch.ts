/**
 * The node's pod watch over an in-memory store (FakeHostPods): the cache is the store itself, so
 * an event is delivered after the store reflects it, as the real watch promises. Watch faults:
 *
 * - `expire()`: the watch's resourceVersion is too old (410 Gone). client-node relists by itself
 *   and Tether sees no error, only the missed changes once the relist comes: from here until
 *   `relist()`, changes are not delivered and the cache stays as it was.
 * - `fail(error)`: the watch breaks (a 5xx, a reset): an 'error' event now, then the same as
 *   `expire()` until the restarted watch relists.
 * - `relist()`: the full list: what changed meanwhile as 'added'/'updated'/'deleted' (a pod
 *   re-created under its name as 'deleted' then 'added'), then 'synced'.
 */
import { Subject } from 'rxjs';
import type { Clock } from '../../src/lib/clock.js';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import type { PodWatch, PodWatchEvent } from '../../src/adapters/kubernetes/watch.js';
import { fakeWatchLifecycle } from './fakeWatchLifecycle.js';

export class FakePodWatch {
  readonly watch: PodWatch;
  private readonly subject = new Subject<PodWatchEvent>();
  /** While interrupted: the cache as it was when the watch stopped hearing. */
  private frozen: Map<string, Pod> | undefined;

  constructor(private readonly store: ReadonlyMap<string, Pod>, clock?: Clock) {
    this.watch = {
      ...fakeWatchLifecycle(this.subject, clock),
      events: this.subject.asObservable(),
      list: () => [...this.cache().values()],
      get: (namespace, name) => this.cache().get(`${namespace}/${name}`),
    };
  }

  get interrupted(): boolean {
    return this.frozen !== undefined;
  }

  /** A change the store has just made; lost while the watch is interrupted. */
  deliver(event: PodWatchEvent): void {
    if (!this.frozen) this.subject.next(event);
  }

  expire(): void {
    this.frozen ??= new Map(this.store);
  }

  fail(error: Error): void {
    this.expire();
    this.subject.next({ type: 'error', error });
  }

  relist(): void {
    const before = this.frozen ?? new Map(this.store);
    this.frozen = undefined;
    for (const [key, old] of before) {
      const now = this.store.get(key);
      if (!now || now.metadata?.uid !== old.metadata?.uid) this.subject.next({ type: 'deleted', pod: old });
    }
    for (const [key, pod] of this.store) {
      const old = before.get(key);
      if (!old || old.metadata?.uid !== pod.metadata?.uid) this.subject.next({ type: 'added', pod });
      else if (old.metadata?.resourceVersion !== pod.metadata?.resourceVersion) this.subject.next({ type: 'updated', pod });
    }
    this.subject.next({ type: 'synced' });
  }

  private cache(): ReadonlyMap<string, Pod> {
    return this.frozen ?? this.store;
  }
}
