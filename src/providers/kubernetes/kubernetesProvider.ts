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
 *
 * Lifecycle: `start()` (idempotent; also done by `notifyPods` and the first call that needs the
 * informer) and `stop()`. Every method rejects only with classified provider errors
 * (remoteErrors.ts), or with the signal's reason when aborted.
 */
import type { Clock } from '../../lib/clock.js';
import { systemClock } from '../../adapters/clock.js';
import { LifecycleControl, stopParts, type Lifecycle, type StopOptions, type StopOutcome } from '../../lib/lifecycle.js';
import type { KubeLog } from '../../adapters/kubernetes/log.js';
import { noopKubeLog } from '../../adapters/kubernetes/log.js';
import { errorMessage } from '../../lib/errorMessage.js';
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { adoptableNamespaces, podSecurityLabels } from './pods/podPolicy.js';
import type {
  AttachProvider,
  ContainerRef,
  ContainerStreams,
  ExecProvider,
  InspectableProvider,
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
import { offloadedPodLookup } from './serviceReflection/endpointTranslation.js';
import { REFLECTED_KINDS } from './serviceReflection/servicePlan.js';
import { Reflector } from './configReflection/configReflector.js';
import { RemoteEvents } from './pods/remoteEvents.js';
import { NOT_OWNED_REASON } from './notOwned.js';
import { untilAborted } from './remoteErrors.js';
import { RemotePodCalls } from './pods/remotePodCalls.js';
import { RemoteContainerSessions } from './streams/remoteContainerSessions.js';
import { reflectorParts } from './serviceReflection/reflectorParts.js';
import { kubernetesGauges } from './providerGauges.js';
import { RemoteNamespaces } from './pods/remoteNamespaces.js';
import { RemoteNode } from './node/remoteNode.js';
import { RemotePods } from './pods/remotePods.js';
import { RemoteStats } from './node/remoteStats.js';
import { ServiceReflector, type NamespaceReflection } from './serviceReflection/serviceReflector.js';
import type { EventRecorderClient } from '../../adapters/kubernetes/eventRecorderClient.js';
import type { PodMarks } from '../podMarks.js';
import type { Reconciler } from '../../lib/reconcile.js';
import { definedOnly, when } from '../../lib/defaults.js';

export class KubernetesProvider
  implements Provider, LogsProvider, ExecProvider, AttachProvider, PortForwardProvider, StatsProvider, WriteFencedProvider, InspectableProvider, MetricsProvider, ReconcilingProvider, KubeletBackedProvider, Lifecycle {
  readonly name = 'kubernetes';
  /** The remote cluster's kubelet runs the hooks and records the container Events (forwarded by remoteEvents.ts). */
  readonly runsPodsUnderKubelet = true;
  private readonly clock: Clock;
  private readonly ownsHost: boolean;
  private readonly log: KubeLog;
  private readonly remote: ClusterClient;
  private readonly host: ClusterClient;
  private readonly namespaces: RemoteNamespaces;
  private readonly reflector: Reflector;
  private readonly services: ServiceReflector;
  private readonly hostEvents: EventRecorderClient;
  private readonly ownsHostEvents: boolean;
  private readonly pods: RemotePods;
  private readonly events: RemoteEvents | undefined;
  private readonly node: RemoteNode;
  private readonly stats: RemoteStats;
  private readonly calls: RemotePodCalls;
  private readonly sessions: RemoteContainerSessions;
  private readonly view: HostViewOptions;
  private readonly rule: OwnershipRule;
  private started = false;
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
    this.remote = new ClusterClient(o.remote, clientOptions);
    // An injected host connection is the agent's (one per node) and stays open; a source gets our own.
    this.ownsHost = !(o.host instanceof ClusterClient);
    this.host = o.host instanceof ClusterClient ? o.host : new ClusterClient(o.host, clientOptions);
    this.view = { blankPodIPs: o.blankPodIPs ?? false };
    this.rule = { hostClusterId: o.hostClusterId, nodeName: o.nodeName, remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns) };
    this.namespaces = new RemoteNamespaces(
      this.remote, { hostClusterId: o.hostClusterId, nodeName: o.nodeName, adoptable: adoptableNamespaces(o.podPolicy ?? {}) }, podSecurityLabels(o.podPolicy?.podSecurityLevel),
    );
    const common = { clock: this.clock, log: this.log, ...definedOnly({ watch: o.watch }) };
    this.reflector = new Reflector({
      ...common, ...o.reflection, host: this.host, remote: this.remote, hostClusterId: o.hostClusterId,
      remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
      namespaceUsable: (remoteNs, hostNs) => this.namespaces.ensure(remoteNs, hostNs),
      onOptionalMissing: (pod, reason, note) => o.onRemoteEvent?.(
        { namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, 'Warning', reason, note,
      ),
      onNotOwned: (object, note) => this.hostEvents.record({ apiVersion: 'v1', ...object }, 'Warning', NOT_OWNED_REASON, note, 'Reflect'),
    });
    this.ownsHostEvents = o.hostEvents === undefined;
    this.hostEvents = o.hostEvents ?? this.host.eventRecorder({ reportingInstance: o.nodeName, clock: this.clock, log: this.log });
    this.services = new ServiceReflector({
      ...common, host: this.host, remote: this.remote, marks: { hostClusterId: o.hostClusterId, nodeName: o.nodeName },
      kinds: new Set(o.reflectedKinds ?? REFLECTED_KINDS), remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
      lookup: offloadedPodLookup((ns, name) => this.pods.get(ns, name), (ns) => this.remoteNamespaceOf(ns)),
      namespaceUsable: (remoteNs, hostNs) => this.namespaces.ensure(remoteNs, hostNs),
      events: this.hostEvents,
      ...definedOnly({ resyncMs: o.reflection?.sweepMs, lingerMs: o.reflection?.minAgeMs }),
    });
    this.events = o.onRemoteEvent
      ? new RemoteEvents({
        ...common, remote: this.remote, onEvent: o.onRemoteEvent, podOf: (ns, name) => this.pods.get(ns, name), since: this.clock.now(),
      })
      : undefined;
    this.pods = new RemotePods({
      ...common, remote: this.remote, nodeName: o.nodeName, rule: this.rule, view: this.view,
      onAppear: (hostKey, hostNamespace, remote) => {
        this.reflector.track(hostKey, hostNamespace, remote);
        this.services.podAppeared(hostKey, hostNamespace);
        this.events?.podAppeared(remote.metadata?.namespace ?? '', remote.metadata?.name ?? '');
      },
      onGo: (hostKey, remote) => {
        this.reflector.untrack(hostKey);
        this.services.podGone(hostKey, hostKey.slice(0, hostKey.indexOf('/')));
        this.events?.podGone(remote.metadata?.namespace ?? '', remote.metadata?.name ?? '');
      },
    });
    this.stats = new RemoteStats({ remote: this.remote, rule: this.rule, owned: () => this.pods.list(), clock: this.clock, log: this.log });
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
    this.calls = new RemotePodCalls({
      o, remote: this.remote, namespaces: this.namespaces, reflector: this.reflector, pods: this.pods, rule: this.rule,
      remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
    });
    this.sessions = new RemoteContainerSessions({
      remote: this.remote, nodeName: o.nodeName, getPod: (ns, name, signal) => this.getPod(ns, name, signal),
      remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
    });
  }

  /** Starts the remote pod informer; ready once it has listed, when the reflector's sweep is asked for. Idempotent. */
  start(): void {
    if (this.started || this.life.stopRequested) return;
    this.started = true;
    this.pods.start();
    this.services.start();
    void this.pods.waitForSync().then(() => {
      this.life.markReady();
      this.services.podsSynced();
      this.reflector.requestSweep();
    }, () => undefined);
  }

  /** The node's lock is lost (HA): both clusters' writes are fenced off; informers keep reading. */
  fenceWrites(reason: string): void {
    this.remote.fenceWrites(reason);
    this.host.fenceWrites(reason);
  }

  openWrites(): void {
    this.remote.openWrites();
    this.host.openWrites();
  }

  /** Stops every watch and timer and closes the connections. The remote pods keep running. */
  stop(options?: StopOptions): Promise<StopOutcome> {
    return this.life.stop(options);
  }

  private async release(): Promise<void> {
    // Every part stops though one throws; the connections close last, after the Events went out.
    const parts = await stopParts({
      'remote pods': this.pods,
      ...definedOnly({ 'remote events': this.events }),
      'config reflection': this.reflector,
      'service reflection': this.services,
      ...when(this.ownsHostEvents, () => ({ 'host events': { stop: () => this.hostEvents.flushAll() } })),
    }).then(() => undefined, (error: unknown) => error);
    await stopParts({
      connections: { stop: () => Promise.all([this.remote.stop(), this.ownsHost ? this.host.stop() : 'clean']) },
      ...when(parts !== undefined, () => ({ parts: { stop: () => Promise.reject(parts) } })),
    });
  }

  /** Remote pods carrying Tether's marks that were ignored because they fail the ownership rule. */
  ignoredRemotePods(): number {
    return this.pods.ignoredCount();
  }

  /** The reflected Services and EndpointSlices per host namespace (counts, taken names, last error). */
  serviceReflection(): NamespaceReflection[] {
    return this.services.state();
  }

  /** The provider's loops, run by the node's subtree (ReconcilingProvider): ConfigMap/Secret and Service reflection, remote pods and Events. */
  reconcilers(): readonly Reconciler[] {
    return [
      ...this.reflector.reconcilers(), ...this.services.reconcilers(),
      this.pods.reconciler(), ...(this.events ? [this.events.reconciler()] : []),
    ];
  }

  /** The Service reflector of each host namespace, for the live actor tree (InspectableProvider). */
  inspect(): ProviderPart[] {
    return reflectorParts(this.serviceReflection());
  }

  /** Ignored remote pods and Service reflection as gauges on /metrics (MetricsProvider). */
  providerMetrics(): ProviderGauge[] {
    return kubernetesGauges(this.ignoredRemotePods(), this.serviceReflection(), {
      notOwned: [this.reflector.notOwned.totals(), this.services.refused.notOwned.totals()], eventsDropped: this.events?.droppedCount() ?? 0,
    });
  }

  /** The id this provider's marks and namespaces carry for the host cluster. */
  get hostClusterId(): string {
    return this.o.hostClusterId;
  }

  /** True once the remote pod informer has listed. */
  hasSynced(): boolean {
    return this.pods.hasSynced();
  }

  remoteNamespaceOf(hostNamespace: string): string {
    return remoteNamespaceFor(hostNamespace, this.o.namespaceStrategy ?? 'suffix', this.o.hostClusterId);
  }

  notifyPods(callback: PodNotificationCallback): void {
    this.pods.setCallback(callback);
    this.start();
  }

  createPod(pod: Pod, signal?: AbortSignal): Promise<void> {
    this.start();
    return untilAborted(this.calls.create(pod), signal);
  }

  updatePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    this.start();
    return untilAborted(this.calls.update(pod), signal);
  }

  deletePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    this.start();
    return untilAborted(this.calls.delete(pod), signal);
  }

  /**
   * From the informer, after its first list. A restarted agent's pod actors all ask at once: one
   * list answers them all, where a read each would spend the remote budget N times over. The wait
   * is bounded by one read's deadline; a list slower than that (a remote in trouble) gives way to
   * one read of the pod, with its own deadline.
   */
  async getPod(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined> {
    this.start();
    const remoteNamespace = this.remoteNamespaceOf(namespace);
    const remote = (await this.listed(signal))
      ? this.pods.get(remoteNamespace, name)
      : await untilAborted(this.calls.readRemote(remoteNamespace, name), signal);
    return remote ? toHostPod(remote, this.view) : undefined;
  }

  /** Whether the remote pod informer has listed, waiting for it up to one read's deadline (`signal` aborting rejects). */
  private async listed(signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    if (this.pods.hasSynced()) return true;
    const patience = new AbortController();
    const timer = this.clock.setTimer(this.remote.deadlines.other, () => patience.abort(new Error('the remote pod list is slow')));
    const onAbort = (): void => patience.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.pods.waitForSync(patience.signal);
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
    this.start();
    await this.pods.waitForSync(signal);
    return this.pods.list().flatMap((remote) => toHostPod(remote, this.view) ?? []);
  }

  /** The orphan sweep's light listing (podMarks.ts), from the same informer as `listPods`. */
  async listPodMarks(signal?: AbortSignal): Promise<PodMarks[]> {
    this.start();
    await this.pods.waitForSync(signal);
    return this.pods.listMarks();
  }

  ping(signal?: AbortSignal): Promise<void> {
    return this.node.ping(signal);
  }

  capacity(signal?: AbortSignal): Promise<NodeResources> {
    return this.node.capacity(signal);
  }

  nodeInfo(signal?: AbortSignal): Promise<ProviderNodeInfo> {
    return this.node.nodeInfo(signal);
  }

  /** The offloaded pods' usage as the remote kubelets report it, in host identities (remoteStats.ts). */
  async getStatsSummary(signal?: AbortSignal): Promise<StatsSummary> {
    this.start();
    await this.pods.waitForSync(signal);
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
