/**
 * A list-watch driven by the test (the `ListWatchSource` seam of src/adapters/kubernetes): its
 * cache and events change only when the test says, as a CachedListWatch's would.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Subject } from 'rxjs';
import type { EngineEvent, ListWatchSource } from '../../src/adapters/kubernetes/cachedListWatch.js';
import { LifecycleControl, type StopOptions, type StopOutcome } from '../../src/lib/lifecycle.js';
import { ManualClock } from './manualClock.js';

const keyOf = (item: KubernetesObject): string => `${item.metadata?.namespace}/${item.metadata?.name}`;

export class FakeListWatch<T extends KubernetesObject> implements ListWatchSource<T> {
  readonly events = new Subject<EngineEvent<T>>();
  private readonly life = new LifecycleControl({ clock: new ManualClock(), release: () => this.release() });
  readonly ready = this.life.ready;
  readonly done = this.life.done;
  private readonly cache = new Map<string, T>();
  private synced = false;
  started = false;
  stopped = false;

  constructor(readonly path: string) {}

  start(): void {
    this.started = true;
  }

  stop(options?: StopOptions): Promise<StopOutcome> {
    return this.life.stop(options);
  }

  private release(): void {
    this.stopped = true;
    this.events.complete();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  /** As CachedListWatch lists: an 'added' for each object new to the cache, then 'synced'. */
  listed(items: readonly T[]): void {
    const before = new Set(this.cache.keys());
    this.cache.clear();
    for (const item of items) {
      this.cache.set(keyOf(item), item);
      if (!before.has(keyOf(item))) this.events.next({ type: 'added', object: item });
    }
    this.synced = true;
    this.life.markReady();
    this.events.next({ type: 'synced' });
  }

  added(item: T): void {
    this.cache.set(keyOf(item), item);
    this.events.next({ type: 'added', object: item });
  }

  modified(item: T): void {
    this.cache.set(keyOf(item), item);
    this.events.next({ type: 'updated', object: item });
  }

  deleted(item: T): void {
    this.cache.delete(keyOf(item));
    this.events.next({ type: 'deleted', object: item });
  }
}
