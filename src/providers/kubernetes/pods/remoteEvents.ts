/**
 * Remote Events about this node's remote pods, reflected to the host pods through a callback
 * (the assembler wires it to the host EventRecorder). Modest by design: core/v1 Events with
 * `involvedObject.kind=Pod` are watched only in the remote namespaces that hold this node's pods;
 * in a namespace watch's first list, Events last seen before the provider started are history and
 * are skipped (so a restart does not repeat them; this compares the remote server's clock with
 * ours); after that an Event is passed on when it appears and each time it changes (its count
 * grows), and only if it is about a pod of this node (same name and the remote pod's uid; an Event
 * without a uid is dropped and counted). The note is prefixed
 * with "remote: ".
 *
 * The loop is a reconciler (`remote-events`, src/lib/reconcile.ts) the node's subtree runs
 * supervised, keyed by remote namespace: pods appearing and going, and every event of a
 * namespace's watch, enqueue it; a reconcile keeps the namespace watched exactly while it holds
 * pods of this node, and passes on every cached Event whose version it has not handled yet
 * (`handled`, which lives here, so a crash of the reconciler loses nothing: its restart re-lists
 * the namespaces and passes on what was missed, and repeats nothing). After a namespace's first
 * list, a reconcile looks only at the Events its watch changed since the last one (`changed`).
 * Changes of one Event that pile up while a reconcile runs are passed on once, as the latest.
 */
import { operation } from '../../../adapters/kubernetes/operation.js';
import type { CoreV1Event } from '@kubernetes/client-node';
import type { Clock } from '../../../lib/clock.js';
import { CachedListWatch, type CachedListWatchOptions, type EngineEvent, type ListWatchSource, type WatchTiming } from '../../../adapters/kubernetes/cachedListWatch.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import type { HostIdentity } from './hostView.js';
import { hostIdentityOf } from './hostView.js';
import { NamespacedWatches } from '../namespacedWatches.js';
import { definedOnly } from '../../../lib/defaults.js';
import { done, reconcileTrigger, type ReconcileResult, type Reconciler } from '../../../lib/reconcile.js';

export type RemoteEventCallback = (hostRef: HostIdentity, type: 'Normal' | 'Warning', reason: string, note: string) => void;

export interface RemoteEventsOptions {
  readonly remote: ClusterClient;
  readonly clock: Clock;
  readonly log: KubeLog;
  readonly watch?: WatchTiming;
  readonly onEvent: RemoteEventCallback;
  /** The cached remote pod, to check that an Event is about one of this node's pods. */
  readonly podOf: (remoteNamespace: string, name: string) => Pod | undefined;
  /** Events last seen before this time (ms since the epoch) are history. */
  readonly since: number;
  /** For tests: builds each namespace's list-watch (default: a CachedListWatch). */
  readonly watchFactory?: (options: CachedListWatchOptions<CoreV1Event>) => ListWatchSource<CoreV1Event>;
}

const FIELD_SELECTOR = 'involvedObject.kind=Pod';

export class RemoteEvents {
  private readonly watches: NamespacedWatches<CoreV1Event>;
  private readonly podsByNamespace = new Map<string, Set<string>>();
  /** Per watched namespace, the version of each Event already passed on (or skipped as history). */
  private readonly handled = new Map<string, Map<string, string>>();
  /**
   * Per namespace, the Events changed since its last reconcile, or `all` after a (re-)list: a
   * reconcile looks at those only. At 10k pods a namespace caches ~40k Events, and a pass over
   * all of them for each Event that came was quadratic. Kept here, as `handled` is, so a crash of
   * the reconciler loses none.
   */
  private readonly changed = new Map<string, Set<string> | 'all'>();
  private readonly trigger = reconcileTrigger();
  private readonly loop: Reconciler;
  private stopped = false;
  private dropped = 0;

  constructor(private readonly o: RemoteEventsOptions) {
    this.watches = new NamespacedWatches((ns) => this.createWatch(ns), (ns, e) => this.onWatchEvent(ns, e));
    this.loop = {
      name: 'remote-events',
      kind: 'remote-events',
      keys: () => [...new Set([...this.podsByNamespace.keys(), ...this.watches.namespaces()])],
      connect: this.trigger.connect,
      reconcile: (namespace) => Promise.resolve(this.reconcile(namespace)),
    };
  }

  /** The loop that keeps the namespaces watched and passes their Events on, for the node's subtree. */
  reconciler(): Reconciler {
    return this.loop;
  }

  podAppeared(remoteNamespace: string, name: string): void {
    let names = this.podsByNamespace.get(remoteNamespace);
    if (names?.has(name)) return;
    if (!names) this.podsByNamespace.set(remoteNamespace, (names = new Set()));
    names.add(name);
    this.trigger.enqueue(remoteNamespace);
  }

  podGone(remoteNamespace: string, name: string): void {
    const names = this.podsByNamespace.get(remoteNamespace);
    if (!names?.delete(name)) return;
    if (names.size === 0) this.podsByNamespace.delete(remoteNamespace);
    this.trigger.enqueue(remoteNamespace);
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.watches.stop();
  }

  private reconcile(namespace: string): ReconcileResult {
    if (this.stopped) return done;
    const wanted = this.podsByNamespace.has(namespace);
    if (wanted !== this.watches.namespaces().includes(namespace)) this.watches.setNamespaces(this.podsByNamespace.keys());
    if (!wanted) {
      this.handled.delete(namespace);
      this.changed.delete(namespace);
      return done;
    }
    // Until the first list is in, nothing is known to be history; 'synced' enqueues again.
    if (!this.watches.isSynced(namespace)) return done;
    const primed = this.handled.get(namespace);
    const changed = this.changed.get(namespace);
    this.changed.delete(namespace);
    if (primed && changed !== 'all') {
      // Nothing came (a pod appeared, a resync), or only the Events in `changed`.
      for (const name of changed ?? []) {
        const e = this.watches.get(namespace, name);
        const version = e?.metadata.resourceVersion ?? '';
        if (!e) primed.delete(name);
        else if (primed.get(name) !== version) {
          primed.set(name, version);
          this.pass(namespace, e);
        }
      }
      return done;
    }
    const handled = new Map<string, string>();
    for (const e of this.watches.list(namespace)) {
      const key = e.metadata.name ?? '';
      const version = e.metadata.resourceVersion ?? '';
      handled.set(key, version);
      if (primed ? primed.get(key) === version : lastSeen(e) < this.o.since) continue;
      this.pass(namespace, e);
    }
    this.handled.set(namespace, handled);
    return done;
  }

  private createWatch(namespace: string): ListWatchSource<CoreV1Event> {
    const options: CachedListWatchOptions<CoreV1Event> = {
      ...this.o.watch,
      kubeConfig: this.o.remote.kubeConfig,
      path: `/api/v1/namespaces/${namespace}/events`,
      fieldSelector: FIELD_SELECTOR,
      list: async () => {
        const list = await this.o.remote.call('other', operation('list', `pod events in remote namespace ${namespace}`), (core, options) =>
          core.listNamespacedEvent({ namespace, fieldSelector: FIELD_SELECTOR }, options),
        );
        return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
      },
      clock: this.o.clock,
      log: this.o.log,
      description: `pod events in remote namespace ${namespace}`,
      transform: slimEvent,
    };
    return this.o.watchFactory ? this.o.watchFactory(options) : new CachedListWatch<CoreV1Event>(options);
  }

  private onWatchEvent(namespace: string, event: EngineEvent<CoreV1Event>): void {
    if (event.type === 'error') return;
    const changed = this.changed.get(namespace);
    if (event.type === 'synced') this.changed.set(namespace, 'all');
    else if (changed === undefined) this.changed.set(namespace, new Set([event.object.metadata.name ?? '']));
    else if (changed !== 'all') changed.add(event.object.metadata.name ?? '');
    this.trigger.enqueue(namespace);
  }

  /** Events about a pod of this node's name without its uid (absent or another): dropped, counted for /metrics. */
  droppedCount(): number {
    return this.dropped;
  }

  /**
   * Passes one Event on, if it is about a pod of this node: same name and the remote pod's very
   * uid. An Event with no uid is dropped: anyone who can create Events in the remote namespace
   * could otherwise write Warnings onto host pods.
   */
  private pass(namespace: string, e: CoreV1Event): void {
    const involved = e.involvedObject;
    const pod = this.o.podOf(namespace, involved.name ?? '');
    if (!pod) return;
    if (involved.uid === undefined || involved.uid === '' || involved.uid !== pod.metadata?.uid) {
      this.dropped++;
      return;
    }
    const identity = hostIdentityOf(pod);
    if (!identity) return;
    const type = e.type === 'Warning' ? 'Warning' : 'Normal';
    try {
      this.o.onEvent(identity, type, e.reason ?? 'RemoteEvent', `remote: ${e.message ?? ''}`.trim());
    } catch (err) {
      this.o.log.warn('remote event callback threw', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

/**
 * What the cache keeps of an Event: only what reflecting it reads (its name and version, the pod
 * it is about, what it says, when it was seen). At 10,000 offloaded pods the whole Events, about
 * four per pod, were 61 MiB of the agent's heap, the largest single part of it.
 */
export function slimEvent(e: CoreV1Event): CoreV1Event {
  const m = e.metadata;
  const lastObservedTime = e.series?.lastObservedTime;
  return {
    metadata: definedOnly({ name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp }),
    involvedObject: definedOnly({ name: e.involvedObject.name, uid: e.involvedObject.uid }),
    ...definedOnly({
      type: e.type, reason: e.reason, message: e.message, lastTimestamp: e.lastTimestamp, eventTime: e.eventTime, firstTimestamp: e.firstTimestamp,
      series: lastObservedTime === undefined ? undefined : { lastObservedTime },
    }),
  };
}

function lastSeen(e: CoreV1Event): number {
  const at = e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp;
  return at === undefined ? 0 : new Date(at).getTime();
}
