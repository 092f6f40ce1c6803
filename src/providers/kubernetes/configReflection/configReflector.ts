/**
 * ConfigMaps and Secrets follow the pods that reference them (see references.ts for where).
 *
 * - Before a pod is created remotely, `reflectFor` reads each referenced object from the HOST
 *   cluster and writes its copy (reflectedObject.ts) into the remote namespace. A missing
 *   required object rejects `transient` naming it and the reference, with virtual-kubelet's Event
 *   reason (`MandatoryConfigMapNotFound`, `MandatorySecretNotFound`); a missing optional one is
 *   skipped and reported through `onOptionalMissing` (`OptionalConfigMapNotFound`, …).
 * - While any of this node's remote pods references an object, the host namespace's ConfigMaps
 *   and Secrets are watched (one self-healing list-watch each per namespace; Secret data stays in
 *   memory only, never in logs), and every change is written through; a host deletion deletes
 *   the copy. Writes that would change nothing are skipped: a change is judged against the copy
 *   as the remote's watch shows it (content digest), so a restarted Tether whose first listings
 *   find its copies in sync writes none.
 * - Copies no remote pod references any more are deleted by a sweep: shortly after one of this
 *   node's remote pods goes, after start-up, and every `sweepMs`. The sweep is level-based and
 *   safe across virtual nodes sharing a remote namespace: it lists every Tether copy of this host
 *   cluster, and keeps those referenced by any Tether pod in that namespace (of any virtual node),
 *   by a pod this node is creating, or younger than `minAgeMs` (another node may be about to
 *   create its pod).
 * - A remote object of the same name that does not carry Tether's marks is never overwritten:
 *   the pod's creation fails (transient) saying so.
 * - The remote copies are watched too (this host cluster's, all namespaces): a copy deleted or
 *   edited in the remote cluster while a pod still references it is put back from the host,
 *   judged from both watches' caches (copyRepair.ts) on every copy event, every (re)list of
 *   either side and every newly tracked pod, so a deletion that raced the watches' start is seen.
 * - A ServiceAccount token Secret (`kubernetes.io/service-account-token`) is never copied: a pod
 *   that references one is refused (invalid input: annotation and Event on the host pod), since
 *   the remote's users would hold a credential of the host cluster.
 */
import type { V1ConfigMapList, V1SecretList } from '@kubernetes/client-node';
import type { Clock, Timer } from '../../../lib/clock.js';
import { CachedListWatch, type CachedListWatchOptions, type EngineEvent, type ListWatchSource, type WatchTiming } from '../../../adapters/kubernetes/cachedListWatch.js';
import { describeApiError } from '../../../adapters/kubernetes/errors.js';
import { isKind } from '../../../lib/errorKind.js';
import { isOlder } from '../../../adapters/kubernetes/watchCache.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { invalidInput, transient } from '../../errors.js';
import type { ClusterClient } from '../clusterClient.js';
import type { Subscription } from 'rxjs';
import { hostClusterSelector, hostNamespaceAnnotation, isOwned } from '../marks.js';
import { NamespacedWatches } from '../namespacedWatches.js';
import { decideCopyRepair } from './copyRepair.js';
import { contentDigest, isServiceAccountToken, remoteCopy, SERVICE_ACCOUNT_TOKEN_TYPE, type HostObject } from './reflectedObject.js';
import { ReferenceIndex } from './referenceIndex.js';
import { referencedObjects, referenceKey, type ObjectReference, type ReferencedKind } from './references.js';
import { toProviderError } from '../remoteErrors.js';
import { operation } from '../../../adapters/kubernetes/operation.js';

export interface ReflectorOptions {
  readonly host: ClusterClient;
  readonly remote: ClusterClient;
  readonly hostClusterId: string;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
  readonly clock: Clock;
  readonly log: KubeLog;
  readonly watch?: WatchTiming;
  /** Full sweep period (default 5 min). */
  readonly sweepMs?: number;
  /** Copies younger than this are never swept (default 30 s). */
  readonly minAgeMs?: number;
  /** Delay of the sweep after a pod goes, so a burst of deletions costs one sweep (default 1 s). */
  readonly sweepDelayMs?: number;
  /**
   * An optional object the pod names is missing: it runs without it, and the pod gets a Warning
   * Event with virtual-kubelet's reason (`OptionalConfigMapNotFound`, `OptionalSecretNotFound`).
   */
  readonly onOptionalMissing?: (hostPod: Pod, reason: string, note: string) => void;
  /** Makes the list-watches (default: CachedListWatch); unit tests hand in fakes. */
  readonly watchFactory?: (options: CachedListWatchOptions<HostObject>) => ListWatchSource<HostObject>;
}

const kindWord = (kind: ReferencedKind): string => (kind === 'ConfigMap' ? 'configmap' : 'secret');

export class Reflector {
  private readonly index = new ReferenceIndex();
  /**
   * Per copy: the digest of the content last written, of what the remote stored for it (an
   * admission webhook may add to it), and the resourceVersion it got.
   */
  private readonly written = new Map<string, { readonly desired: string; readonly stored: string; readonly version: string }>();
  /** Copies whose last write the copies' watch has not shown yet (no event at or after its version). */
  private readonly awaitingEcho = new Set<string>();
  /** Copies with a write in flight (how many), and those a repair was asked for meanwhile. */
  private readonly inflight = new Map<string, number>();
  private readonly recheck = new Set<string>();
  private readonly creating = new Map<string, { namespace: string; keys: string[] }>();
  private readonly watches: Record<ReferencedKind, NamespacedWatches<HostObject>>;
  /** The remote copies, to put back one that is deleted or edited there (started with the first reference). */
  private copies: Record<ReferencedKind, { watch: ListWatchSource<HostObject>; subscription: Subscription }> | undefined;
  private sweepTimer: Timer | undefined;
  private periodicTimer: Timer | undefined;
  private stopped = false;

  constructor(private readonly o: ReflectorOptions) {
    this.watches = {
      ConfigMap: new NamespacedWatches((ns) => this.hostWatch('ConfigMap', ns), (ns, e) => this.onHostEvent('ConfigMap', ns, e)),
      Secret: new NamespacedWatches((ns) => this.hostWatch('Secret', ns), (ns, e) => this.onHostEvent('Secret', ns, e)),
    };
  }

  start(): void {
    this.armPeriodicSweep();
  }

  stop(): void {
    this.stopped = true;
    this.sweepTimer?.cancel();
    this.periodicTimer?.cancel();
    this.watches.ConfigMap.stop();
    this.watches.Secret.stop();
    for (const { watch, subscription } of Object.values(this.copies ?? {})) {
      subscription.unsubscribe();
      watch.stop();
    }
  }

  /**
   * Copies everything `hostPod` references into `remoteNamespace` (which must exist). Rejects
   * with classified provider errors only. The references count as held until `done` is called.
   */
  async reflectFor(hostPod: Pod, remoteNamespace: string): Promise<{ done: () => void }> {
    const namespace = hostPod.metadata?.namespace ?? 'default';
    const podKey = `${namespace}/${hostPod.metadata?.name ?? ''}`;
    const refs = referencedObjects(hostPod);
    const token = { namespace, keys: refs.map((r) => referenceKey(r.kind, r.name)) };
    this.creating.set(podKey, token);
    const done = (): void => {
      if (this.creating.get(podKey) === token) this.creating.delete(podKey);
    };
    try {
      for (const ref of refs) {
        const found = await this.readHost(namespace, ref);
        if (!found) this.o.onOptionalMissing?.(hostPod, `Optional${ref.kind}NotFound`, `${kindWord(ref.kind)} "${ref.name}" not found`);
        if (found && isServiceAccountToken(ref.kind, found)) {
          throw invalidInput(`secret ${namespace}/${ref.name} (referenced by ${ref.where}) is a ServiceAccount token (type ${SERVICE_ACCOUNT_TOKEN_TYPE}): Tether never copies host credentials to the remote cluster`);
        }
        if (found) await this.writeRemote(ref.kind, remoteCopy(ref.kind, found, remoteNamespace, this.o.hostClusterId));
      }
    } catch (err) {
      done();
      throw err;
    }
    return { done };
  }

  /** This node's remote pods, as they come and go: what they reference is kept in sync. */
  track(hostPodKey: string, hostNamespace: string, remotePod: Pod): void {
    if (this.index.has(hostPodKey)) return; // references are fixed at creation (volumes and env are immutable)
    const refs = referencedObjects(remotePod);
    this.index.set(hostPodKey, hostNamespace, refs.map((r) => referenceKey(r.kind, r.name)));
    this.refreshWatches();
    // A copy deleted remotely between its write and now left no event this reflector listened to.
    for (const ref of refs) this.repair(ref.kind, hostNamespace, ref.name);
  }

  untrack(hostPodKey: string): void {
    if (!this.index.has(hostPodKey)) return;
    this.index.remove(hostPodKey);
    this.refreshWatches();
    this.scheduleSweep(this.o.sweepDelayMs ?? 1_000);
  }

  /** Deletes the copies nothing references (see the module comment). Never rejects. */
  async sweep(): Promise<void> {
    try {
      const selector = hostClusterSelector(this.o.hostClusterId);
      const [configMaps, secrets] = await Promise.all([
        this.o.remote.call<V1ConfigMapList>('other', operation('list', 'reflected configmaps'), (core, options) => core.listConfigMapForAllNamespaces({ labelSelector: selector }, options)),
        this.o.remote.call<V1SecretList>('other', operation('list', 'reflected secrets'), (core, options) => core.listSecretForAllNamespaces({ labelSelector: selector }, options)),
      ]);
      const candidates = [
        ...configMaps.items.map((object) => ({ kind: 'ConfigMap' as const, object })),
        ...secrets.items.map((object) => ({ kind: 'Secret' as const, object })),
      ].filter((c) => this.oldEnough(c.object));
      const namespaces = new Set(candidates.map((c) => c.object.metadata?.namespace ?? ''));
      for (const namespace of namespaces) {
        const used = await this.referencedInRemoteNamespace(namespace);
        for (const c of candidates) {
          const name = c.object.metadata?.name ?? '';
          if (c.object.metadata?.namespace !== namespace || used.has(referenceKey(c.kind, name))) continue;
          await this.deleteRemote(c.kind, namespace, name);
        }
      }
    } catch (err) {
      this.o.log.warn('sweeping reflected configmaps and secrets failed; will retry', { error: describeApiError(err) });
    }
  }

  private oldEnough(object: HostObject): boolean {
    const created = object.metadata?.creationTimestamp;
    if (!created) return true;
    return this.o.clock.now() - new Date(created).getTime() >= (this.o.minAgeMs ?? 30_000);
  }

  /** Keys referenced by any Tether pod in a remote namespace, or by pods this node is creating. */
  private async referencedInRemoteNamespace(remoteNamespace: string): Promise<Set<string>> {
    const pods = await this.o.remote.call('other', operation('list', `tether pods in ${remoteNamespace}`), (core, options) =>
      core.listNamespacedPod({ namespace: remoteNamespace, labelSelector: hostClusterSelector(this.o.hostClusterId) }, options),
    );
    const used = new Set<string>();
    for (const pod of pods.items) for (const ref of referencedObjects(pod)) used.add(referenceKey(ref.kind, ref.name));
    for (const pending of this.creating.values()) {
      if (this.o.remoteNamespaceOf(pending.namespace) === remoteNamespace) for (const key of pending.keys) used.add(key);
    }
    return used;
  }

  private async readHost(namespace: string, ref: ObjectReference): Promise<HostObject | undefined> {
    const what = `${kindWord(ref.kind)} ${namespace}/${ref.name}`;
    try {
      return await this.o.host.call<HostObject>('other', operation('get', `${what} from the host cluster`), (core, options) =>
        ref.kind === 'ConfigMap'
          ? core.readNamespacedConfigMap({ name: ref.name, namespace }, options)
          : core.readNamespacedSecret({ name: ref.name, namespace }, options),
      );
    } catch (err) {
      if (!isKind(err, 'not-found')) throw toProviderError(err, `read ${what} from the host cluster`);
      if (ref.optional) return undefined;
      // virtual-kubelet's reasons, so tools that wait for them see them (MandatorySecretNotFound, …).
      throw transient(`${what} not found (referenced by ${ref.where})`, { cause: err, reason: `Mandatory${ref.kind}NotFound` });
    }
  }

  /** Creates or replaces the remote copy; refuses to overwrite an object Tether does not own. */
  private async writeRemote(kind: ReferencedKind, copy: HostObject): Promise<void> {
    const namespace = copy.metadata?.namespace ?? '';
    const name = copy.metadata?.name ?? '';
    const key = `${kind}/${namespace}/${name}`;
    const digest = contentDigest(copy);
    if (this.written.get(key)?.desired === digest) return;
    const what = `remote ${kindWord(kind)} ${namespace}/${name}`;
    this.inflight.set(key, (this.inflight.get(key) ?? 0) + 1);
    try {
      const stored = await this.store(kind, copy, what);
      const version = stored?.metadata?.resourceVersion ?? '';
      this.written.set(key, { desired: digest, stored: stored ? contentDigest(stored) : digest, version });
      const seen = this.copies?.[kind].watch.get(`${namespace}/${name}`)?.metadata?.resourceVersion;
      // Its event may have come while the write was in flight; if not, what the watch holds is older.
      if (version !== '' && (seen === undefined || isOlder(seen, version))) this.awaitingEcho.add(key);
      else this.awaitingEcho.delete(key);
    } catch (err) {
      this.written.delete(key);
      throw toProviderError(err, `write ${what}`);
    } finally {
      this.settled(kind, key, copy);
    }
  }

  /**
   * One write: a replace at the resourceVersion of the copy the watch holds (one request, where
   * create-then-replace costs three), else a create, then a read and replace if it exists.
   */
  private async store(kind: ReferencedKind, copy: HostObject, what: string): Promise<HostObject | undefined> {
    const namespace = copy.metadata?.namespace ?? '';
    const name = copy.metadata?.name ?? '';
    const cached = this.copies?.[kind].watch.get(`${namespace}/${name}`);
    if (cached && isOwned(cached.metadata?.labels, this.o.hostClusterId)) {
      try {
        return await this.replaceAt(kind, copy, cached.metadata?.resourceVersion, what);
      } catch (err) {
        // The watch was behind (changed or deleted since): do it the long way.
        if (!isKind(err, 'conflict') && !isKind(err, 'not-found')) throw err;
      }
    }
    try {
      return await this.o.remote.call<HostObject>('other', operation('create', `${what}`), (core, options) =>
        kind === 'ConfigMap' ? core.createNamespacedConfigMap({ namespace, body: copy }, options) : core.createNamespacedSecret({ namespace, body: copy }, options),
      );
    } catch (err) {
      if (!isKind(err, 'already-exists')) throw err;
      return this.replaceRemote(kind, copy, what);
    }
  }

  /** A write has settled: a repair asked for while it was in flight runs now, against what the watches show. */
  private settled(kind: ReferencedKind, key: string, copy: HostObject): void {
    const left = (this.inflight.get(key) ?? 1) - 1;
    if (left > 0) {
      this.inflight.set(key, left);
      return;
    }
    this.inflight.delete(key);
    const hostNamespace = copy.metadata?.annotations?.[hostNamespaceAnnotation];
    if (this.recheck.delete(key) && hostNamespace !== undefined) this.repair(kind, hostNamespace, copy.metadata?.name ?? '');
  }

  private async replaceRemote(kind: ReferencedKind, copy: HostObject, what: string): Promise<HostObject | undefined> {
    const namespace = copy.metadata?.namespace ?? '';
    const name = copy.metadata?.name ?? '';
    const current = await this.o.remote.call<HostObject>('other', operation('get', `${what}`), (core, options) =>
      kind === 'ConfigMap' ? core.readNamespacedConfigMap({ name, namespace }, options) : core.readNamespacedSecret({ name, namespace }, options),
    );
    if (!isOwned(current.metadata?.labels, this.o.hostClusterId)) {
      throw transient(`${what} exists and is not managed by Tether for this host cluster; not overwriting it`);
    }
    return this.replaceAt(kind, copy, current.metadata?.resourceVersion, what);
  }

  private replaceAt(kind: ReferencedKind, copy: HostObject, resourceVersion: string | undefined, what: string): Promise<HostObject | undefined> {
    const namespace = copy.metadata?.namespace ?? '';
    const name = copy.metadata?.name ?? '';
    const body = { ...copy, metadata: { ...copy.metadata, resourceVersion } };
    return this.o.remote.call<HostObject>('other', operation('update', `${what}`), (core, options) =>
      kind === 'ConfigMap'
        ? core.replaceNamespacedConfigMap({ name, namespace, body }, options)
        : core.replaceNamespacedSecret({ name, namespace, body }, options),
    );
  }

  private async deleteRemote(kind: ReferencedKind, namespace: string, name: string): Promise<void> {
    this.written.delete(`${kind}/${namespace}/${name}`);
    this.awaitingEcho.delete(`${kind}/${namespace}/${name}`);
    try {
      await this.o.remote.call('delete', operation('delete', `remote ${kindWord(kind)} ${namespace}/${name}`), (core, options) =>
        kind === 'ConfigMap' ? core.deleteNamespacedConfigMap({ name, namespace }, options) : core.deleteNamespacedSecret({ name, namespace }, options),
      );
      this.o.log.debug('deleted unreferenced reflected object', { kind, namespace, name });
    } catch (err) {
      if (!isKind(err, 'not-found')) throw err;
    }
  }

  private refreshWatches(): void {
    if (this.stopped) return;
    const namespaces = this.index.namespaces();
    if (namespaces.length > 0 && !this.copies) this.copies = { ConfigMap: this.copyWatch('ConfigMap'), Secret: this.copyWatch('Secret') };
    const hasKind = (kind: ReferencedKind) => (ns: string): boolean => this.index.keysIn(ns).some((k) => k.startsWith(`${kind}/`));
    this.watches.ConfigMap.setNamespaces(namespaces.filter(hasKind('ConfigMap')));
    this.watches.Secret.setNamespaces(namespaces.filter(hasKind('Secret')));
  }

  private newWatch(options: CachedListWatchOptions<HostObject>): ListWatchSource<HostObject> {
    return this.o.watchFactory ? this.o.watchFactory(options) : new CachedListWatch<HostObject>(options);
  }

  private hostWatch(kind: ReferencedKind, namespace: string): ListWatchSource<HostObject> {
    const plural = kind === 'ConfigMap' ? 'configmaps' : 'secrets';
    return this.newWatch({
      ...this.o.watch,
      kubeConfig: this.o.host.kubeConfig,
      path: `/api/v1/namespaces/${namespace}/${plural}`,
      list: async () => {
        const list = await this.o.host.call<V1ConfigMapList | V1SecretList>('other', operation('list', `host ${plural} in ${namespace}`), (core, options) =>
          kind === 'ConfigMap' ? core.listNamespacedConfigMap({ namespace }, options) : core.listNamespacedSecret({ namespace }, options),
        );
        return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
      },
      clock: this.o.clock,
      log: this.o.log,
      description: `host ${plural} in ${namespace}`,
    });
  }

  /** One list-watch of this host cluster's copies of `kind` in the remote cluster (all namespaces). */
  private copyWatch(kind: ReferencedKind): { watch: ListWatchSource<HostObject>; subscription: Subscription } {
    const plural = kind === 'ConfigMap' ? 'configmaps' : 'secrets';
    const labelSelector = hostClusterSelector(this.o.hostClusterId);
    const watch = this.newWatch({
      ...this.o.watch,
      kubeConfig: this.o.remote.kubeConfig,
      path: `/api/v1/${plural}`,
      labelSelector,
      list: async () => {
        const list = await this.o.remote.call<V1ConfigMapList | V1SecretList>('other', operation('list', `reflected ${plural}`), (core, options) =>
          kind === 'ConfigMap' ? core.listConfigMapForAllNamespaces({ labelSelector }, options) : core.listSecretForAllNamespaces({ labelSelector }, options),
        );
        return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
      },
      clock: this.o.clock,
      log: this.o.log,
      description: `reflected ${plural} in the remote cluster`,
    });
    const subscription = watch.events.subscribe((event) => this.onCopyEvent(kind, event));
    watch.start();
    return { watch, subscription };
  }

  /** A remote copy came, changed or went, or the copies were listed: put back what no longer matches its source. */
  private onCopyEvent(kind: ReferencedKind, event: EngineEvent<HostObject>): void {
    if (this.stopped || event.type === 'error') return;
    if (event.type === 'synced') {
      // A (re)list is the watch's whole view: nothing it holds is waiting for an echo any more.
      this.awaitingEcho.clear();
      for (const namespace of this.index.namespaces()) this.repairAll(kind, namespace);
      return;
    }
    const copy = event.object;
    const hostNamespace = copy.metadata?.annotations?.[hostNamespaceAnnotation];
    if (!hostNamespace || this.o.remoteNamespaceOf(hostNamespace) !== copy.metadata?.namespace) return;
    const key = `${kind}/${copy.metadata.namespace}/${copy.metadata.name ?? ''}`;
    // An event from before Tether's last write (a deletion it has undone, say) is not the answer to it.
    if (this.awaitingEcho.has(key) && !isOlder(copy.metadata.resourceVersion ?? '', this.written.get(key)?.version ?? '')) this.awaitingEcho.delete(key);
    this.repair(kind, hostNamespace, copy.metadata.name ?? '');
  }

  private repairAll(kind: ReferencedKind, hostNamespace: string): void {
    for (const key of this.index.keysIn(hostNamespace)) {
      if (key.startsWith(`${kind}/`)) this.repair(kind, hostNamespace, key.slice(kind.length + 1));
    }
  }

  /** The host object as its watch holds it, if it is one Tether copies (never a ServiceAccount token). */
  private copiedSource(kind: ReferencedKind, hostNamespace: string, name: string): HostObject | undefined {
    const watched = this.watches[kind].get(hostNamespace, name);
    return watched && isServiceAccountToken(kind, watched) ? undefined : watched;
  }

  /**
   * Writes the copy of one referenced object if the watches show it missing or not carrying its
   * source (copyRepair.ts); `changed` says which side moved, for the log.
   */
  private repair(kind: ReferencedKind, hostNamespace: string, name: string, changed: 'host' | 'remote' = 'remote'): void {
    if (this.stopped) return;
    const remoteNamespace = this.o.remoteNamespaceOf(hostNamespace);
    const source = this.copiedSource(kind, hostNamespace, name);
    const desired = source && remoteCopy(kind, source, remoteNamespace, this.o.hostClusterId);
    const copies = this.copies?.[kind].watch;
    const key = `${kind}/${remoteNamespace}/${name}`;
    if (this.inflight.has(key)) {
      this.recheck.add(key);
      return;
    }
    const last = this.written.get(key);
    const verdict = decideCopyRepair({
      referenced: this.index.isReferenced(hostNamespace, referenceKey(kind, name)),
      sourceSynced: this.watches[kind].isSynced(hostNamespace),
      source,
      copiesSynced: copies?.hasSynced() ?? false,
      copy: copies?.get(`${remoteNamespace}/${name}`),
      desired,
      ...(last && desired && last.desired === contentDigest(desired) ? { stored: last.stored } : {}),
      // Only the content last written waits for its echo; a host that has moved on needs a write anyway.
      awaitingEcho: this.awaitingEcho.has(key) && last !== undefined && desired !== undefined && last.desired === contentDigest(desired),
    });
    if (verdict.action === 'none' && verdict.why === 'waiting-for-watches' && changed === 'host') {
      this.o.log.debug('a host change waits for the first listing of the remote copies', { kind, namespace: hostNamespace, name });
    }
    if (verdict.action === 'none' || !desired) return;
    if (changed === 'remote') this.o.log.warn('putting back a reflected copy missing or changed in the remote cluster', { kind, namespace: remoteNamespace, name });
    this.written.delete(key);
    this.writeRemote(kind, desired).catch((err: unknown) =>
      this.o.log.warn('writing a reflected copy failed; its next change or the next listing retries', {
        kind, namespace: remoteNamespace, name, error: err instanceof Error ? err.message : String(err),
      }),
    );
  }

  private onHostEvent(kind: ReferencedKind, namespace: string, event: EngineEvent<HostObject>): void {
    if (this.stopped) return;
    if (event.type === 'error') return; // the watch restarts itself
    if (event.type === 'synced') {
      // A (re)list: compare with the copies as the remote shows them, not with what was written.
      this.repairAll(kind, namespace);
      return;
    }
    const name = event.object.metadata?.name ?? '';
    if (!this.index.isReferenced(namespace, referenceKey(kind, name))) return;
    // A change is judged as a repair is, against the copy as the remote shows it, not against
    // what this process remembers writing: a restarted Tether's first host listing reports every
    // object again, and a copy already in sync is left alone.
    if (this.copiedSource(kind, namespace, name)) {
      this.repair(kind, namespace, name, 'host');
      return;
    }
    if (event.type !== 'deleted') return;
    this.deleteRemote(kind, this.o.remoteNamespaceOf(namespace), name).catch((err: unknown) =>
      this.o.log.warn('deleting a reflected object failed; the next change or sweep retries', {
        kind, namespace, name, error: err instanceof Error ? err.message : String(err),
      }),
    );
  }

  private scheduleSweep(delayMs: number): void {
    if (this.stopped || this.sweepTimer) return;
    this.sweepTimer = this.o.clock.setTimer(delayMs, () => {
      this.sweepTimer = undefined;
      void this.sweep();
    });
  }

  private armPeriodicSweep(): void {
    if (this.stopped) return;
    this.periodicTimer = this.o.clock.setTimer(this.o.sweepMs ?? 5 * 60_000, () => {
      void this.sweep().then(() => this.armPeriodicSweep());
    });
  }
}
