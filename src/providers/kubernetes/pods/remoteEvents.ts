/**
 * Remote Events about this node's remote pods, reflected to the host pods through a callback
 * (the assembler wires it to the host EventRecorder). Modest by design: core/v1 Events with
 * `involvedObject.kind=Pod` are watched only in the remote namespaces that hold this node's pods;
 * in a namespace watch's first list, Events last seen before the provider started are history and
 * are skipped (so a restart does not repeat them; this compares the remote server's clock with
 * ours); after that an Event is passed on when it appears and each time it changes (its count
 * grows), and only if it is about a pod of this node (same name and uid). The note is prefixed
 * with "remote: ".
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import type { Clock } from '../../../lib/clock.js';
import { CachedListWatch, type EngineEvent, type WatchTiming } from '../../../adapters/kubernetes/cachedListWatch.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { ClusterClient } from '../clusterClient.js';
import type { HostIdentity } from './hostView.js';
import { hostIdentityOf } from './hostView.js';
import { NamespacedWatches } from '../namespacedWatches.js';
import { operation } from '../../../adapters/kubernetes/operation.js';

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
}

const FIELD_SELECTOR = 'involvedObject.kind=Pod';

export class RemoteEvents {
  private readonly watches: NamespacedWatches<CoreV1Event>;
  private readonly podsByNamespace = new Map<string, Set<string>>();
  private readonly primed = new Set<string>();

  constructor(private readonly o: RemoteEventsOptions) {
    this.watches = new NamespacedWatches((ns) => this.createWatch(ns), (ns, e) => this.onWatchEvent(ns, e));
  }

  podAppeared(remoteNamespace: string, name: string): void {
    let names = this.podsByNamespace.get(remoteNamespace);
    if (names?.has(name)) return;
    if (!names) this.podsByNamespace.set(remoteNamespace, (names = new Set()));
    names.add(name);
    this.watches.setNamespaces(this.podsByNamespace.keys());
  }

  podGone(remoteNamespace: string, name: string): void {
    const names = this.podsByNamespace.get(remoteNamespace);
    if (!names?.delete(name)) return;
    if (names.size === 0) {
      this.podsByNamespace.delete(remoteNamespace);
      this.primed.delete(remoteNamespace);
    }
    this.watches.setNamespaces(this.podsByNamespace.keys());
  }

  stop(): void {
    this.watches.stop();
  }

  private createWatch(namespace: string): CachedListWatch<CoreV1Event> {
    return new CachedListWatch<CoreV1Event>({
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
    });
  }

  private onWatchEvent(namespace: string, event: EngineEvent<CoreV1Event>): void {
    if (event.type === 'synced') {
      this.primed.add(namespace);
      return;
    }
    if (event.type === 'error' || event.type === 'deleted') return;
    const e = event.object;
    if (!this.primed.has(namespace) && lastSeen(e) < this.o.since) return;
    const involved = e.involvedObject;
    const pod = this.o.podOf(namespace, involved.name ?? '');
    if (!pod || (involved.uid !== undefined && involved.uid !== pod.metadata?.uid)) return;
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

function lastSeen(e: CoreV1Event): number {
  const at = e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp;
  return at === undefined ? 0 : new Date(at).getTime();
}
