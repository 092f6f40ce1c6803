/**
 * The Kubernetes provider: a virtual node whose pods run in a remote cluster (what Liqo and
 * Admiralty do). It composes the pieces of this folder:
 *
 *   pods       → the remote API calls (remotePodCalls.ts): create = remote namespace
 *                (remoteNamespaces.ts) → ConfigMaps/Secrets (configReflector.ts) → the translated
 *                pod (podTranslation.ts); update; delete
 *   services   → the host Services and EndpointSlices of namespaces with offloaded pods
 *                (serviceReflector.ts), endpoints translated to remote pod IPs
 *   status     ← the remote pod informer (remotePods.ts) → notifyPods, host identity (hostView.ts)
 *   events     ← remote pod Events (remoteEvents.ts) → onRemoteEvent
 *   node       ← /readyz, remote nodes and pods (remoteNode.ts, capacity.ts)
 *   sessions   ↔ logs, exec, attach, port-forward through the remote API server (remoteContainerSessions.ts)
 *   stats      ← the remote nodes' kubelet summaries, owned pods only (remoteStats.ts)
 *   tree       ← each namespace's Service reflector as a part of the actor tree (reflectorParts.ts)
 *   metrics    ← ignored remote pods and Service reflection as gauges (providerGauges.ts)
 *   preflight  ← both clusters' CIDRs (addresses/), a changed namespace mapping (mappingChange.ts)
 *
 * Lifecycle: `start()` (idempotent; also done by `notifyPods` and the first call that needs the
 * informer) and `stop()`. Every method rejects only with classified provider errors
 * (remoteErrors.ts), or with the signal's reason when aborted.
 *
 * High availability (WriteFencedProvider): built with `fenced`, the provider is a standby from
 * construction: both clusters' writes are fenced and nothing that drives the node runs (no
 * informer, sweep or reflection pass; drivingParts.ts), whatever calls it, until `openWrites`
 * (the node's lock is held). A standby still answers kubelet sessions (logs, exec, attach,
 * port-forward) with reads of the remote pod. `fenceWrites` (the lock is lost) closes the fences
 * first, then stops those parts for good, closing their watches; the next `openWrites` waits
 * for them to have stopped (their pod calls settled) and builds them again from the clusters. Without `fenced` (a single replica) writes are open from the start.
 */
import type { Clock } from '../../lib/clock.js';
import { systemClock } from '../../adapters/clock.js';
import { LifecycleControl, stopParts, type Lifecycle, type StopOptions, type StopOutcome } from '../../lib/lifecycle.js';
import type { KubeLog } from '../../adapters/kubernetes/log.js';
import { noopKubeLog } from '../../adapters/kubernetes/log.js';
import { errorMessage } from '../../lib/errorMessage.js';
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import type {
  AttachProvider,
  ContainerRef,
  ContainerStreams,
  ExecProvider,
  InspectableProvider,
  InPlaceUpdate,
  InPlaceUpdateProvider,
  ReconcilingProvider,
  MetricsProvider,
  KubeletBackedProvider,
  ProviderGauge,
  ProviderPart,
  PortConnection,
  PortForwardProvider,
  WriteFencedProvider,
  ContainerLogOptions, LogsProvider, NodeResources, PodNotificationCallback, Provider, ProviderNodeInfo,
  StatsProvider, StatsSummary,
} from '../provider.js';
import { ClusterClient } from '../../adapters/kubernetes/clusterClient.js';
import { toHostPod, type HostViewOptions } from './pods/hostView.js';
import { remoteNamespaceFor } from './namespaceMapping.js';
import type { KubernetesProviderOptions } from './options.js';
import { ownershipOf, type OwnershipRule } from './pods/ownership.js';
import { untilAborted } from './remoteErrors.js';
import { transient } from '../errors.js';
import { DrivingParts } from './drivingParts.js';
import { RemoteContainerSessions } from './streams/remoteContainerSessions.js';
import { reflectorParts } from './serviceReflection/reflectorParts.js';
import { kubernetesGauges } from './providerGauges.js';
import { RemoteNode } from './node/remoteNode.js';
import { RemoteStats } from './node/remoteStats.js';
import type { NamespaceReflection } from './serviceReflection/serviceReflector.js';
import type { EventRecorderClient } from '../../adapters/kubernetes/eventRecorderClient.js';
import type { PodMarks } from '../podMarks.js';
import type { Reconciler } from '../../lib/reconcile.js';
import { definedOnly, when } from '../../lib/defaults.js';
import { AddressSafety } from './addresses/addressSafety.js';
import type { StartFinding } from './startFindings.js';
import { checkMappingChange } from './pods/mappingChange.js';

export class KubernetesProvider
  implements Provider, LogsProvider, ExecProvider, AttachProvider, PortForwardProvider, StatsProvider, WriteFencedProvider, InspectableProvider, MetricsProvider, ReconcilingProvider, KubeletBackedProvider, InPlaceUpdateProvider, Lifecycle {
  readonly name = 'kubernetes';
  /** The remote cluster's kubelet runs the hooks and records the container Events (forwarded by remoteEvents.ts). */
  readonly runsPodsUnderKubelet = true;

  /** Resizes go to the remote pod's `resize` subresource, ephemeral containers to its `ephemeralcontainers` one; the remote kubelet's answer is the status. */
  inPlaceUpdates(): readonly InPlaceUpdate[] { return ['resize', 'ephemeralContainers']; }
  private readonly clock: Clock;
  private readonly ownsHost: boolean;
  private readonly log: KubeLog;
  private readonly remote: ClusterClient;
  private readonly host: ClusterClient;
  private readonly hostEvents: EventRecorderClient;
  private readonly ownsHostEvents: boolean;
  /** What drives the node in this hold (rebuilt at each `openWrites` after a `fenceWrites`). */
  private drive: DrivingParts;
  /** Parts of earlier holds still stopping (awaited by `stop()` and `openWrites`). */
  private retiring: Promise<void> = Promise.resolve();
  private readonly node: RemoteNode;
  private readonly stats: RemoteStats;
  private readonly sessions: RemoteContainerSessions;
  private readonly view: HostViewOptions;
  private readonly rule: OwnershipRule;
  private callback: PodNotificationCallback | undefined;
  /** The writes' fence is open: this replica may drive the node (holds its lock, or needs none). */
  private writesOpen: boolean;
  /** Bumped by every fence and open: an open still waiting for retiring parts gives way to a later one. */
  private term = 0;
  private readonly addresses: AddressSafety;
  private readonly life: LifecycleControl;
  /** Ready once the remote pod informer has listed (after `start()`). */
  readonly ready: Promise<void>;
  readonly done: Promise<void>;

  /** Throws KubeconfigError at once if either kubeconfig is unusable (a configuration mistake). */
  constructor(private readonly o: KubernetesProviderOptions) {
    this.life = new LifecycleControl({
      clock: o.clock ?? systemClock,
      release: () => this.release(),
      onReleaseFailed: (error) => this.log.warn('stopping the kubernetes provider failed', { node: o.nodeName, error: errorMessage(error) }),
    });
    this.ready = this.life.ready;
    this.done = this.life.done;
    if (o.nodeName === '' || o.hostClusterId === '') throw new Error('kubernetes provider: nodeName and hostClusterId are required');
    this.clock = o.clock ?? systemClock;
    this.log = o.log ?? noopKubeLog;
    const clientOptions = { clock: this.clock, ...definedOnly({ rateLimit: o.rateLimit, deadlines: o.deadlines }) };
    const fenced = o.fenced === true ? `node ${o.nodeName}: this replica does not hold the node's lock` : undefined;
    this.writesOpen = fenced === undefined;
    this.remote = new ClusterClient(o.remote, { ...clientOptions, ...definedOnly({ fenced }) });
    // An injected host connection is the agent's (one per node) and stays open; a source gets our own.
    this.ownsHost = !(o.host instanceof ClusterClient);
    this.host = o.host instanceof ClusterClient ? o.host : new ClusterClient(o.host, { ...clientOptions, ...definedOnly({ fenced }) });
    // The agent's host client is fenced by its creator under HA; fencing it here as well costs nothing.
    if (fenced !== undefined) this.host.fenceWrites(fenced);
    this.view = { blankPodIPs: o.blankPodIPs ?? false, ...definedOnly({ remap: o.addressRemap }) };
    this.addresses = new AddressSafety({ nodeName: o.nodeName, host: this.host, remote: this.remote, blankPodIPs: o.blankPodIPs ?? false, log: this.log, ...definedOnly({ remap: o.addressRemap, networks: o.networks }) });
    this.rule = { hostClusterId: o.hostClusterId, nodeName: o.nodeName, remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns) };
    this.ownsHostEvents = o.hostEvents === undefined;
    this.hostEvents = o.hostEvents ?? this.host.eventRecorder({ reportingInstance: o.nodeName, clock: this.clock, log: this.log });
    this.drive = this.drivingParts();
    this.stats = new RemoteStats({ remote: this.remote, rule: this.rule, owned: () => this.drive.pods.list(), clock: this.clock, log: this.log });
    this.node = new RemoteNode({
      remote: this.remote, isOwnPod: (pod) => ownershipOf(pod, this.rule).owned,
      ...definedOnly({
        pingTimeoutMs: o.pingTimeoutMs,
        quota: o.quota,
        countVirtualNodes: o.countVirtualNodes || undefined,
        defaultNodeInfo: o.nodeInfo,
        pool: o.offloadingPatch?.nodeSelector && Object.keys(o.offloadingPatch.nodeSelector).length > 0 ? o.offloadingPatch.nodeSelector : undefined,
      }),
    });
    this.sessions = new RemoteContainerSessions({
      remote: this.remote, nodeName: o.nodeName, getPod: (ns, name, signal) => this.getPod(ns, name, signal),
      remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
    });
  }

  private drivingParts(relearn = false): DrivingParts {
    return new DrivingParts({
      o: this.o, relearn, remote: this.remote, host: this.host, hostEvents: this.hostEvents, clock: this.clock, log: this.log,
      rule: this.rule, view: this.view, remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
      callback: () => this.callback, onSynced: () => this.life.markReady(), addresses: this.addresses,
    });
  }

  /**
   * Starts the remote pod informer; ready once it has listed, when the reflector's sweep is asked
   * for. Idempotent. Does nothing on a standby (writes fenced): it starts at `openWrites`' next call for it.
   */
  start(): void {
    if (!this.writesOpen || this.life.stopRequested) return;
    this.drive.start();
  }

  /** The start checks (startFindings.ts; registration.ts acts on them): both clusters' CIDRs, a changed mapping. */
  async preflight(): Promise<StartFinding[]> {
    const current = { namespaceStrategy: this.o.namespaceStrategy ?? 'suffix', hostClusterId: this.o.hostClusterId };
    const node = { nodeName: this.o.nodeName, current, rule: this.o.mappingChange ?? 'refuse' };
    const [addresses, mapping] = await Promise.all([this.addresses.findings(), checkMappingChange({ remote: this.remote, host: this.host }, node)]);
    return [...addresses, ...mapping];
  }

  /** True while this replica may drive the node: writes open (its lock held, or no HA). */
  get driving(): boolean {
    return this.writesOpen && !this.life.stopRequested;
  }

  /**
   * The node's lock is lost (HA): both clusters' writes are fenced off first, so nothing queued
   * goes out, then the informers, sweeps and reflection passes stop and their watches close.
   * The next `openWrites` starts them again, fresh.
   */
  fenceWrites(reason: string): void {
    this.term += 1;
    this.remote.fenceWrites(reason);
    this.host.fenceWrites(reason);
    if (!this.writesOpen) return;
    this.writesOpen = false;
    const old = this.drive;
    this.drive = this.drivingParts(true);
    this.retiring = Promise.all([this.retiring, old.stop().catch((error: unknown) =>
      this.log.warn('stopping the kubernetes provider\'s driving parts failed', { node: this.o.nodeName, error: errorMessage(error) }))]).then(() => undefined);
  }

  /**
   * The node's lock is held: once earlier holds' parts have stopped (their pod calls settled), so
   * two holds never write at once, writes go out and the driving parts start (at once if
   * `notifyPods` had asked). Resolves then, or without opening if `fenceWrites`/`stop` came first.
   */
  async openWrites(): Promise<void> {
    const term = (this.term += 1);
    await this.retiring;
    if (term !== this.term || this.life.stopRequested) return;
    for (const cluster of [this.remote, this.host]) cluster.openWrites();
    this.writesOpen = true;
    if (this.callback) this.start();
  }

  /** Stops every watch and timer and closes the connections. The remote pods keep running. */
  stop(options?: StopOptions): Promise<StopOutcome> {
    return this.life.stop(options);
  }

  private async release(): Promise<void> {
    // Every part stops though one throws; the connections close last, after the Events went out.
    const parts = await stopParts({
      driving: this.drive,
      retired: { stop: () => this.retiring },
      ...when(this.ownsHostEvents, () => ({ 'host events': { stop: () => this.hostEvents.flushAll() } })),
    }).then(() => undefined, (error: unknown) => error);
    await stopParts({
      connections: { stop: () => Promise.all([this.remote.stop(), this.ownsHost ? this.host.stop() : 'clean']) },
      ...when(parts !== undefined, () => ({ parts: { stop: () => Promise.reject(parts) } })),
    });
  }

  /** Remote pods carrying Tether's marks that were ignored because they fail the ownership rule. */
  ignoredRemotePods(): number {
    return this.drive.pods.ignoredCount();
  }

  /** Read-only, for /metrics and tests: the remote cluster's requests sent, keyed `<verb> <code>` (a fenced write is never sent). */
  remoteRequestCounts(): ReadonlyMap<string, number> {
    return this.remote.apiRequestCounts();
  }

  /** The reflected Services and EndpointSlices per host namespace (counts, taken names, last error). */
  serviceReflection(): NamespaceReflection[] {
    return this.drive.services.state();
  }

  /** The provider's loops, run by the node's subtree (ReconcilingProvider): ConfigMap/Secret and Service reflection, remote pods and Events. */
  reconcilers(): readonly Reconciler[] {
    return this.drive.reconcilers();
  }

  /** The Service reflector of each host namespace, for the live actor tree (InspectableProvider). */
  inspect(): ProviderPart[] {
    return reflectorParts(this.serviceReflection());
  }

  /** Ignored remote pods and Service reflection as gauges on /metrics (MetricsProvider). */
  providerMetrics(): ProviderGauge[] {
    return kubernetesGauges(this.ignoredRemotePods(), this.serviceReflection(), {
      notOwned: [this.drive.reflector.notOwned.totals(), this.drive.services.refused.notOwned.totals()], eventsDropped: this.drive.events?.droppedCount() ?? 0,
    });
  }

  /** The id this provider's marks and namespaces carry for the host cluster. */
  get hostClusterId(): string {
    return this.o.hostClusterId;
  }

  /** True once the remote pod informer has listed. */
  hasSynced(): boolean {
    return this.drive.pods.hasSynced();
  }

  remoteNamespaceOf(hostNamespace: string): string {
    return remoteNamespaceFor(hostNamespace, this.o.namespaceStrategy ?? 'suffix', this.o.hostClusterId);
  }

  notifyPods(callback: PodNotificationCallback): void {
    this.callback = callback;
    this.drive.pods.setCallback(callback);
    this.start();
  }

  createPod(pod: Pod, signal?: AbortSignal): Promise<void> {
    this.start();
    return untilAborted(this.drive.call((calls) => calls.create(pod, signal)), signal);
  }

  updatePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    this.start();
    return untilAborted(this.drive.call((calls) => calls.update(pod)), signal);
  }

  deletePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    this.start();
    return untilAborted(this.drive.call((calls) => calls.delete(pod)), signal);
  }

  /**
   * From the informer, after its first list. A restarted agent's pod actors all ask at once: one
   * list answers them all, where a read each would spend the remote budget N times over. The wait
   * is bounded by one read's deadline; a list slower than that (a remote in trouble) gives way to
   * one read of the pod, with its own deadline. A standby (kubelet sessions) reads the pod: it
   * runs no informer.
   */
  async getPod(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined> {
    this.start();
    const remoteNamespace = this.remoteNamespaceOf(namespace);
    const drive = this.drive;
    const remote = drive.isStarted && (await this.listed(drive, signal))
      ? drive.pods.get(remoteNamespace, name)
      : await untilAborted(drive.calls.readRemote(remoteNamespace, name), signal);
    return remote ? toHostPod(remote, this.view) : undefined;
  }

  /** Whether the remote pod informer has listed, waiting for it up to one read's deadline (`signal` aborting rejects). */
  private async listed(drive: DrivingParts, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    if (drive.pods.hasSynced()) return true;
    const patience = new AbortController();
    const timer = this.clock.setTimer(this.remote.deadlines.other, () => patience.abort(new Error('the remote pod list is slow')));
    const onAbort = (): void => patience.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await drive.pods.waitForSync(patience.signal);
      return true;
    } catch (err) {
      signal?.throwIfAborted();
      if (!patience.signal.aborted) throw err;
      return false;
    } finally {
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async getPodStatus(namespace: string, name: string, signal?: AbortSignal): Promise<PodStatus | undefined> {
    return (await this.getPod(namespace, name, signal))?.status;
  }

  /** Waits for the informer's first list (until `signal` aborts), then answers from it. */
  async listPods(signal?: AbortSignal): Promise<Pod[]> {
    const pods = this.drivenPods();
    await pods.waitForSync(signal);
    return pods.list().flatMap((remote) => toHostPod(remote, this.view) ?? []);
  }

  /** The orphan sweep's light listing (podMarks.ts), from the same informer as `listPods`. */
  async listPodMarks(signal?: AbortSignal): Promise<PodMarks[]> {
    const pods = this.drivenPods();
    await pods.waitForSync(signal);
    return pods.listMarks();
  }

  /** The started informer of this hold; a standby has none, and says so rather than wait for ever. */
  private drivenPods(): DrivingParts['pods'] {
    this.start();
    if (!this.driving) throw transient(`node ${this.o.nodeName}: this replica does not drive the node (standby: another replica holds its lock)`);
    return this.drive.pods;
  }

  // The remote cluster's nodes answer for the virtual node (node/remoteNode.ts).
  ping(signal?: AbortSignal): Promise<void> { return this.node.ping(signal); }
  capacity(signal?: AbortSignal): Promise<NodeResources> { return this.node.capacity(signal); }
  nodeInfo(signal?: AbortSignal): Promise<ProviderNodeInfo> { return this.node.nodeInfo(signal); }

  /** The offloaded pods' usage as the remote kubelets report it, in host identities (remoteStats.ts). */
  async getStatsSummary(signal?: AbortSignal): Promise<StatsSummary> {
    await this.drivenPods().waitForSync(signal);
    return this.stats.summary(signal);
  }

  getContainerLogs(
    namespace: string, podName: string, containerName: string, options: ContainerLogOptions, signal?: AbortSignal,
  ): Promise<AsyncIterable<string>> {
    return this.sessions.getContainerLogs(namespace, podName, containerName, options, signal);
  }

  /** exec in the remote pod through the remote API server; its output, exit code and errors come back unchanged. */
  runInContainer(target: ContainerRef, command: readonly string[], streams: ContainerStreams, signal?: AbortSignal): Promise<number> {
    return this.sessions.runInContainer(target, command, streams, signal);
  }

  /** attach to the remote pod's container through the remote API server. */
  attachToContainer(target: ContainerRef, streams: ContainerStreams, signal?: AbortSignal): Promise<number | undefined> {
    return this.sessions.attachToContainer(target, streams, signal);
  }

  /** One forwarded connection to the remote pod's port through the remote API server. */
  portForward(namespace: string, podName: string, port: number, connection: PortConnection, signal?: AbortSignal): Promise<void> {
    return this.sessions.portForward(namespace, podName, port, connection, signal);
  }
}
