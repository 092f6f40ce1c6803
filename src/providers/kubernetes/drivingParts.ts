/**
 * The parts of a Kubernetes provider that drive its node: the remote pod informer, the remote
 * namespaces, ConfigMap/Secret and Service reflection, remote Events, and the pod calls that use
 * them. One set per hold of the node (kubernetesProvider.ts): built fresh when this replica may
 * drive the node, stopped for good (watches closed, timers cancelled) when it may no more, and
 * built again at the next hold, so a standby replica runs no informer, sweep or reflection pass,
 * and its state is rebuilt from the clusters as the agent's is. What a standby still serves
 * (kubelet sessions, ping, capacity) is outside: reads only.
 */
import type { Clock, Timer } from '../../lib/clock.js';
import type { KubeLog } from '../../adapters/kubernetes/log.js';
import type { ClusterClient } from '../../adapters/kubernetes/clusterClient.js';
import type { EventRecorderClient } from '../../adapters/kubernetes/eventRecorderClient.js';
import { stopParts } from '../../lib/lifecycle.js';
import type { Reconciler } from '../../lib/reconcile.js';
import { definedOnly } from '../../lib/defaults.js';
import type { PodNotificationCallback } from '../provider.js';
import type { KubernetesProviderOptions } from './options.js';
import { adoptableNamespaces, podSecurityLabels } from './pods/podPolicy.js';
import type { HostViewOptions } from './pods/hostView.js';
import type { OwnershipRule } from './pods/ownership.js';
import { offloadedPodLookup } from './serviceReflection/endpointTranslation.js';
import { REFLECTED_KINDS } from './serviceReflection/servicePlan.js';
import { Reflector } from './configReflection/configReflector.js';
import { RemoteEvents } from './pods/remoteEvents.js';
import { NOT_OWNED_REASON } from './notOwned.js';
import { RemotePodCalls } from './pods/remotePodCalls.js';
import { RemoteNamespaces } from './pods/remoteNamespaces.js';
import { RemotePods } from './pods/remotePods.js';
import { ServiceReflector } from './serviceReflection/serviceReflector.js';
import { REFRESH_NETWORKS_MS, type AddressSafety } from './addresses/addressSafety.js';
import { HostTokens } from './pods/hostTokens.js';

export interface DrivingDeps {
  readonly o: KubernetesProviderOptions;
  readonly remote: ClusterClient;
  readonly host: ClusterClient;
  readonly hostEvents: EventRecorderClient;
  readonly clock: Clock;
  readonly log: KubeLog;
  readonly rule: OwnershipRule;
  readonly view: HostViewOptions;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
  /** Where the pods' notifications go (set by `notifyPods`, kept across holds). */
  readonly callback: () => PodNotificationCallback | undefined;
  /** The informer has listed for the first time in this hold. */
  readonly onSynced: () => void;
  /** Both clusters' CIDRs (addresses/addressSafety.ts): what a remote slice may carry, learnt before any copy. */
  readonly addresses: AddressSafety;
  /** A later hold of the lock: the CIDRs are read again rather than taken from the start's read. */
  readonly relearn: boolean;
}

export class DrivingParts {
  readonly namespaces: RemoteNamespaces;
  readonly reflector: Reflector;
  readonly services: ServiceReflector;
  readonly events: RemoteEvents | undefined;
  readonly pods: RemotePods;
  readonly calls: RemotePodCalls;
  /** The host ServiceAccount tokens of pods with access to the host API server (only when the node gives it). */
  readonly hostTokens: HostTokens | undefined;
  private started = false;
  private stopped = false;
  private readonly relearn: boolean;
  private readonly clock: Clock;
  private refresh: Timer | undefined;
  /** Pod calls still running (a create is several requests): the hold is over only once they have settled. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(d: DrivingDeps) {
    const { o } = d;
    this.namespaces = new RemoteNamespaces(
      d.remote, { hostClusterId: o.hostClusterId, nodeName: o.nodeName, adoptable: adoptableNamespaces(o.podPolicy ?? {}) }, podSecurityLabels(o.podPolicy?.podSecurityLevel),
    );
    const common = { clock: d.clock, log: d.log, ...definedOnly({ watch: o.watch }) };
    this.reflector = new Reflector({
      ...common, ...o.reflection, host: d.host, remote: d.remote, hostClusterId: o.hostClusterId,
      remoteNamespaceOf: d.remoteNamespaceOf,
      namespaceUsable: (remoteNs, hostNs) => this.namespaces.ensure(remoteNs, hostNs),
      onOptionalMissing: (pod, reason, note) => o.onRemoteEvent?.(
        { namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, 'Warning', reason, note,
      ),
      onNotOwned: (object, note) => d.hostEvents.record({ apiVersion: 'v1', ...object }, 'Warning', NOT_OWNED_REASON, note, 'Reflect'),
    });
    this.services = new ServiceReflector({
      ...common, host: d.host, remote: d.remote, marks: { hostClusterId: o.hostClusterId, nodeName: o.nodeName },
      kinds: new Set(o.reflectedKinds ?? REFLECTED_KINDS), remoteNamespaceOf: d.remoteNamespaceOf,
      lookup: offloadedPodLookup((ns, name) => this.pods.get(ns, name), d.remoteNamespaceOf),
      hostAddress: d.addresses.hostAddress,
      namespaceUsable: (remoteNs, hostNs) => this.namespaces.ensure(remoteNs, hostNs),
      events: d.hostEvents,
      ...definedOnly({ resyncMs: o.reflection?.sweepMs, lingerMs: o.reflection?.minAgeMs }),
    });
    this.events = o.onRemoteEvent
      ? new RemoteEvents({
        ...common, remote: d.remote, onEvent: o.onRemoteEvent, podOf: (ns, name) => this.pods.get(ns, name), since: d.clock.now(),
      })
      : undefined;
    this.pods = new RemotePods({
      ...common, remote: d.remote, nodeName: o.nodeName, rule: d.rule, view: d.view,
      onAppear: (hostKey, hostNamespace, remote) => {
        this.reflector.track(hostKey, hostNamespace, remote);
        this.services.podAppeared(hostKey, hostNamespace);
        this.events?.podAppeared(remote.metadata?.namespace ?? '', remote.metadata?.name ?? '');
      },
      onGo: (hostKey, remote) => {
        this.reflector.untrack(hostKey);
        this.services.podGone(hostKey, hostKey.slice(0, hostKey.indexOf('/')));
        this.events?.podGone(remote.metadata?.namespace ?? '', remote.metadata?.name ?? '');
        this.hostTokens?.podGone(remote.metadata?.namespace ?? '', remote.metadata?.name ?? '');
      },
    });
    this.hostTokens = o.hostServiceAccountAccess
      ? new HostTokens({
        host: d.host, remote: d.remote, rule: d.rule, settings: o.hostServiceAccountAccess, pods: this.pods, clock: d.clock, log: d.log,
        ...definedOnly({ resyncMs: o.reflection?.sweepMs, minAgeMs: o.reflection?.minAgeMs }),
      })
      : undefined;
    const callback = d.callback();
    if (callback) this.pods.setCallback(callback);
    this.calls = new RemotePodCalls({
      o, remote: d.remote, namespaces: this.namespaces, reflector: this.reflector, pods: this.pods, rule: d.rule,
      remoteNamespaceOf: d.remoteNamespaceOf, ...definedOnly({ hostTokens: this.hostTokens }),
    });
    this.onSynced = d.onSynced;
    this.addresses = d.addresses;
    this.relearn = d.relearn;
    this.clock = d.clock;
  }

  private readonly addresses: AddressSafety;

  private readonly onSynced: () => void;

  /** Starts the remote pod informer and the Service copies' watches; the sweep once the pods have listed. Idempotent. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.pods.start();
    // No copy of a host slice before the remote's own CIDRs are known (learn() never rejects).
    void (this.relearn ? this.addresses.relearn() : this.addresses.learn()).then(() => {
      if (this.stopped) return;
      this.services.start();
      this.refreshNetworks();
    });
    void this.pods.waitForSync().then(() => {
      if (this.stopped) return;
      this.onSynced();
      this.services.podsSynced();
      this.reflector.requestSweep();
    }, () => undefined);
  }

  /** Reads both clusters' CIDRs again every REFRESH_NETWORKS_MS while this hold lasts. */
  private refreshNetworks(): void {
    this.refresh = this.clock.setTimer(REFRESH_NETWORKS_MS, () => {
      void this.addresses.relearn().then(() => {
        if (!this.stopped) this.refreshNetworks();
      });
    });
  }

  get isStarted(): boolean {
    return this.started && !this.stopped;
  }

  /** The loops the node's subtree runs while this hold lasts: the same ones every time it asks. */
  reconcilers(): readonly Reconciler[] {
    return [
      ...this.reflector.reconcilers(), ...this.services.reconcilers(),
      this.pods.reconciler(), ...(this.events ? [this.events.reconciler()] : []),
      ...(this.hostTokens ? [this.hostTokens.reconciler()] : []),
    ];
  }

  /** One pod call of this hold, counted until it settles (`stop()` waits for it). */
  call<T>(run: (calls: RemotePodCalls) => Promise<T>): Promise<T> {
    const running = run(this.calls);
    const settled = running.then(() => undefined, () => undefined);
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return running;
  }

  /**
   * Stops every watch and timer for good (closing the watches' connections), each part though one
   * throws, then waits for the pod calls still running (fenced, each refused at its next write,
   * a read bounded by its deadline): until then, a step of an old call could still write.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.refresh?.cancel();
    try {
      await stopParts({
        'remote pods': this.pods,
        ...definedOnly({ 'remote events': this.events }),
        'config reflection': this.reflector,
        'service reflection': this.services,
      });
    } finally {
      await Promise.all(this.inFlight);
    }
  }
}
