/**
 * Reflects the host Services and EndpointSlices of every host namespace with at least one pod
 * this virtual node offloaded into the mapped remote namespace (docs/kubernetes-provider.md,
 * "Services and EndpointSlices"). Level-based, per namespace:
 *
 *   host Services, EndpointSlices (NamespacedWatches, namespaces with offloaded pods)
 *   this host cluster's remote copies (one label-selected CachedListWatch per kind, all
 *   namespaces; another virtual node's copy going frees its name for this one at once)
 *   this node's remote pods (for endpoint translation)
 *       → any change enqueues its host namespace, after a short coalescing delay, into the
 *         `service-reflection` reconciler (src/lib/reconcile.ts) the node's subtree runs
 *       → one pass per namespace at a time: desiredObjects and planReflection (servicePlan.ts,
 *         pure) decide, ReflectionWriter acts
 *       → a copy a sibling virtual node holds is shared, left to it or adopted (sharedCopies.ts)
 *       → a failed pass (a remote namespace not Tether's fails it: `namespaceUsable`) is retried with backoff;
 *         a name held by a foreign object, or a copy that lost its marks, is a Warning on the host Service (once) and no write (refusedNames.ts)
 *       → every resync (`resyncMs`) passes over every namespace again and re-checks taken names
 *
 * A namespace whose last offloaded pod went wants nothing: after `lingerMs`, its copies are
 * deleted; so are copies of namespaces Tether no longer tracks (after a restart), once the remote
 * pod informer has listed (`podsSynced`), so a namespace never looks empty merely too early.
 */
import type { Subscription } from 'rxjs';
import { backoffPolicy, type BackoffPolicy } from '../../../lib/backoff.js';
import type { Clock, Timer } from '../../../lib/clock.js';
import { errorMessage } from '../../../lib/errorMessage.js';
import { done, reconcileError, reconcileTrigger, type ReconcileResult, type Reconciler } from '../../../lib/reconcile.js';
import { isKind } from '../../../lib/errorKind.js';
import { isOlder } from '../../../adapters/kubernetes/watchCache.js';
import type { CachedListWatch, EngineEvent, WatchTiming } from '../../../adapters/kubernetes/cachedListWatch.js';
import type { EventRecorder } from '../../../adapters/kubernetes/eventRecorder.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { EndpointSlice, Service } from '../../../adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import type { HostAddressFilter, OffloadedPodLookup } from './endpointTranslation.js';
import { kindWatch } from './kindWatch.js';
import { hostClusterSelector, hostNamespaceAnnotation } from '../marks.js';
import { siblingsHeld } from './sharedCopies.js';
import type { NamespaceReflection } from './reflectorParts.js';
import { NamespacedWatches } from '../namespacedWatches.js';
import { carries, digestOf, serviceOf, type Reflected } from './copyDigests.js';
import { isReflectedBy, type ReflectionMarks } from './reflectedService.js';
import { desiredObjects, kindPlural as plural, kindWord as word, objectKey, planReflection, type DesiredObject, type ReflectedKind } from './servicePlan.js';
import { ReflectionWriter } from './serviceWriter.js';
import { NOT_OWNED_REASON } from '../notOwned.js';
import { RefusedNames, scoped } from './refusedNames.js';
import { definedOnly, ifDefined } from '../../../lib/defaults.js';
import { stopParts, subscribedWatchParts } from '../../../lib/lifecycle.js';

export interface ServiceReflectorOptions {
  readonly host: ClusterClient;
  readonly remote: ClusterClient;
  readonly marks: ReflectionMarks;
  /** What is reflected; empty: nothing (the `none` switch). */ readonly kinds: ReadonlySet<ReflectedKind>;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
  readonly lookup: OffloadedPodLookup;
  /** Host addresses a remote slice may carry (the provider's: none inside the remote's own CIDRs). */
  readonly hostAddress?: HostAddressFilter;
  /** Rejects when the remote namespace may not receive copies (pods/remoteNamespaces.ts: not Tether's, not adoptable). */
  readonly namespaceUsable?: (remoteNamespace: string, hostNamespace: string) => Promise<void>;
  /** Warning Events on host Services whose name is taken in the remote namespace. */
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly log: KubeLog;
  readonly watch?: WatchTiming;
  /** Changes within this long are handled in one pass (default 50 ms). */
  readonly coalesceMs?: number;
  /** Retry of a failed pass (default 1 s doubling to 60 s, jitter 0.2). */
  readonly retry?: BackoffPolicy;
  /** Period of the full pass over every namespace, which also re-checks taken names (default 5 min). */
  readonly resyncMs?: number;
  /** How long copies outlive a namespace's last offloaded pod (default 30 s): a Deployment replacing all its pods keeps its Services. */
  readonly lingerMs?: number;
}

export type { NamespaceReflection } from './reflectorParts.js';

const DEFAULT_RETRY = backoffPolicy(1_000, 60_000);

export class ServiceReflector {
  private readonly pods = new Map<string, Set<string>>();
  /** The last failure of each namespace's pass, while it is failing (for introspection). */
  private readonly failing = new Map<string, { readonly message: string; readonly at: number }>();
  private readonly changes = reconcileTrigger();
  private readonly loops: readonly Reconciler[];
  private readonly lingering = new Map<string, { readonly timer: Timer; readonly at: number }>();
  /** Per copy: the digest last written, and of what the remote stored for it (a remote webhook may add to every write). */
  private readonly written = new Map<string, { readonly desired: string; readonly stored: string; readonly version: string }>();
  /** Names taken, copies rejected or taken over remotely (for /metrics and tests). */
  readonly refused = new RefusedNames();
  private readonly services: NamespacedWatches<Service>;
  private readonly slices: NamespacedWatches<EndpointSlice>;
  private readonly copies: Record<ReflectedKind, { watch: CachedListWatch<Reflected>; subscription: Subscription }>;
  private readonly writer: ReflectionWriter;
  private podsKnown = false;
  private stopped = false;

  constructor(private readonly o: ServiceReflectorOptions) {
    this.writer = new ReflectionWriter(o.remote, o.marks);
    this.services = new NamespacedWatches((ns) => this.hostWatch('Service', ns) as CachedListWatch<Service>, (ns, e) => this.onHostEvent(ns, e));
    this.slices = new NamespacedWatches((ns) => this.hostWatch('EndpointSlice', ns) as CachedListWatch<EndpointSlice>, (ns, e) => this.onHostEvent(ns, e));
    this.copies = { Service: this.copyWatch('Service'), EndpointSlice: this.copyWatch('EndpointSlice') };
    this.loops = [{
      name: 'service-reflection',
      kind: 'service-reflection',
      settings: { backoff: o.retry ?? DEFAULT_RETRY, resyncMs: o.resyncMs ?? 5 * 60_000 },
      keys: () => {
        // Every listing (each start and resync) looks at taken names afresh.
        this.refused.forgetTaken();
        return this.namespacesToPass();
      },
      connect: this.changes.connect,
      reconcile: (namespace) => this.pass(namespace),
    }];
  }

  /** The reconcile loop the node's subtree runs (ReconcilingProvider); none with the `none` switch. */
  reconcilers(): readonly Reconciler[] {
    return this.enabled ? this.loops : [];
  }

  get enabled(): boolean {
    return this.o.kinds.has('Service');
  }

  start(): void {
    if (!this.enabled || this.stopped) return;
    this.copies.Service.watch.start();
    this.copies.EndpointSlice.watch.start();
  }

  /** Stops every timer and watch, each watch even when one throws (stopParts). */
  stop(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.lingering.values()) timer.cancel();
    return stopParts({
      'Service watches': this.services, 'EndpointSlice watches': this.slices,
      ...subscribedWatchParts(this.copies, 'copies watch'),
    });
  }

  /** A remote pod of this node appeared or changed (its IP, say). */
  podAppeared(hostPodKey: string, hostNamespace: string): void {
    if (!this.enabled) return;
    this.lingering.get(hostNamespace)?.timer.cancel();
    this.lingering.delete(hostNamespace);
    let keys = this.pods.get(hostNamespace);
    if (!keys) {
      this.pods.set(hostNamespace, (keys = new Set()));
      this.refreshWatches();
    }
    keys.add(hostPodKey);
    this.markDirty(hostNamespace);
  }

  podGone(hostPodKey: string, hostNamespace: string): void {
    const keys = this.pods.get(hostNamespace);
    if (!keys?.delete(hostPodKey) || keys.size > 0 || this.stopped) return;
    this.lingering.get(hostNamespace)?.timer.cancel();
    const lingerMs = this.o.lingerMs ?? 30_000;
    const timer = this.o.clock.setTimer(lingerMs, () => {
      this.lingering.delete(hostNamespace);
      if ((this.pods.get(hostNamespace)?.size ?? 0) > 0) return;
      this.pods.delete(hostNamespace);
      this.refreshWatches();
      this.markDirty(hostNamespace);
    });
    this.lingering.set(hostNamespace, { timer, at: this.o.clock.now() + lingerMs });
  }

  /** The remote pod informer has listed: from now on a namespace without pods really has none. */
  podsSynced(): void {
    this.podsKnown = true;
    this.markAll();
  }

  /** How many copies' last writes are remembered (bounded by the copies wanted; for tests). */
  rememberedCopies(): number {
    return this.written.size;
  }

  state(): NamespaceReflection[] {
    const namespaces = new Set([...this.pods.keys(), ...this.failing.keys(), ...this.copyNamespaces()]);
    return [...namespaces].sort().map((namespace) => {
      const remoteNamespace = this.o.remoteNamespaceOf(namespace);
      const existing = this.existing(namespace);
      const count = (kind: ReflectedKind): number => [...existing.keys()].filter((k) => k.startsWith(`${kind}/`)).length;
      const taken = this.refused.takenIn(remoteNamespace);
      const failure = this.failing.get(namespace);
      return {
        namespace, remoteNamespace, offloadedPods: this.pods.get(namespace)?.size ?? 0,
        services: count('Service'), endpointSlices: count('EndpointSlice'), taken,
        ...definedOnly({ releasesAt: this.lingering.get(namespace)?.at }),
        ...ifDefined(failure, (f) => ({ lastError: f.message, lastErrorAt: f.at })),
      };
    });
  }

  private refreshWatches(): void {
    if (this.stopped) return;
    const namespaces = [...this.pods.keys()];
    this.services.setNamespaces(namespaces);
    this.slices.setNamespaces(this.o.kinds.has('EndpointSlice') ? namespaces : []);
  }

  /** Namespaces with offloaded pods or with copies of this node: what a pass may have work in. */
  private namespacesToPass(): string[] {
    return [...new Set([...this.pods.keys(), ...this.copyNamespaces()])];
  }

  private copyNamespaces(): string[] {
    const fromCopies = Object.values(this.copies).flatMap(({ watch }) => watch.list().filter((o) => this.isOurs(o)).map((o) => o.metadata?.annotations?.[hostNamespaceAnnotation] ?? ''));
    return fromCopies.filter((namespace) => namespace !== '');
  }

  private markAll(): void {
    for (const namespace of this.namespacesToPass()) this.markDirty(namespace);
  }

  /** Changes within `coalesceMs` make one pass. */
  private markDirty(namespace: string): void {
    if (!this.stopped) this.changes.enqueue(namespace, this.o.coalesceMs ?? 50);
  }

  /** One namespace's reconcile: a failed pass is a transient error, retried with backoff. */
  private async pass(namespace: string): Promise<ReconcileResult> {
    if (this.stopped) return done;
    try {
      await this.reconcile(namespace);
      this.failing.delete(namespace);
      return done;
    } catch (err) {
      const message = errorMessage(err);
      this.failing.set(namespace, { message, at: this.o.clock.now() });
      this.o.log.warn('reflecting services failed; retrying with backoff', { namespace, error: message });
      return reconcileError('transient', message);
    }
  }

  /** One pass: check the namespace (a squatted one gets nothing), then read the caches, plan, act; nothing while a cache is not listed yet. */
  private async reconcile(namespace: string): Promise<void> {
    if (this.pods.has(namespace)) await this.o.namespaceUsable?.(this.o.remoteNamespaceOf(namespace), namespace);
    if (!this.podsKnown || !this.copies.Service.watch.hasSynced() || !this.copies.EndpointSlice.watch.hasSynced()) return;
    const active = this.pods.has(namespace);
    const withSlices = this.o.kinds.has('EndpointSlice');
    if (active && (!this.services.isSynced(namespace) || (withSlices && !this.slices.isSynced(namespace)))) return;
    const remoteNamespace = this.o.remoteNamespaceOf(namespace);
    const services = active ? this.services.list(namespace) : [];
    const slices = active && withSlices ? this.slices.list(namespace) : [];
    const desired = desiredObjects({ services, slices, kinds: this.o.kinds, remoteNamespace, marks: this.o.marks, lookup: this.o.lookup, ...definedOnly({ hostAddress: this.o.hostAddress }) });
    const existing = this.existing(namespace, desired);
    const wanted = new Set(desired.map((d) => objectKey(d.kind, d.name)));
    this.refused.prune(remoteNamespace, wanted);
    // A copy that left this node's watch unseen (its marks removed) has no delete step to forget its write.
    for (const key of this.written.keys()) if (key.startsWith(`${remoteNamespace}/`) && !wanted.has(key.slice(remoteNamespace.length + 1))) this.written.delete(key);
    const copyOf = (kind: ReflectedKind, name: string): Reflected | undefined => this.copies[kind].watch.get(`${remoteNamespace}/${name}`);
    const shared = await siblingsHeld({ namespace, remoteNamespace, desired, copyOf, writer: this.writer, log: this.o.log, stopped: () => this.stopped });
    const steps = planReflection({ desired: desired.filter((d) => !shared.has(objectKey(d.kind, d.name))), existing, written: scoped(new Map([...this.written].map(([k, w]) => [k, w.desired])), remoteNamespace), refused: this.refused.refusedIn(remoteNamespace) });
    // One object the remote refuses must not hold up the others (nor the deletions): each step
    // stands alone; a refusal is reported and remembered, a transient failure retries the pass.
    let retry: unknown;
    let heir: Promise<string | undefined> | undefined;
    for (const step of steps) {
      if (this.stopped) return;
      try {
        if (step.type === 'delete') {
          this.written.delete(`${remoteNamespace}/${objectKey(step.kind, step.name)}`);
          const seen = this.cached(step.kind, remoteNamespace, step.name);
          // Released by this node while a sibling node still has pods there: handed over, not deleted.
          const to = seen && !active ? await (heir ??= this.writer.heir(remoteNamespace, namespace)) : undefined;
          const gone = seen && (to === undefined ? await this.writer.delete(step.kind, remoteNamespace, step.name, seen) : await this.writer.handOver(step.kind, seen, to));
          if (seen && gone?.type === 'not-owned') this.reportNotOwned(namespace, { remoteNamespace, kind: step.kind, name: step.name, serviceName: serviceOf(step.kind, step.name, seen) }, gone.uid, services);
        } else {
          await this.write(namespace, remoteNamespace, step.desired, services);
        }
      } catch (err) {
        if (step.type === 'write' && isKind(err, 'invalid-input')) this.rejected(namespace, remoteNamespace, step.desired, services, err);
        else retry ??= err;
      }
    }
    if (retry !== undefined) throw retry;
  }

  /** A copy that lost this node's marks: left alone, a Warning once, counted. */
  private reportNotOwned(namespace: string, at: { remoteNamespace: string; kind: ReflectedKind; name: string; serviceName: string }, uid: string, services: readonly Service[]): void {
    const { remoteNamespace, kind, name, serviceName } = at;
    if (!this.refused.notOwned.first(kind, `${kind}/${remoteNamespace}/${name}`, uid)) return;
    this.recordOn(namespace, serviceName, services, NOT_OWNED_REASON, `remote ${word(kind)} ${remoteNamespace}/${name} no longer carries the marks of host cluster ${this.o.marks.hostClusterId} and node ${this.o.marks.nodeName} (taken over in the remote cluster); left alone, neither updated nor deleted`);
  }

  /** The remote refused a copy as invalid (a dual-stack Service on a single-stack remote, say): not retried until it changes. */
  private rejected(namespace: string, remoteNamespace: string, desired: DesiredObject, services: readonly Service[], err: unknown): void {
    this.refused.rejectedByRemote(`${remoteNamespace}/${objectKey(desired.kind, desired.name)}`, desired.digest);
    this.recordOn(namespace, serviceOf(desired.kind, desired.name, desired.object), services, 'ReflectionRejected', `the remote cluster refused ${word(desired.kind)} ${remoteNamespace}/${desired.name}; not retried until the host object changes: ${errorMessage(err)}`);
  }

  /** A Warning on the host Service a copy belongs to. */
  private recordOn(namespace: string, serviceName: string, services: readonly Service[], reason: string, note: string): void {
    this.o.log.warn('service reflection: a Warning on the host Service', { namespace, service: serviceName, reason, note });
    const service = services.find((s) => s.metadata?.name === serviceName);
    this.o.events.record(
      { kind: 'Service', apiVersion: 'v1', namespace, name: serviceName, ...definedOnly({ uid: service?.metadata?.uid || undefined }) },
      'Warning', reason, note, 'Reflect',
    );
  }

  private async write(namespace: string, remoteNamespace: string, desired: DesiredObject, services: readonly Service[]): Promise<void> {
    const key = `${remoteNamespace}/${objectKey(desired.kind, desired.name)}`;
    const outcome = await this.writer.write(desired, this.cached(desired.kind, remoteNamespace, desired.name));
    if (outcome.type === 'written') {
      this.written.set(key, {
        desired: desired.digest,
        stored: outcome.stored ? digestOf(desired.kind, outcome.stored) : desired.digest,
        version: outcome.stored?.metadata?.resourceVersion ?? '',
      });
      this.refused.written(desired.kind, key);
      return;
    }
    const serviceName = serviceOf(desired.kind, desired.name, desired.object);
    if (outcome.type === 'shared') return; // a sibling node's copy, not in the watch yet: judged at the next pass
    if (outcome.type === 'not-owned') {
      this.refused.lostMarks(key, desired.digest);
      return this.reportNotOwned(namespace, { remoteNamespace, kind: desired.kind, name: desired.name, serviceName }, outcome.uid, services);
    }
    if (!this.refused.nameTaken(key, desired.digest)) return; // taken as before: no Warning at every resync
    const note = `remote ${word(desired.kind)} ${remoteNamespace}/${desired.name} exists and was not created by Tether for host cluster ${this.o.marks.hostClusterId} and node ${this.o.marks.nodeName}; not overwriting it, so this Service is not reflected there`;
    this.recordOn(namespace, serviceName, services, 'ReflectionNameTaken', note);
  }

  /**
   * This node's copies for a host namespace: object key → digest. A copy that carries what
   * `desired` wants on the keys Tether sets (contentMark.ts; an admission webhook's additions
   * aside) counts as the desired digest.
   */
  private existing(namespace: string, desired: readonly DesiredObject[] = []): Map<string, string> {
    const remoteNamespace = this.o.remoteNamespaceOf(namespace);
    const wanted = new Map(desired.map((d) => [objectKey(d.kind, d.name), d]));
    const out = new Map<string, string>();
    for (const kind of ['Service', 'EndpointSlice'] as const) {
      for (const object of this.copies[kind].watch.list()) {
        if (object.metadata?.namespace !== remoteNamespace || object.metadata.annotations?.[hostNamespaceAnnotation] !== namespace || !this.isOurs(object)) continue;
        const key = objectKey(kind, object.metadata.name ?? '');
        const d = wanted.get(key);
        out.set(key, d && carries(object, d) ? d.digest : digestOf(kind, object));
      }
    }
    return out;
  }

  /** This node's copy as the watch holds it (another node's copy of the same name is not ours to replace). */
  private cached(kind: ReflectedKind, remoteNamespace: string, name: string): Reflected | undefined {
    const object = this.copies[kind].watch.get(`${remoteNamespace}/${name}`);
    return object && this.isOurs(object) ? object : undefined;
  }

  private onHostEvent(namespace: string, event: EngineEvent<Reflected>): void {
    if (event.type !== 'error') this.markDirty(namespace);
  }

  /** A copy changed: unlike Tether's write (edited, deleted), it is not "written"; a sibling's going or handed over frees its name. */
  private onCopyEvent(kind: ReflectedKind, event: EngineEvent<Reflected>): void {
    if (event.type === 'synced') return this.markAll();
    if (event.type === 'error') return;
    const object = event.object;
    const key = `${object.metadata?.namespace ?? ''}/${objectKey(kind, object.metadata?.name ?? '')}`;
    const namespace = object.metadata?.annotations?.[hostNamespaceAnnotation];
    if (!this.isOurs(object)) {
      // A sibling node's copy (the watch holds this host cluster's only): its going or change may free or hand over a name this node wants.
      if ((this.refused.freed(key) || (namespace !== undefined && this.pods.has(namespace))) && namespace) this.markDirty(namespace);
      return;
    }
    const last = this.written.get(key);
    // An event from before Tether's last write (an earlier write's echo) says nothing about it.
    const stale = last !== undefined && isOlder(object.metadata?.resourceVersion ?? '', last.version);
    if (!stale && (event.type === 'deleted' || last?.stored !== digestOf(kind, object))) this.written.delete(key);
    this.refused.freed(key); // handed over by a sibling node: the name is this node's now
    if (namespace) this.markDirty(namespace);
  }

  private isOurs(object: Reflected): boolean {
    return isReflectedBy(object.metadata?.labels, this.o.marks);
  }

  private hostWatch(kind: ReflectedKind, namespace: string): CachedListWatch<Reflected> {
    return kindWatch(this.o.host, kind, { namespace }, `host ${plural(kind)} in ${namespace}`, this.o);
  }

  private copyWatch(kind: ReflectedKind): { watch: CachedListWatch<Reflected>; subscription: Subscription } {
    const watch = kindWatch(this.o.remote, kind, { labelSelector: hostClusterSelector(this.o.marks.hostClusterId) }, `reflected ${plural(kind)} in the remote cluster`, this.o);
    return { watch, subscription: watch.events.subscribe((e) => this.onCopyEvent(kind, e)) };
  }
}
