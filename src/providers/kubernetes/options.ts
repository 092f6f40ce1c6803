/**
 * How one Kubernetes provider instance (one virtual node backed by one remote cluster) is
 * configured. Many instances may live in one process, each with its own connections, watches and
 * rate limiters.
 */
import type { Clock } from '../../lib/clock.js';
import type { WatchTiming } from '../../adapters/kubernetes/cachedListWatch.js';
import type { CallDeadlines } from '../../adapters/kubernetes/call.js';
import type { KubeLog } from '../../adapters/kubernetes/log.js';
import type { ProviderNodeInfo, ResourceList } from '../provider.js';
import type { ClusterClient, ClusterSource } from '../../adapters/kubernetes/clusterClient.js';
import type { EventRecorderClient } from '../../adapters/kubernetes/eventRecorderClient.js';
import type { NamespaceStrategy } from './namespaceMapping.js';
import type { PodPolicy } from './pods/podPolicy.js';
import type { OffloadingPatch } from './pods/schedulingPatch.js';
import type { SchedulingConstraintsRule } from './pods/schedulingConstraints.js';
import type { ReflectedKind } from './serviceReflection/servicePlan.js';
import type { RemoteEventCallback } from './pods/remoteEvents.js';
import type { AddressRemap } from './addresses/addressRemap.js';
import type { MappingChangeRule } from './pods/mappingChange.js';
import type { UnknownCidrRule } from './addresses/addressCheck.js';
import type { HostAccessSettings } from './pods/hostAccess.js';

export interface KubernetesProviderOptions {
  /** The virtual node this instance serves (labels and annotations on remote pods). */
  readonly nodeName: string;
  /** Names the host cluster in remote namespaces and marks; unique among the remote's users. */
  readonly hostClusterId: string;
  /** Where pods run: a kubeconfig file or string (a Secret's content is read by the caller), or a loaded KubeConfig. */
  readonly remote: ClusterSource;
  /**
   * The host cluster, where the host pods' ConfigMaps, Secrets and Services are read from and
   * Events written: the node's one host ClusterClient, shared with the agent (one rate limiter,
   * pool and fence; `tether run` passes it, and stops it after the provider), or a source to
   * build one of the provider's own from (closed with the provider).
   */
  readonly host: ClusterClient | ClusterSource;
  /**
   * A standby from construction (a replica under leader election): both clusters' writes fenced,
   * no informer, sweep or reflection pass running, until `openWrites` (the node's lock is held).
   * Default false: a single replica, writes open from the start.
   */
  readonly fenced?: boolean;
  /** The node's host EventRecorder, shared with the agent (`tether run` passes it); without it the provider makes its own over `host`. */
  readonly hostEvents?: EventRecorderClient;
  /** Default 'suffix': `<namespace>-<hostClusterId>`. */
  readonly namespaceStrategy?: NamespaceStrategy;
  /** Running pods placed under another mapping or host cluster id at start: refuse the node (default) or adopt that mapping (pods/mappingChange.ts). */
  readonly mappingChange?: MappingChangeRule;
  /** Pod Security level of the namespaces Tether creates, and what is refused before sending (podPolicy.ts). */
  readonly podPolicy?: PodPolicy;
  /**
   * The remote scheduling patch, added to every offloaded pod: nodeSelector, affinity terms and
   * tolerations (schedulingPatch.ts). With a nodeSelector, capacity counts only the remote nodes it selects.
   */
  readonly offloadingPatch?: OffloadingPatch;
  /** Carry the pod's (anti-)affinity and priority class to the remote (default 'drop': dropped, with an Event). */
  readonly schedulingConstraints?: SchedulingConstraintsRule;
  /** Host RuntimeClass → remote RuntimeClass; a class not in it is refused. Without a map: the same name, if the remote has it. */
  readonly runtimeClassMap?: Readonly<Record<string, string>>;
  /**
   * ServiceAccount access to the host API server for the offloaded pods (pods/hostAccess.ts;
   * docs/security.md): absent (the default), no host credential reaches the remote cluster.
   */
  readonly hostServiceAccountAccess?: HostAccessSettings;
  /** Report pods without podIP/podIPs (default false: the remote IPs as reported). */
  readonly blankPodIPs?: boolean;
  /**
   * Both clusters' pod and Service CIDRs where they should not be learned from the clusters
   * (addresses/clusterNetworks.ts), and what an unknown pod CIDR means at start (default `warn`).
   */
  readonly networks?: NetworksOptions;
  /** Translates addresses between clusters whose pod CIDRs overlap (a NAT between them): addresses/addressRemap.ts. */
  readonly addressRemap?: AddressRemap;
  /**
   * Count the remote cluster's virtual-kubelet nodes in capacity (default false: another virtual
   * kubelet's node would count a third cluster, or this one twice). Set it when the remote's
   * workers are themselves virtual nodes, such as a Tether node with the simulated provider.
   */
  readonly countVirtualNodes?: boolean;
  /** Fixed capacity and allocatable instead of the remote nodes' sum. */
  readonly quota?: ResourceList;
  /**
   * Events about this node's host pods: remote Events (note prefixed `remote: `) and the
   * provider's own (`OptionalConfigMapNotFound`, `OptionalSecretNotFound`). Wire it to the host
   * EventRecorder (`tether run` does).
   */
  readonly onRemoteEvent?: RemoteEventCallback;
  /** `/readyz` timeout for `ping` (default 5000 ms). */
  readonly pingTimeoutMs?: number;
  /** Client-side limit of the remote cluster, and of the host one when built from a source (default qps 50, burst 100). */
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  readonly watch?: WatchTiming;
  /** Per-class deadlines of every call to either cluster (defaults in adapters/kubernetes/call.ts). */
  readonly deadlines?: Partial<CallDeadlines>;
  readonly reflection?: {
    /** Full sweep of unreferenced copies (default 5 min). */
    readonly sweepMs?: number;
    /** Copies younger than this are never swept (default 30 s). */
    readonly minAgeMs?: number;
    /** Sweep this long after a pod goes (default 1 s). */
    readonly sweepDelayMs?: number;
  };
  /**
   * Which of the host's kinds follow offloaded pods into their remote namespaces (default
   * Service and EndpointSlice; [] reflects neither). EndpointSlice needs Service. ConfigMaps and
   * Secrets a pod references are always reflected: the pod cannot start without them.
   */
  readonly reflectedKinds?: readonly ReflectedKind[];
  /** Used when the remote cluster has no nodes to describe. */
  readonly nodeInfo?: Partial<ProviderNodeInfo>;
  readonly clock?: Clock;
  readonly log?: KubeLog;
}

export interface NetworksOptions {
  readonly hostPodCIDRs?: readonly string[];
  readonly hostServiceCIDRs?: readonly string[];
  readonly remotePodCIDRs?: readonly string[];
  readonly remoteServiceCIDRs?: readonly string[];
  readonly unknownCIDRs?: UnknownCidrRule;
}
