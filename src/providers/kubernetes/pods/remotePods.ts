/**
 * The remote pods of one virtual node (selected by the ownership labels for this host cluster and
 * node, all namespaces), held by a self-healing list-watch, and turned into the provider's
 * notifications. Only pods that pass the ownership rule (ownership.ts) count: a pod with copied
 * marks in a namespace Tether's mapping does not give is ignored (never notified, never listed,
 * never returned), counted, and logged once.
 *
 * - added or changed → `status`, with the host identity (namespace/name/uid from the marks);
 * - deleted after `deletePod` asked for it → `status` with a terminal status: the remote pod's
 *   last status if it was already terminal, else the last status ended as the kubelet ends a
 *   killed pod (`terminatedStatus`: containers that were running are terminated with exit code
 *   137 and reason `Terminated`, never-started ones as ContainerStatusUnknown), so phase Failed,
 *   with pod reason `Terminated`;
 * - deleted otherwise → `gone`, reason `RemotePodDeleted`. After a restart of Tether the memory
 *   of `deletePod` calls is lost, so a deletion it asked for before may be reported as `gone`;
 *   the pod actor treats `gone` while terminating as the end, which is the same outcome.
 *
 * The notifications come from a reconciler (`remote-pods`, src/lib/reconcile.ts) that the node's
 * subtree runs supervised: the watch is the level source (its cache) and the edge source (each
 * event enqueues its pod's `namespace/name`); a reconcile compares the cache with what the host
 * side was last told (`told`) and notifies the difference, so one pod's notifications keep their
 * order (one reconcile per key at a time), changes that pile up while one runs are coalesced into
 * the latest, and a pod deleted and created again under the same name is ended before its
 * successor is reported. `told` and the deleted pods' last copies live here, not in the actor, so
 * a crash of the reconciler loses nothing: its restart re-lists every key and reconciles each.
 * The reference counts (`onAppear`/`onGo`) follow the watch events at once.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../../../lib/clock.js';
import { CachedListWatch, type CachedListWatchOptions, type EngineEvent, type ListWatchSource, type WatchTiming } from '../../../adapters/kubernetes/cachedListWatch.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { Pod, PodCondition, PodStatus } from '../../../adapters/kubernetes/model.js';
import { PodApiClient } from '../../../adapters/kubernetes/podApiClient.js';
import { withoutManagedFields } from '../../../adapters/kubernetes/withoutManagedFields.js';
import { done, reconcileTrigger, type ReconcileResult, type Reconciler } from '../../../lib/reconcile.js';
import { terminatedStatus } from '../../podStatus.js';
import { podMarksOf, type PodMarks } from '../../podMarks.js';
import type { PodNotification, PodNotificationCallback } from '../../provider.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { hostStatus, toHostPod, type HostViewOptions } from './hostView.js';
import { ownedPodSelector, ownershipOf, type OwnershipRule } from './ownership.js';

export interface RemotePodsOptions {
  readonly remote: ClusterClient;
  readonly nodeName: string;
  /** What makes a remote pod this Tether's (host cluster, node, namespace mapping). */
  readonly rule: OwnershipRule;
  readonly clock: Clock;
  readonly log: KubeLog;
  readonly view: HostViewOptions;
  readonly watch?: WatchTiming;
  /** Told about every pod that appears or goes (the reflector's reference counts). */
  readonly onAppear?: (hostKey: string, hostNamespace: string, remote: Pod) => void;
  readonly onGo?: (hostKey: string, remote: Pod) => void;
  /** For tests: builds the list-watch (default: a CachedListWatch). */
  readonly watchFactory?: (options: CachedListWatchOptions<Pod>) => ListWatchSource<Pod>;
}

export const remotePodDeletedMessage = 'the remote pod was deleted outside Tether';

export class RemotePods {
  private readonly watch: ListWatchSource<Pod>;
  private readonly subscription: Subscription;
  private readonly trigger = reconcileTrigger();
  /** Per remote key, the remote pod the host side was last told about (its uid and version). */
  private readonly told = new Map<string, Pod>();
  /** Per remote key, the last copy of a pod of Tether's that was deleted, until reconciled. */
  private readonly deleted = new Map<string, Pod>();
  private readonly notifier: Reconciler;
  private stopped = false;
  /** Remote keys (namespace/name) of pods `deletePod` was asked to delete, with their remote uid. */
  private readonly deleting = new Map<string, string | undefined>();
  private callback: PodNotificationCallback | undefined;
  private readonly syncWaiters = new Set<() => void>();
  /** Remote uids of pods that carry the marks but fail the rule, logged once each (forgotten when they go). */
  private readonly ignoredUids = new Set<string>();
  private ignoredTotal = 0;
  /** Per remote key, a resize the remote API server refused (inPlaceUpdates.ts), shown on the host status until cleared. */
  private readonly refusals = new Map<string, PodCondition>();

  constructor(private readonly o: RemotePodsOptions) {
    const labelSelector = ownedPodSelector(o.rule);
    const pods = new PodApiClient(o.remote.core, o.remote.limiter);
    const watchOptions: CachedListWatchOptions<Pod> = {
      ...o.watch,
      kubeConfig: o.remote.kubeConfig,
      path: '/api/v1/pods',
      labelSelector,
      list: () => pods.listPods({ labelSelector }),
      clock: o.clock,
      log: o.log,
      description: `remote pods of virtual node ${o.nodeName}`,
      transform: withoutManagedFields,
    };
    this.watch = o.watchFactory ? o.watchFactory(watchOptions) : new CachedListWatch<Pod>(watchOptions);
    this.notifier = {
      name: 'remote-pods',
      kind: 'remote-pods',
      keys: () => [...new Set([...this.watch.list().map(remoteKeyOf), ...this.told.keys(), ...this.deleted.keys()])],
      connect: this.trigger.connect,
      reconcile: (key) => Promise.resolve(this.reconcile(key)),
    };
    this.subscription = this.watch.events.subscribe((e) => this.onEvent(e));
  }

  start(): void {
    this.watch.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.subscription.unsubscribe();
    const stopping = this.watch.stop();
    for (const wake of this.syncWaiters) wake();
    await stopping;
  }

  /** The loop that turns the watch into notifications, for the node's subtree to run. */
  reconciler(): Reconciler {
    return this.notifier;
  }

  setCallback(callback: PodNotificationCallback): void {
    this.callback = callback;
  }

  hasSynced(): boolean {
    return this.watch.hasSynced();
  }

  /** Resolves once the first full list has arrived, or when `signal` aborts (then rejects). */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.watch.hasSynced()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const wake = (): void => {
        this.syncWaiters.delete(wake);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.syncWaiters.delete(wake);
        reject(signal?.reason as Error);
      };
      this.syncWaiters.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The cached remote pod in `remoteNamespace`/`name`, if it is Tether's. Owned by the cache: do not mutate. */
  get(remoteNamespace: string, name: string): Pod | undefined {
    const pod = this.watch.get(`${remoteNamespace}/${name}`);
    return pod && ownershipOf(pod, this.o.rule).owned ? pod : undefined;
  }

  /** Every cached remote pod that is Tether's. */
  list(): Pod[] {
    return this.watch.list().filter((pod) => ownershipOf(pod, this.o.rule).owned);
  }

  /**
   * The orphan sweep's light listing: every cached remote pod that is Tether's, as its host
   * identity and Tether's marks. Read from the watch cache (no API call), nothing deep-copied or
   * translated, so 10k pods cost milliseconds.
   */
  listMarks(): PodMarks[] {
    const out: PodMarks[] = [];
    for (const remote of this.watch.list()) {
      const verdict = ownershipOf(remote, this.o.rule);
      if (verdict.owned) out.push({ ...verdict.identity, marks: podMarksOf(remote).marks });
    }
    return out;
  }

  /** How many remote pods carrying Tether's marks were ignored because they fail the ownership rule. */
  ignoredCount(): number {
    return this.ignoredTotal;
  }

  /** Remembers that Tether asked for this deletion (see the module comment); forgotten when no such pod is there (`reconcile`). */
  markDeleting(remoteNamespace: string, name: string, remoteUid: string | undefined): void {
    this.deleting.set(`${remoteNamespace}/${name}`, remoteUid);
    this.trigger.enqueue(`${remoteNamespace}/${name}`);
  }

  /**
   * A resize the remote API server refused (a condition), or none any more (undefined): the host
   * is told again at once, with the condition on the pod's status while it holds.
   */
  setResizeRefusal(remoteNamespace: string, name: string, condition: PodCondition | undefined): void {
    const key = `${remoteNamespace}/${name}`;
    if (condition === undefined ? !this.refusals.has(key) : this.refusals.get(key)?.message === condition.message) return;
    if (condition === undefined) this.refusals.delete(key);
    else this.refusals.set(key, condition);
    // Told again: the remote pod itself did not change.
    const told = this.told.get(key);
    if (told) this.told.set(key, { ...told, metadata: { ...told.metadata, resourceVersion: '' } });
    this.trigger.enqueue(key);
  }

  /** How many asked deletions are remembered (bounded by the pods present). */
  pendingDeletions(): number {
    return this.deleting.size;
  }

  private onEvent(event: EngineEvent<Pod>): void {
    switch (event.type) {
      case 'synced':
        for (const wake of [...this.syncWaiters]) wake();
        return;
      case 'error':
        return; // the watch restarts itself; it logged already
      case 'added':
      case 'updated':
        return this.onPresent(event.object);
      case 'deleted':
        return this.onDeleted(event.object);
    }
  }

  /** The host identity of a pod that is Tether's; for any other, undefined (counted and logged once). */
  private owned(remote: Pod, gone: boolean): { namespace: string; name: string; uid: string } | undefined {
    const verdict = ownershipOf(remote, this.o.rule);
    const uid = remote.metadata?.uid ?? `${remote.metadata?.namespace}/${remote.metadata?.name}`;
    if (verdict.owned) return verdict.identity;
    if (gone) {
      this.ignoredUids.delete(uid);
    } else if (!this.ignoredUids.has(uid)) {
      this.ignoredUids.add(uid);
      this.ignoredTotal++;
      this.o.log.warn('ignoring a remote pod that carries Tether\'s marks but is not Tether\'s', {
        pod: `${remote.metadata?.namespace}/${remote.metadata?.name}`, node: this.o.nodeName, why: verdict.why,
      });
    }
    return undefined;
  }

  private onPresent(remote: Pod): void {
    const identity = this.owned(remote, false);
    if (!identity) return;
    this.o.onAppear?.(`${identity.namespace}/${identity.name}`, identity.namespace, remote);
    this.trigger.enqueue(remoteKeyOf(remote));
  }

  private onDeleted(remote: Pod): void {
    const identity = this.owned(remote, true);
    if (!identity) return;
    this.o.onGo?.(`${identity.namespace}/${identity.name}`, remote);
    this.deleted.set(remoteKeyOf(remote), remote);
    this.trigger.enqueue(remoteKeyOf(remote));
  }

  /**
   * Level-based: what the host side was told about `key` against what the cache holds now. An
   * ended pod (gone from the cache, or replaced by one with another uid) is reported first, from
   * its last copy; then the pod in the cache, if it is Tether's and changed since it was told.
   */
  private reconcile(key: string): ReconcileResult {
    if (this.stopped) return done;
    const present = this.watch.get(key);
    const told = this.told.get(key);
    const last = this.deleted.get(key);
    this.deleted.delete(key);
    const ended = told ?? last;
    if (ended && !sameUid(ended, present)) {
      this.told.delete(key);
      this.notifyEnd(key, sameUid(ended, last) ? (last ?? ended) : ended);
    }
    // An asked deletion of a pod that is not there (ended above, or already gone when asked) is done with.
    const askedUid = this.deleting.get(key);
    if (this.deleting.has(key) && !(present && (askedUid === undefined || askedUid === present.metadata?.uid))) this.deleting.delete(key);
    const current = present && ownershipOf(present, this.o.rule).owned ? present : undefined;
    if (!current) this.refusals.delete(key);
    if (!current || sameVersion(this.told.get(key), current)) return done;
    this.told.set(key, current);
    const pod = toHostPod(current, this.o.view);
    const refusal = this.refusals.get(key);
    if (pod && refusal) pod.status = { ...pod.status, conditions: [...(pod.status?.conditions ?? []).filter((c) => c.type !== refusal.type), refusal] };
    if (pod) this.notify({ type: 'status', pod });
    return done;
  }

  private notifyEnd(key: string, remote: Pod): void {
    const identity = ownershipOf(remote, this.o.rule);
    if (!identity.owned) return;
    const askedUid = this.deleting.get(key);
    const asked = this.deleting.has(key) && (askedUid === undefined || askedUid === remote.metadata?.uid);
    if (!asked) {
      this.notify({ type: 'gone', ...identity.identity, reason: 'RemotePodDeleted', message: remotePodDeletedMessage });
      return;
    }
    this.deleting.delete(key);
    const pod = toHostPod(remote, this.o.view);
    if (!pod) return;
    pod.status = hostStatus(endedStatus(remote, new Date(this.o.clock.now())), this.o.view);
    this.notify({ type: 'status', pod });
  }

  private notify(notification: PodNotification): void {
    const callback = this.callback;
    if (!callback) return;
    try {
      callback(notification);
    } catch (err) {
      this.o.log.warn('pod notification callback threw', { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

const remoteKeyOf = (remote: Pod): string => `${remote.metadata?.namespace ?? ''}/${remote.metadata?.name ?? ''}`;

const sameUid = (a: Pod | undefined, b: Pod | undefined): boolean => a !== undefined && b !== undefined && a.metadata?.uid === b.metadata?.uid;

const sameVersion = (a: Pod | undefined, b: Pod): boolean => sameUid(a, b) && a?.metadata?.resourceVersion === b.metadata?.resourceVersion;

/** The terminal status of a remote pod that was deleted on Tether's request. */
export function endedStatus(remote: Pod, now: Date): PodStatus {
  const last = remote.status;
  if (last?.phase === 'Succeeded' || last?.phase === 'Failed') return structuredClone(last);
  const ended = terminatedStatus(remote, last ? structuredClone(last) : undefined, { now, exitCode: 137, reason: 'Terminated' });
  return {
    ...ended,
    phase: 'Failed',
    reason: 'Terminated',
    message: 'the remote pod was deleted on request before it reported an end',
  };
}
