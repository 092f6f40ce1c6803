/**
 * A set of self-healing list-watches, one per namespace, kept equal to a wanted set of
 * namespaces: new namespaces start a watch, dropped ones stop theirs. Used for the host's
 * ConfigMaps and Secrets (namespaces with offloaded pods that reference them), the host's Services
 * and EndpointSlices (namespaces with offloaded pods) and the remote pods' Events (remote
 * namespaces holding this node's pods).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import type { EngineEvent, ListWatchSource } from '../../adapters/kubernetes/cachedListWatch.js';
import type { Versioned } from '../../adapters/kubernetes/watchCache.js';
import { stopParts } from '../../lib/lifecycle.js';

export class NamespacedWatches<T extends KubernetesObject & Versioned> {
  private readonly watches = new Map<string, { readonly watch: ListWatchSource<T>; readonly subscription: Subscription }>();
  private stopped = false;

  constructor(
    private readonly create: (namespace: string) => ListWatchSource<T>,
    private readonly onEvent: (namespace: string, event: EngineEvent<T>) => void,
  ) {}

  /** Starts and stops watches so that exactly `wanted` are watched. */
  setNamespaces(wanted: Iterable<string>): void {
    if (this.stopped) return;
    const keep = new Set(wanted);
    for (const [namespace, entry] of this.watches) {
      if (keep.has(namespace)) continue;
      entry.subscription.unsubscribe();
      void entry.watch.stop(); // a watch's stop never rejects
      this.watches.delete(namespace);
    }
    for (const namespace of keep) {
      if (this.watches.has(namespace)) continue;
      const watch = this.create(namespace);
      const subscription = watch.events.subscribe((event) => this.onEvent(namespace, event));
      this.watches.set(namespace, { watch, subscription });
      watch.start();
    }
  }

  /** The cached object, if its namespace is watched and the watch has it. */
  get(namespace: string, name: string): T | undefined {
    return this.watches.get(namespace)?.watch.get(`${namespace}/${name}`);
  }

  /** Every cached object of a watched namespace (the cache's own: do not mutate). */
  list(namespace: string): T[] {
    return this.watches.get(namespace)?.watch.list() ?? [];
  }

  isSynced(namespace: string): boolean {
    return this.watches.get(namespace)?.watch.hasSynced() ?? false;
  }

  namespaces(): string[] {
    return [...this.watches.keys()];
  }

  /** Stops every watch (each even when one throws; what threw rejects, after all were stopped). */
  stop(): Promise<void> {
    this.stopped = true;
    const entries = [...this.watches];
    this.watches.clear();
    return stopParts(Object.fromEntries(entries.map(([namespace, { watch, subscription }]) => [namespace, {
      stop: () => {
        subscription.unsubscribe();
        return watch.stop();
      },
    }])));
  }
}
