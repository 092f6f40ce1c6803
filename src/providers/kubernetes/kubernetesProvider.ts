/**
 * The Kubernetes provider: a virtual node whose pods run in a remote cluster (what Liqo and
 * Admiralty do). It composes the pieces of this folder:
 *
 *   createPod  → remote namespace (remoteNamespaces.ts) → ConfigMaps/Secrets (configReflector.ts)
 *                → the translated pod (podTranslation.ts)
 *   services   → the host Services and EndpointSlices of namespaces with offloaded pods
 *                (serviceReflector.ts), endpoints translated to remote pod IPs
 *   status     ← the remote pod informer (remotePods.ts) → notifyPods, host identity (hostView.ts)
 *   events     ← remote pod Events (remoteEvents.ts) → onRemoteEvent
 *   node       ← /readyz, remote nodes and pods (remoteNode.ts, capacity.ts)
 *   logs       ← the remote API server (remoteLogs.ts)
 *   stats      ← the remote nodes' kubelet summaries, owned pods only (remoteStats.ts)
 *
 * Lifecycle: `start()` (idempotent; also done by `notifyPods` and the first call that needs the
 * informer) and `stop()`. Every method rejects only with classified provider errors
 * (remoteErrors.ts), or with the signal's reason when aborted.
 */
import type { Clock } from '../../lib/clock.js';
import { systemClock } from '../../adapters/clock.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../../lib/lifecycle.js';
import { isKind } from '../../lib/errorKind.js';
import type { KubeLog } from '../../adapters/kubernetes/log.js';
import { noopKubeLog } from '../../adapters/kubernetes/log.js';
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { invalidInput, notFound, transient } from '../errors.js';
import { namespaceRefusal, podSecurityLabels, policyViolations } from './pods/podPolicy.js';
import type {
  AttachProvider,
  ContainerRef,
  ContainerStreams,
  ExecProvider,
  InspectableProvider,
  ProviderPart,
  PortConnection,
  PortForwardProvider,
  WriteFencedProvider,
  ContainerLogOptions, LogsProvider, NodeResources, PodNotificationCallback, Provider, ProviderNodeInfo,
  StatsProvider, StatsSummary,
} from '../provider.js';
import { ClusterClient } from './clusterClient.js';
import { toHostPod, type HostViewOptions } from './pods/hostView.js';
import { hostUidAnnotation } from './marks.js';
import { remoteNamespaceFor } from './namespaceMapping.js';
import type { KubernetesProviderOptions } from './options.js';
import { ownershipOf, type OwnershipRule } from './pods/ownership.js';
import { toRemotePod, type TranslationContext } from './pods/podTranslation.js';
import { offloadedPodLookup } from './serviceReflection/endpointTranslation.js';
import { REFLECTED_KINDS } from './serviceReflection/servicePlan.js';
import { Reflector } from './configReflection/configReflector.js';
import { RemoteEvents } from './pods/remoteEvents.js';
import { asProviderCall, toProviderError, untilAborted } from './remoteErrors.js';
import { streamRemoteLogs } from './streams/remoteLogs.js';
import { relayRemotePortForward } from './streams/remotePortForward.js';
import { relayRemoteStream } from './streams/remoteStreams.js';
import { RemoteNamespaces } from './pods/remoteNamespaces.js';
import { RemoteNode } from './node/remoteNode.js';
import { RemotePods } from './pods/remotePods.js';
import { RemoteStats } from './node/remoteStats.js';
import { ServiceReflector, type NamespaceReflection } from './serviceReflection/serviceReflector.js';
import type { EventRecorderClient } from '../../adapters/kubernetes/eventRecorderClient.js';
import type { PodMarks } from '../podMarks.js';
import { operation } from '../../adapters/kubernetes/operation.js';

export class KubernetesProvider
  implements Provider, LogsProvider, ExecProvider, AttachProvider, PortForwardProvider, StatsProvider, WriteFencedProvider, InspectableProvider, Lifecycle {
  readonly name = 'kubernetes';
  private readonly clock: Clock;
  private readonly log: KubeLog;
  private readonly remote: ClusterClient;
  private readonly host: ClusterClient;
  /** False when the host client was injected: its creator (the agent's wiring) stops it. */
  private readonly ownsHost: boolean;
  private readonly namespaces: RemoteNamespaces;
  private readonly reflector: Reflector;
  private readonly services: ServiceReflector;
  private readonly hostEvents: EventRecorderClient;
  private readonly pods: RemotePods;
  private readonly events: RemoteEvents | undefined;
  private readonly node: RemoteNode;
  private readonly stats: RemoteStats;
  private readonly view: HostViewOptions;
  private readonly rule: OwnershipRule;
  private started = false;
  private readonly life: LifecycleControl;
  /** Ready once the remote pod informer has listed (after `start()`). */
  readonly ready: Promise<void>;
  readonly done: Promise<void>;

  /** Throws KubeconfigError at once if either kubeconfig is unusable (a configuration mistake). */
  constructor(private readonly o: KubernetesProviderOptions) {
    this.life = new LifecycleControl({ clock: o.clock ?? systemClock, release: () => this.release() });
    this.ready = this.life.ready;
    this.done = this.life.done;
    if (o.nodeName === '' || o.hostClusterId === '') throw new Error('kubernetes provider: nodeName and hostClusterId are required');
    this.clock = o.clock ?? systemClock;
    this.log = o.log ?? noopKubeLog;
    const clientOptions = { clock: this.clock, ...(o.rateLimit ? { rateLimit: o.rateLimit } : {}), ...(o.deadlines ? { deadlines: o.deadlines } : {}) };
    this.remote = new ClusterClient(o.remote, clientOptions);
    this.ownsHost = !(o.host instanceof ClusterClient);
    this.host = o.host instanceof ClusterClient ? o.host : new ClusterClient(o.host, clientOptions);
    this.view = { blankPodIPs: o.blankPodIPs ?? false };
    this.rule = { hostClusterId: o.hostClusterId, nodeName: o.nodeName, remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns) };
    this.namespaces = new RemoteNamespaces(this.remote, o.hostClusterId, podSecurityLabels(o.podPolicy?.podSecurityLevel));
    const common = { clock: this.clock, log: this.log, ...(o.watch ? { watch: o.watch } : {}) };
    this.reflector = new Reflector({
      ...common, ...o.reflection, host: this.host, remote: this.remote, hostClusterId: o.hostClusterId,
      remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
      onOptionalMissing: (pod, reason, note) => o.onRemoteEvent?.(
        { namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, 'Warning', reason, note,
      ),
    });
    this.hostEvents = this.host.eventRecorder({ reportingInstance: o.nodeName, clock: this.clock, log: this.log });
    this.services = new ServiceReflector({
      ...common, host: this.host, remote: this.remote, marks: { hostClusterId: o.hostClusterId, nodeName: o.nodeName },
      kinds: new Set(o.reflectedKinds ?? REFLECTED_KINDS), remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
      lookup: offloadedPodLookup((ns, name) => this.pods.get(ns, name), (ns) => this.remoteNamespaceOf(ns)),
      events: this.hostEvents,
      ...(o.reflection?.sweepMs !== undefined ? { resyncMs: o.reflection.sweepMs } : {}),
      ...(o.reflection?.minAgeMs !== undefined ? { lingerMs: o.reflection.minAgeMs } : {}),
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
      ...(o.pingTimeoutMs !== undefined ? { pingTimeoutMs: o.pingTimeoutMs } : {}),
      ...(o.quota ? { quota: o.quota } : {}),
      ...(o.countVirtualNodes ? { countVirtualNodes: true } : {}),
      ...(o.nodeInfo ? { defaultNodeInfo: o.nodeInfo } : {}),
    });
  }

  /** Starts the remote pod informer and the reflector's sweeps; ready once the informer has listed. Idempotent. */
  start(): void {
    if (this.started || this.life.stopRequested) return;
    this.started = true;
    this.pods.start();
    this.reflector.start();
    this.services.start();
    void this.pods.waitForSync().then(() => {
      this.life.markReady();
      this.services.podsSynced();
      return this.reflector.sweep();
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
    this.pods.stop();
    this.events?.stop();
    this.reflector.stop();
    this.services.stop();
    await this.hostEvents.flushAll();
    await Promise.all([this.remote.stop(), this.ownsHost ? this.host.stop() : 'clean']);
  }

  /** Remote pods carrying Tether's marks that were ignored because they fail the ownership rule. */
  ignoredRemotePods(): number {
    return this.pods.ignoredCount();
  }

  /** The reflected Services and EndpointSlices per host namespace (counts, taken names, last error). */
  serviceReflection(): NamespaceReflection[] {
    return this.services.state();
  }

  /** The Service reflector of each host namespace, for the live actor tree (InspectableProvider). */
  inspect(): ProviderPart[] {
    return this.serviceReflection().map((r) => ({
      name: `services-${r.namespace}`,
      kind: 'service-reflector',
      summary: {
        namespace: r.namespace, remoteNamespace: r.remoteNamespace, offloadedPods: r.offloadedPods,
        services: r.services, endpointSlices: r.endpointSlices, namesTaken: r.taken.join(',') || null,
        releasesAt: r.releasesAt !== undefined ? new Date(r.releasesAt).toISOString() : null,
      },
      ...(r.lastError !== undefined ? { lastError: { message: r.lastError, at: new Date(r.lastErrorAt ?? 0).toISOString() } } : {}),
    }));
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
    return untilAborted(this.create(pod), signal);
  }

  private async create(pod: Pod): Promise<void> {
    const remoteNamespace = this.remoteNamespaceOf(pod.metadata?.namespace ?? 'default');
    const refusals = [namespaceRefusal(remoteNamespace, this.o.namespaceStrategy ?? 'suffix', this.o.podPolicy ?? {}), ...policyViolations(pod, this.o.podPolicy ?? {})]
      .filter((r): r is string => r !== undefined);
    if (refusals.length > 0) {
      throw invalidInput(`pod ${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''} refused by the pod policy of node ${this.o.nodeName}: ${refusals.join('; ')}`);
    }
    const remotePod = toRemotePod(pod, this.translation(remoteNamespace));
    const name = remotePod.metadata?.name ?? '';
    const what = `remote pod ${remoteNamespace}/${name}`;
    await asProviderCall(`create remote namespace ${remoteNamespace}`, () => this.namespaces.ensure(remoteNamespace));
    const held = await this.reflector.reflectFor(pod, remoteNamespace);
    try {
      await this.remote.call('other', operation('create', `${what}`), (core, opts) => core.createNamespacedPod({ namespace: remoteNamespace, body: remotePod }, opts));
    } catch (err) {
      if (isKind(err, 'not-found')) this.namespaces.forget(remoteNamespace); // deleted under us; next attempt re-creates it
      if (!isKind(err, 'already-exists')) throw toProviderError(err, `create ${what}`);
      await this.adoptExisting(remoteNamespace, name, remotePod.metadata?.annotations?.[hostUidAnnotation]);
    } finally {
      held.done();
    }
  }

  /** AlreadyExists: success if it is this very pod (same host uid), else transient (409 semantics). */
  private async adoptExisting(remoteNamespace: string, name: string, hostUid: string | undefined): Promise<void> {
    const what = `remote pod ${remoteNamespace}/${name}`;
    const existing = await asProviderCall(`read ${what}`, () =>
      this.remote.call('other', operation('get', `${what}`), (core, opts) => core.readNamespacedPod({ name, namespace: remoteNamespace }, opts)),
    );
    const theirs = existing.metadata?.annotations?.[hostUidAnnotation];
    if (theirs !== hostUid) {
      throw transient(`${what} already exists for another pod (host uid ${theirs ?? 'none'}); waiting for it to go`);
    }
  }

  updatePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    this.start();
    return untilAborted(this.update(pod), signal);
  }

  /** Applies what a running pod may change: labels, annotations, container images, activeDeadlineSeconds. */
  private async update(pod: Pod): Promise<void> {
    const remoteNamespace = this.remoteNamespaceOf(pod.metadata?.namespace ?? 'default');
    const desired = toRemotePod(pod, this.translation(remoteNamespace));
    const name = desired.metadata?.name ?? '';
    const what = `remote pod ${remoteNamespace}/${name}`;
    await asProviderCall(`update ${what}`, async () => {
      const current = await this.remote.call('other', operation('get', `${what}`), (core, opts) => core.readNamespacedPod({ name, namespace: remoteNamespace }, opts));
      const image = (list: { name: string; image?: string }[] | undefined, n: string): string | undefined => list?.find((c) => c.name === n)?.image;
      const spec = current.spec ?? { containers: [] };
      const body: Pod = {
        ...current,
        metadata: { ...current.metadata, labels: desired.metadata?.labels, annotations: desired.metadata?.annotations },
        spec: {
          ...spec,
          containers: spec.containers.map((c) => ({ ...c, image: image(desired.spec?.containers, c.name) ?? c.image })),
          ...(spec.initContainers ? { initContainers: spec.initContainers.map((c) => ({ ...c, image: image(desired.spec?.initContainers, c.name) ?? c.image })) } : {}),
          ...(desired.spec?.activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds: desired.spec.activeDeadlineSeconds } : {}),
        },
      };
      await this.remote.call('other', operation('update', `${what}`), (core, opts) => core.replaceNamespacedPod({ name, namespace: remoteNamespace, body }, opts));
    });
  }

  deletePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    this.start();
    return untilAborted(this.delete(pod), signal);
  }

  private async delete(pod: Pod): Promise<void> {
    const remoteNamespace = this.remoteNamespaceOf(pod.metadata?.namespace ?? 'default');
    const name = pod.metadata?.name ?? '';
    const hostUid = pod.metadata?.annotations?.[hostUidAnnotation] ?? pod.metadata?.uid;
    const what = `remote pod ${remoteNamespace}/${name}`;
    const remote = this.pods.get(remoteNamespace, name) ?? (await this.readRemote(remoteNamespace, name));
    const owner = remote ? ownershipOf(remote, this.rule) : undefined;
    if (!remote || !owner?.owned || (hostUid !== undefined && owner.identity.uid !== hostUid)) {
      throw notFound(`${what} of host pod uid ${hostUid ?? '?'} does not exist`);
    }
    const grace = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds;
    const uid = remote.metadata?.uid;
    this.pods.markDeleting(remoteNamespace, name, uid);
    try {
      await this.remote.call('delete', operation('delete', `${what}`), (core, opts) =>
        core.deleteNamespacedPod({
          name, namespace: remoteNamespace,
          ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
          body: { ...(uid ? { preconditions: { uid } } : {}), ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}) },
        }, opts),
      );
    } catch (err) {
      // A failed uid precondition means another pod holds the name now: ours is gone.
      if (isKind(err, 'conflict')) throw notFound(`${what} is gone (another pod holds the name)`, { cause: err });
      throw toProviderError(err, `delete ${what}`);
    }
  }

  /** The remote pod of that name, if it exists and is Tether's (ownership.ts). */
  private async readRemote(remoteNamespace: string, name: string): Promise<Pod | undefined> {
    const what = `remote pod ${remoteNamespace}/${name}`;
    try {
      const pod = await this.remote.call('other', operation('get', `${what}`), (core, opts) => core.readNamespacedPod({ name, namespace: remoteNamespace }, opts));
      return ownershipOf(pod, this.rule).owned ? pod : undefined;
    } catch (err) {
      if (isKind(err, 'not-found')) return undefined;
      throw toProviderError(err, `read ${what}`);
    }
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
      : await untilAborted(this.readRemote(remoteNamespace, name), signal);
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

  async getContainerLogs(
    namespace: string, podName: string, containerName: string, options: ContainerLogOptions, signal?: AbortSignal,
  ): Promise<AsyncIterable<string>> {
    const pod = await this.getPod(namespace, podName, signal);
    if (!pod) throw notFound(`pod ${namespace}/${podName} is not offloaded by virtual node ${this.o.nodeName}`);
    const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
    if (!containers.some((c) => c.name === containerName)) {
      throw invalidInput(`pod ${namespace}/${podName} has no container ${containerName}`);
    }
    const target = { namespace: this.remoteNamespaceOf(namespace), pod: podName, container: containerName };
    return streamRemoteLogs(this.remote, target, options, signal);
  }

  /** exec in the remote pod through the remote API server; its output, exit code and errors come back unchanged. */
  async runInContainer(target: ContainerRef, command: readonly string[], streams: ContainerStreams, signal?: AbortSignal): Promise<number> {
    const path = await this.remoteStreamPath(target, 'exec', streams, command.map((c) => ['command', c] as const), signal);
    const code = await relayRemoteStream(this.remote.kubeConfig, path, streams, `exec in remote pod of ${target.namespace}/${target.pod}`, signal);
    return code ?? 0;
  }

  /** attach to the remote pod's container through the remote API server. */
  async attachToContainer(target: ContainerRef, streams: ContainerStreams, signal?: AbortSignal): Promise<number | undefined> {
    const path = await this.remoteStreamPath(target, 'attach', streams, [], signal);
    return relayRemoteStream(this.remote.kubeConfig, path, streams, `attach to remote pod of ${target.namespace}/${target.pod}`, signal);
  }

  /** One forwarded connection to the remote pod's port through the remote API server. */
  async portForward(namespace: string, podName: string, port: number, connection: PortConnection, signal?: AbortSignal): Promise<void> {
    const pod = await this.getPod(namespace, podName, signal);
    if (!pod) throw notFound(`pod ${namespace}/${podName} is not offloaded by virtual node ${this.o.nodeName}`);
    const target = { namespace: this.remoteNamespaceOf(namespace), pod: podName, port };
    await relayRemotePortForward(this.remote.kubeConfig, target, connection, `port-forward to remote pod of ${namespace}/${podName}`, signal);
  }

  private async remoteStreamPath(
    target: ContainerRef, kind: 'exec' | 'attach', streams: ContainerStreams, extra: ReadonlyArray<readonly [string, string]>, signal?: AbortSignal,
  ): Promise<string> {
    const pod = await this.getPod(target.namespace, target.pod, signal);
    if (!pod) throw notFound(`pod ${target.namespace}/${target.pod} is not offloaded by virtual node ${this.o.nodeName}`);
    const query = new URLSearchParams({ container: target.container });
    for (const [k, v] of extra) query.append(k, v);
    for (const name of ['stdin', 'stdout', 'stderr'] as const) if (streams[name]) query.append(name, 'true');
    if (streams.tty) query.append('tty', 'true');
    const namespace = encodeURIComponent(this.remoteNamespaceOf(target.namespace));
    return `/api/v1/namespaces/${namespace}/pods/${encodeURIComponent(target.pod)}/${kind}?${query.toString()}`;
  }

  private translation(remoteNamespace: string): TranslationContext {
    return {
      hostClusterId: this.o.hostClusterId,
      nodeName: this.o.nodeName,
      remoteNamespace,
      ...(this.o.offloadingPatch ? { offloadingPatch: this.o.offloadingPatch } : {}),
    };
  }
}
