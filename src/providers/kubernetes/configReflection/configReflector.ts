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
 * - Copies no remote pod references any more are deleted by a sweep (orphanSweep.ts): shortly
 *   after one of this node's remote pods goes, after start-up, and every `sweepMs`.
 * - A remote object of the same name that is not Tether's copy (reflectedObject.ts
 *   `isTetherCopy`) is never overwritten or deleted (copyWriter.ts), and is reported once
 *   (`onNotOwned`); a pod being created fails (transient) saying so.
 * - The remote copies are watched too (this host cluster's, all namespaces): a copy deleted or
 *   edited in the remote cluster while a pod still references it is put back from the host,
 *   judged from both watches' caches (copyRepair.ts) on every copy event, every (re)list of
 *   either side and every newly tracked pod, so a deletion that raced the watches' start is seen.
 * - A ServiceAccount token Secret (`kubernetes.io/service-account-token`) is never copied: a pod that
 *   references one is refused (invalid input: annotation and Event), lest the remote's users hold a host credential.
 *
 * Both loops are reconcilers (src/lib/reconcile.ts) the node's subtree runs as supervised actors
 * (`reconcilers()`): `config-reflection`, keyed `<host namespace>/<kind>/<name>`, whose level
 * source is every object this node's pods reference and whose events are both watches'; and
 * `config-sweep`, one key. The primitive owns the queue, one write in flight per copy, retries
 * with backoff and the resync; this file only judges one key. What Tether last wrote is the
 * ledger's (copyLedger.ts), the calls are the writer's (copyWriter.ts).
 */
import { operation } from '../../../adapters/kubernetes/operation.js';
import type { V1ConfigMapList, V1SecretList } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import type { Clock } from '../../../lib/clock.js';
import { errorMessage } from '../../../lib/errorMessage.js';
import { done, reconcileError, reconcileTrigger, type ReconcileResult, type Reconciler } from '../../../lib/reconcile.js';
import { CachedListWatch, type CachedListWatchOptions, type EngineEvent, type ListWatchSource, type WatchTiming } from '../../../adapters/kubernetes/cachedListWatch.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { invalidInput, providerKindOf, transient } from '../../errors.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { hostClusterSelector, hostNamespaceAnnotation } from '../marks.js';
import { NamespacedWatches } from '../namespacedWatches.js';
import { toProviderError, untilAborted } from '../remoteErrors.js';
import { CopyLedger } from './copyLedger.js';
import { decideCopyRepair } from './copyRepair.js';
import { CopyWriter, kindWord } from './copyWriter.js';
import { OrphanSweep } from './orphanSweep.js';
import { NOT_OWNED_REASON, NotOwnedReports } from '../notOwned.js';
import { contentDigest, isServiceAccountToken, remoteCopy, SERVICE_ACCOUNT_TOKEN_TYPE, type HostObject } from './reflectedObject.js';
import { ReferenceIndex } from './referenceIndex.js';
import { referencedObjects, referenceKey, type ReferencedKind } from './references.js';
import { definedOnly, ifDefined } from '../../../lib/defaults.js';
import { stopParts, subscribedWatchParts } from '../../../lib/lifecycle.js';

export interface ReflectorOptions {
  readonly host: ClusterClient;
  readonly remote: ClusterClient;
  readonly hostClusterId: string;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
  /** Rejects when the remote namespace may not receive copies (pods/remoteNamespaces.ts: not Tether's, not adoptable). */
  readonly namespaceUsable?: (remoteNamespace: string, hostNamespace: string) => Promise<void>;
  readonly clock: Clock;
  readonly log: KubeLog;
  readonly watch?: WatchTiming;
  /** Full sweep period, and the resync of every copy (default 5 min). */
  readonly sweepMs?: number;
  /** Copies younger than this are never swept (default 30 s). */
  readonly minAgeMs?: number;
  /** Delay of the sweep after a pod goes, so a burst of deletions costs one sweep (default 1 s). */
  readonly sweepDelayMs?: number;
  /** An optional object the pod names is missing: it runs without it, with virtual-kubelet's Warning (`Optional<Kind>NotFound`). */
  readonly onOptionalMissing?: (hostPod: Pod, reason: string, note: string) => void;
  /**
   * A remote object that lost Tether's marks holds a copy's name: left alone, and reported once
   * (the provider records a `ReflectionNotOwned` Warning on the host object).
   */
  readonly onNotOwned?: (host: { readonly kind: ReferencedKind; readonly namespace: string; readonly name: string }, note: string) => void;
  /** Makes the list-watches (default: CachedListWatch); unit tests hand in fakes. */
  readonly watchFactory?: (options: CachedListWatchOptions<HostObject>) => ListWatchSource<HostObject>;
}

const KINDS: readonly ReferencedKind[] = ['ConfigMap', 'Secret'];
const SWEEP_KEY = 'sweep';
const plural = (kind: ReferencedKind): string => (kind === 'ConfigMap' ? 'configmaps' : 'secrets');

/** The reconcile key of one referenced host object. */
const copyKey = (hostNamespace: string, kind: ReferencedKind, name: string): string => `${hostNamespace}/${referenceKey(kind, name)}`;

function parseCopyKey(key: string): { hostNamespace: string; kind: ReferencedKind; name: string } | undefined {
  const [hostNamespace, kind, name, ...rest] = key.split('/');
  if (hostNamespace === undefined || name === undefined || rest.length > 0 || (kind !== 'ConfigMap' && kind !== 'Secret')) return undefined;
  return { hostNamespace, kind, name };
}

export class Reflector {
  private readonly index = new ReferenceIndex();
  private readonly ledger = new CopyLedger();
  /** Copies taken over in the remote cluster, reported once each (for /metrics and tests). */
  readonly notOwned = new NotOwnedReports();
  private readonly writer: CopyWriter;
  private readonly orphans: OrphanSweep;
  private readonly copyEvents = reconcileTrigger();
  private readonly sweepEvents = reconcileTrigger();
  private readonly loops: readonly Reconciler[];
  private readonly watches: Record<ReferencedKind, NamespacedWatches<HostObject>>;
  /** The remote copies, to put back one that is deleted or edited there (started with the first reference). */
  private copies: Record<ReferencedKind, { watch: ListWatchSource<HostObject>; subscription: Subscription }> | undefined;
  private stopped = false;

  constructor(private readonly o: ReflectorOptions) {
    this.writer = new CopyWriter(o);
    this.orphans = new OrphanSweep({ ...o, minAgeMs: o.minAgeMs });
    this.watches = {
      ConfigMap: new NamespacedWatches((ns) => this.hostWatch('ConfigMap', ns), (ns, e) => this.onHostEvent('ConfigMap', ns, e)),
      Secret: new NamespacedWatches((ns) => this.hostWatch('Secret', ns), (ns, e) => this.onHostEvent('Secret', ns, e)),
    };
    const resyncMs = o.sweepMs ?? 5 * 60_000;
    this.loops = [
      {
        name: 'config-reflection',
        kind: 'config-reflector',
        settings: { resyncMs },
        keys: () => this.index.namespaces().flatMap((ns) => this.index.keysIn(ns).map((key) => `${ns}/${key}`)),
        connect: this.copyEvents.connect,
        reconcile: (key) => this.reconcileCopy(key),
      },
      {
        name: 'config-sweep',
        kind: 'config-sweep',
        settings: { resyncMs, maxInFlight: 1, deadlineMs: 5 * 60_000 },
        keys: () => [SWEEP_KEY],
        connect: this.sweepEvents.connect,
        reconcile: (_key, ctx) => this.sweepOnce(ctx.signal),
      },
    ];
  }

  /** The reconcile loops the node's subtree runs (ReconcilingProvider); the same ones every time. */
  reconcilers(): readonly Reconciler[] {
    return this.loops;
  }

  /** Stops every watch, each even when one throws (stopParts). */
  stop(): Promise<void> {
    this.stopped = true;
    return stopParts({
      'ConfigMap watches': this.watches.ConfigMap, 'Secret watches': this.watches.Secret,
      ...subscribedWatchParts(this.copies ?? {}, 'copies watch'),
    });
  }

  /**
   * Copies everything `hostPod` references into `remoteNamespace` (which must exist). Rejects
   * with classified provider errors only. The references stay held until `done`; an aborted `signal` (a given-up create) starts no read and ends the wait for a shared one.
   */
  async reflectFor(hostPod: Pod, remoteNamespace: string, signal?: AbortSignal): Promise<{ done: () => void }> {
    const namespace = hostPod.metadata?.namespace ?? 'default';
    const refs = referencedObjects(hostPod);
    const release = this.orphans.hold(`${namespace}/${hostPod.metadata?.name ?? ''}`, namespace, refs.map((r) => referenceKey(r.kind, r.name)));
    try {
      for (const ref of refs) {
        const what = `${kindWord(ref.kind)} ${namespace}/${ref.name}`;
        const reading = signal?.aborted === true ? Promise.reject(signal.reason as Error) : untilAborted(this.writer.readHost(namespace, ref), signal);
        const found = await reading.catch((err: unknown) => {
          throw toProviderError(err, `read ${what} from the host cluster`);
        });
        if (!found && !ref.optional) {
          // virtual-kubelet's reasons, so tools that wait for them see them (MandatorySecretNotFound, …).
          throw transient(`${what} not found (referenced by ${ref.where})`, { reason: `Mandatory${ref.kind}NotFound` });
        }
        if (!found) this.o.onOptionalMissing?.(hostPod, `Optional${ref.kind}NotFound`, `${kindWord(ref.kind)} "${ref.name}" not found`);
        if (found && isServiceAccountToken(ref.kind, found)) {
          throw invalidInput(`secret ${namespace}/${ref.name} (referenced by ${ref.where}) is a ServiceAccount token (type ${SERVICE_ACCOUNT_TOKEN_TYPE}): Tether never copies host credentials to the remote cluster`);
        }
        const copy = found && remoteCopy(ref.kind, found, remoteNamespace, this.o.hostClusterId);
        if (copy && !this.ledger.lastWrote(`${ref.kind}/${remoteNamespace}/${ref.name}`, contentDigest(copy)) && !(await this.writeCopy(namespace, ref.kind, copy))) {
          throw transient(`remote ${kindWord(ref.kind)} ${remoteNamespace}/${ref.name} exists and is not managed by Tether for this host cluster; not overwriting it`, { reason: NOT_OWNED_REASON });
        }
      }
    } catch (err) {
      release();
      throw err;
    }
    return { done: release };
  }

  /** This node's remote pods, as they come and go: what they reference is kept in sync. */
  track(hostPodKey: string, hostNamespace: string, remotePod: Pod): void {
    if (this.index.has(hostPodKey)) return; // references are fixed at creation (volumes and env are immutable)
    const refs = referencedObjects(remotePod);
    this.index.set(hostPodKey, hostNamespace, refs.map((r) => referenceKey(r.kind, r.name)));
    this.refreshWatches();
    // A copy deleted remotely between its write and now left no event this reflector listened to.
    for (const ref of refs) this.copyEvents.enqueue(copyKey(hostNamespace, ref.kind, ref.name));
  }

  untrack(hostPodKey: string): void {
    if (!this.index.has(hostPodKey)) return;
    this.index.remove(hostPodKey);
    this.refreshWatches();
    this.sweepEvents.enqueue(SWEEP_KEY, this.o.sweepDelayMs ?? 1_000);
  }

  /** Asks for a sweep of unreferenced copies now (the provider's start, once its pods have listed). */
  requestSweep(): void {
    this.sweepEvents.enqueue(SWEEP_KEY);
  }

  /** Whether a reconcile key names an object some pod of this node references. */
  private isWanted(key: string): boolean {
    const parsed = parseCopyKey(key);
    return parsed !== undefined && this.index.isReferenced(parsed.hostNamespace, referenceKey(parsed.kind, parsed.name));
  }

  /**
   * One referenced object, judged from both watches: its copy is written if missing or not
   * carrying its source (copyRepair.ts), deleted if the host object is gone.
   */
  private async reconcileCopy(key: string): Promise<ReconcileResult> {
    const parsed = parseCopyKey(key);
    if (this.stopped || !parsed) return done;
    const { hostNamespace, kind, name } = parsed;
    // An object no pod references any more is the sweep's.
    if (!this.index.isReferenced(hostNamespace, referenceKey(kind, name))) return done;
    const remoteNamespace = this.o.remoteNamespaceOf(hostNamespace);
    try {
      await this.o.namespaceUsable?.(remoteNamespace, hostNamespace); // a squatted namespace gets nothing
      // The watches are read after the check: one that listed meanwhile must be read as it is now.
      const copies = this.copies?.[kind].watch;
      const copy = copies?.get(`${remoteNamespace}/${name}`);
      if (this.watches[kind].isSynced(hostNamespace) && !this.watches[kind].get(hostNamespace, name)) {
        // The host object is gone, so goes its copy: judged on the watch's view, or read (the
        // watch selects by marks, so a copy taken over remotely is only seen by a read).
        await this.deleteCopy(hostNamespace, kind, remoteNamespace, name, copy);
        return done;
      }
      const source = this.copiedSource(kind, hostNamespace, name);
      const desired = source && remoteCopy(kind, source, remoteNamespace, this.o.hostClusterId);
      const ledgerKey = `${kind}/${remoteNamespace}/${name}`;
      const verdict = decideCopyRepair({
        referenced: true,
        sourceSynced: this.watches[kind].isSynced(hostNamespace),
        source,
        copiesSynced: copies?.hasSynced() ?? false,
        copy,
        desired,
        ...ifDefined(desired, (d) => this.ledger.judge(ledgerKey, contentDigest(d))),
      });
      if (verdict.action === 'none' || !desired) return done;
      // Content Tether wrote before, missing or changed now: someone changed the remote.
      if (this.ledger.lastWrote(ledgerKey, contentDigest(desired))) {
        this.o.log.warn('putting back a reflected copy missing or changed in the remote cluster', { kind, namespace: remoteNamespace, name });
      }
      await this.writeCopy(hostNamespace, kind, desired);
      return done;
    } catch (err) {
      const failure = toProviderError(err, `reflect ${kindWord(kind)} ${hostNamespace}/${name}`);
      this.o.log.warn('writing a reflected copy failed; retried with backoff', { kind, namespace: remoteNamespace, name, error: errorMessage(failure) });
      return reconcileError(providerKindOf(failure) === 'invalid-input' ? 'permanent' : 'transient', errorMessage(failure));
    }
  }

  private async sweepOnce(signal: AbortSignal): Promise<ReconcileResult> {
    if (this.stopped) return done;
    try {
      await this.orphans.run(signal, (kind, namespace, name, seen) =>
        this.deleteCopy(seen.metadata?.annotations?.[hostNamespaceAnnotation] ?? '', kind, namespace, name, seen));
      // A copy no pod references is no longer wanted: what was reported about it is forgotten.
      this.notOwned.retain((key) => this.isWanted(key));
      return done;
    } catch (err) {
      const message = signal.aborted ? 'the sweep was interrupted at its deadline' : errorMessage(toProviderError(err, 'sweep reflected configmaps and secrets'));
      this.o.log.warn('sweeping reflected configmaps and secrets failed; retried with backoff', { error: message });
      return reconcileError('transient', message);
    }
  }

  /**
   * Creates or replaces the remote copy, and records what the remote stored; false when an
   * object that is not Tether's holds the name (reported once, left alone). Rejects with classified errors.
   */
  private async writeCopy(hostNamespace: string, kind: ReferencedKind, copy: HostObject): Promise<boolean> {
    const namespace = copy.metadata?.namespace ?? '';
    const name = copy.metadata?.name ?? '';
    const key = `${kind}/${namespace}/${name}`;
    const digest = contentDigest(copy);
    const cached = (): HostObject | undefined => this.copies?.[kind].watch.get(`${namespace}/${name}`);
    try {
      const outcome = await this.writer.store(kind, copy, cached(), digest);
      if (outcome.type === 'not-owned') return this.reportNotOwned({ hostNamespace, kind, namespace, name }, outcome.uid, 'not overwriting it');
      const stored = outcome.stored;
      this.notOwned.forget(copyKey(hostNamespace, kind, name));
      this.ledger.wrote(key, digest, stored ? contentDigest(stored) : digest, stored?.metadata?.resourceVersion ?? '', cached()?.metadata?.resourceVersion);
      return true;
    } catch (err) {
      this.ledger.forget(key);
      throw toProviderError(err, `write remote ${kindWord(kind)} ${namespace}/${name}`);
    }
  }

  private async deleteCopy(hostNamespace: string, kind: ReferencedKind, namespace: string, name: string, seen: HostObject | undefined): Promise<void> {
    this.ledger.forget(`${kind}/${namespace}/${name}`);
    const outcome = await this.writer.delete(kind, namespace, name, seen);
    if (outcome.type === 'not-owned') void this.reportNotOwned({ hostNamespace, kind, namespace, name }, outcome.uid, 'not deleting it');
    else this.notOwned.forget(copyKey(hostNamespace, kind, name));
  }

  /** Once per object: a Warning on the host object, and the count for /metrics. False: nothing was written. */
  private reportNotOwned(at: { hostNamespace: string; kind: ReferencedKind; namespace: string; name: string }, uid: string, what: string): false {
    const { hostNamespace, kind, namespace, name } = at;
    this.ledger.forget(`${kind}/${namespace}/${name}`);
    if (!this.notOwned.first(kind, copyKey(hostNamespace, kind, name), uid)) return false;
    const note = `remote ${kindWord(kind)} ${namespace}/${name} no longer carries Tether's marks for host cluster ${this.o.hostClusterId} (taken over in the remote cluster); ${what}`;
    this.o.log.warn('a remote object holding a reflected name is not Tether\'s; left alone', { kind, namespace, name });
    this.o.onNotOwned?.({ kind, namespace: hostNamespace, name }, note);
    return false;
  }

  private refreshWatches(): void {
    if (this.stopped) return;
    const namespaces = this.index.namespaces();
    if (namespaces.length > 0 && !this.copies) this.copies = { ConfigMap: this.copyWatch('ConfigMap'), Secret: this.copyWatch('Secret') };
    for (const kind of KINDS) this.watches[kind].setNamespaces(namespaces.filter((ns) => this.index.keysIn(ns).some((k) => k.startsWith(`${kind}/`))));
  }

  private newWatch(options: CachedListWatchOptions<HostObject>): ListWatchSource<HostObject> {
    return this.o.watchFactory ? this.o.watchFactory(options) : new CachedListWatch<HostObject>(options);
  }

  private hostWatch(kind: ReferencedKind, namespace: string): ListWatchSource<HostObject> {
    return this.listWatch(this.o.host, kind, { namespace }, `host ${plural(kind)} in ${namespace}`);
  }

  /** One list-watch of this host cluster's copies of `kind` in the remote cluster (all namespaces). */
  private copyWatch(kind: ReferencedKind): { watch: ListWatchSource<HostObject>; subscription: Subscription } {
    const watch = this.listWatch(this.o.remote, kind, { labelSelector: hostClusterSelector(this.o.hostClusterId) }, `reflected ${plural(kind)} in the remote cluster`);
    const subscription = watch.events.subscribe((event) => this.onCopyEvent(kind, event));
    watch.start();
    return { watch, subscription };
  }

  /** A list-watch of `kind` in one namespace, or in all namespaces by label selector. */
  private listWatch(cluster: ClusterClient, kind: ReferencedKind, scope: { namespace: string } | { labelSelector: string }, description: string): ListWatchSource<HostObject> {
    const namespace = 'namespace' in scope ? scope.namespace : undefined;
    const labelSelector = 'labelSelector' in scope ? scope.labelSelector : undefined;
    return this.newWatch({
      ...this.o.watch, ...definedOnly({ labelSelector }), kubeConfig: cluster.kubeConfig, clock: this.o.clock, log: this.o.log, description,
      path: namespace === undefined ? `/api/v1/${plural(kind)}` : `/api/v1/namespaces/${namespace}/${plural(kind)}`,
      list: async () => {
        const list = await cluster.call<V1ConfigMapList | V1SecretList>('other', operation('list', description), (core, options) => {
          if (namespace !== undefined) return kind === 'ConfigMap' ? core.listNamespacedConfigMap({ namespace }, options) : core.listNamespacedSecret({ namespace }, options);
          return kind === 'ConfigMap' ? core.listConfigMapForAllNamespaces(definedOnly({ labelSelector }), options) : core.listSecretForAllNamespaces(definedOnly({ labelSelector }), options);
        });
        return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
      },
    });
  }

  /** A remote copy came, changed or went, or the copies were listed: look at what it reflects. */
  private onCopyEvent(kind: ReferencedKind, event: EngineEvent<HostObject>): void {
    if (this.stopped || event.type === 'error') return;
    if (event.type === 'synced') {
      // A (re)list is the watch's whole view: nothing it holds is waiting for an echo any more.
      this.ledger.relisted(`${kind}/`);
      for (const namespace of this.index.namespaces()) this.enqueueAll(kind, namespace);
      return;
    }
    const copy = event.object;
    const hostNamespace = copy.metadata?.annotations?.[hostNamespaceAnnotation];
    if (!hostNamespace || this.o.remoteNamespaceOf(hostNamespace) !== copy.metadata?.namespace) return;
    const name = copy.metadata.name ?? '';
    this.ledger.observed(`${kind}/${copy.metadata.namespace}/${name}`, copy.metadata.resourceVersion ?? '');
    this.copyEvents.enqueue(copyKey(hostNamespace, kind, name));
  }

  private onHostEvent(kind: ReferencedKind, namespace: string, event: EngineEvent<HostObject>): void {
    if (this.stopped || event.type === 'error') return; // the watch restarts itself
    if (event.type === 'synced') {
      // A (re)list: compare with the copies as the remote shows them, not with what was written.
      this.enqueueAll(kind, namespace);
      return;
    }
    const name = event.object.metadata?.name ?? '';
    if (this.index.isReferenced(namespace, referenceKey(kind, name))) this.copyEvents.enqueue(copyKey(namespace, kind, name));
  }

  private enqueueAll(kind: ReferencedKind, hostNamespace: string): void {
    for (const key of this.index.keysIn(hostNamespace)) if (key.startsWith(`${kind}/`)) this.copyEvents.enqueue(`${hostNamespace}/${key}`);
  }

  /** The host object as its watch holds it, if it is one Tether copies (never a ServiceAccount token). */
  private copiedSource(kind: ReferencedKind, hostNamespace: string, name: string): HostObject | undefined {
    const watched = this.watches[kind].get(hostNamespace, name);
    return watched && isServiceAccountToken(kind, watched) ? undefined : watched;
  }
}
