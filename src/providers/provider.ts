/**
 * The provider contract: what Tether asks of whatever actually runs a virtual node's pods
 * (another cluster, a cloud container service, the simulator).
 *
 * Modelled on virtual-kubelet's PodLifecycleHandler + PodNotifier + NodeProvider, made async.
 * Ownership rule for every method: a pod handed to the provider belongs to the provider from then
 * on (Tether never touches it again), and every pod the provider hands back (return value or
 * notification) belongs to Tether (the provider never touches it again). Tether enforces this by
 * wrapping every provider once in `withDeepCopies` where it hands it to a node; a provider does
 * not wrap itself. Node methods are not wrapped: they return fresh objects.
 *
 * Identity: inside Tether a pod is its host uid. Every pod handed to the provider carries it
 * (`metadata.uid`, and the `tether.dev/host-uid` annotation) with Tether's other `tether.dev/`
 * annotations; every pod the provider returns or notifies must carry the host namespace and name,
 * the host uid (as `metadata.uid` or that annotation) and Tether's annotations unchanged. Tether
 * routes notifications by that uid only, never by name: one without it reaches no pod (it is
 * counted and logged, identityChecks.ts), one with another pod's uid reaches that pod.
 *
 * Errors: every method rejects with errors classified by `errors.ts` (`notFound`, `invalidInput`,
 * `transient`); callers branch on `providerKindOf(err)`, never on message text. An unclassified
 * error (`providerKindOf` is undefined) is treated by callers as a crash of the provider call.
 *
 * Cancellation: every async method takes an optional AbortSignal. A provider should stop waiting
 * and reject with the signal's reason when it fires; whether the remote side effect happened
 * anyway is unknown, which is why every mutating method is idempotent. `createPod`'s signal also
 * fires at the pod's create deadline, before its retry: work not yet sent should be dropped.
 */
import type { NodeSystemInfo, Pod, PodStatus } from '../adapters/kubernetes/model.js';
import type { NamedPod } from '../lib/podIdentity.js';
import type { Reconciler } from '../lib/reconcile.js';
import type { AttachProvider, ExecProvider, LogsProvider, PortForwardProvider, StatsProvider } from './containerSessions.js';

// The optional capabilities the kubelet API serves, and a provider's own gauges, in files of their own.
export * from './containerSessions.js';
export * from './metricsProvider.js';
export * from './containerDuties.js';

/** What a provider pushes to Tether about one pod. */
export type PodNotification =
  /**
   * The pod's current state. `pod` is a copy Tether owns; its `status` is the truth; its metadata
   * carries the host identity (namespace, name, host uid) and Tether's annotations as given.
   */
  | { readonly type: 'status'; readonly pod: Pod }
  /**
   * The provider no longer has this pod and did not end it through `deletePod` (it was lost,
   * evicted remotely, or the remote side was reset). Tether decides what that means for the pod
   * (typically: Failed with this reason). `reason` is a CamelCase word such as 'NotFound'.
   */
  | {
      readonly type: 'gone';
      readonly namespace: string;
      readonly name: string;
      /** The host uid: without it the notification reaches no pod (counted and logged). */
      readonly uid: string | undefined;
      readonly reason: string;
      readonly message?: string;
    };

export type PodNotificationCallback = (notification: PodNotification) => void;

/**
 * Pod lifecycle for providers that cannot push status (they are polled instead; see
 * `pollingProvider.ts`). Same contracts as `PodProvider`, minus `notifyPods`.
 */
export interface LegacyPodProvider {
  /**
   * Starts running `pod`. Idempotent: creating a pod the provider already runs with the same uid
   * resolves without doing anything. May block for the duration of a remote call, never for the
   * pod's start-up: the pod's progress is reported later through status. Rejects `invalidInput`
   * when the pod can never run as specified, `transient` when it may run later.
   * Owns `pod` after the call.
   */
  createPod(pod: Pod, signal?: AbortSignal): Promise<void>;

  /**
   * Applies a changed spec/metadata of a pod the provider already runs (labels, annotations,
   * images, activeDeadlineSeconds). Idempotent. Rejects `notFound` if the provider does not have
   * the pod. Owns `pod` after the call.
   */
  updatePod(pod: Pod, signal?: AbortSignal): Promise<void>;

  /**
   * Stops the pod gracefully: containers get `metadata.deletionGracePeriodSeconds` (else
   * `spec.terminationGracePeriodSeconds`, else 30) seconds before they are killed. Resolves once
   * the stop has been accepted, not when the pod has stopped; the end must be reported as a
   * terminal status (phase Succeeded or Failed), after which the provider may forget the pod.
   * May be called repeatedly for the same pod (a shorter grace period shortens the wait; a longer
   * one never lengthens it). Rejects `notFound` if the provider does not have the pod, which
   * callers treat as "already deleted". Owns `pod` after the call.
   */
  deletePod(pod: Pod, signal?: AbortSignal): Promise<void>;

  /**
   * The pod as the provider runs it (spec as last given, status as observed), or undefined if the
   * provider does not have it. Read-only, does not block beyond one remote call. The returned pod
   * is Tether's.
   */
  getPod(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined>;

  /** The pod's status alone, or undefined if the provider does not have it. Same contract as `getPod`. */
  getPodStatus(namespace: string, name: string, signal?: AbortSignal): Promise<PodStatus | undefined>;

  /**
   * Every pod the provider currently runs for this node, including terminated ones it has not yet
   * forgotten. Used at start-up to reconcile. The returned pods are Tether's.
   */
  listPods(signal?: AbortSignal): Promise<Pod[]>;
}

/** Pod lifecycle for providers that push status changes. */
export interface PodProvider extends LegacyPodProvider {
  /**
   * Registers the callback that receives every status change and every lost pod. Tether calls
   * this once, before the first `createPod`; a second call replaces the callback. Must not block
   * and must not call `callback` synchronously (never from inside `createPod` either: status is
   * delivered asynchronously, in order per pod). The callback must not block either; it enqueues.
   * Each notification's pod is a copy Tether owns.
   */
  notifyPods(callback: PodNotificationCallback): void;
}

/** Host features a pod may ask for (`spec.hostNetwork` and the like), which mean the node's own host. */
export type PodFeature = 'hostNetwork' | 'hostPID' | 'hostIPC';

/**
 * Optional: the host features the provider runs as asked. A pod asking for any other is rejected
 * at admission, before the provider sees it (reason `UnsupportedPodFeature`). A provider without
 * this method supports none of them.
 */
export interface PodFeatureProvider {
  supportedPodFeatures(): readonly PodFeature[];
}

export const supportedPodFeatures = (provider: object): readonly PodFeature[] =>
  'supportedPodFeatures' in provider && typeof provider.supportedPodFeatures === 'function' ? (provider as PodFeatureProvider).supportedPodFeatures() : [];

/** A Kubernetes resource list: resource name to quantity string, e.g. `{ cpu: '20', memory: '100Gi', pods: '110' }`. */
export type ResourceList = Readonly<Record<string, string>>;

export interface NodeResources {
  readonly capacity: ResourceList;
  /** What may be scheduled: capacity minus what the provider reserves. */
  readonly allocatable: ResourceList;
}

/** The part of NodeSystemInfo a provider knows; Tether fills in its own version and ids. */
export type ProviderNodeInfo = Pick<
  NodeSystemInfo,
  'operatingSystem' | 'architecture' | 'kernelVersion' | 'osImage' | 'containerRuntimeVersion'
>;

export interface NodeProvider {
  /** The provider's kind, e.g. 'simulated'. Constant; used as a node label value. */
  readonly name: string;

  /**
   * Resolves when the provider is healthy, rejects (with a message saying why) when it is not.
   * Called periodically; must honour `signal` so a hung backend shows as unhealthy.
   * Side-effect free and idempotent.
   */
  ping(signal?: AbortSignal): Promise<void>;

  /** What the node offers. Read-only; the returned object is Tether's. */
  capacity(signal?: AbortSignal): Promise<NodeResources>;

  /** OS, architecture and runtime description for the node's status. Read-only; returned object is Tether's. */
  nodeInfo(signal?: AbortSignal): Promise<ProviderNodeInfo>;
}

export type Provider = PodProvider & NodeProvider;

function hasMethod(value: object, name: string): boolean {
  return typeof (value as Record<string, unknown>)[name] === 'function';
}

/**
 * Optional, for high availability: a provider whose writes can be fenced off when this replica
 * loses its node's lock, so that writes still queued (an orphan sweep's deletes, say) are dropped
 * rather than sent after another replica took the node over. Reads may go on.
 */
export interface WriteFencedProvider {
  /** Drops writes still queued, abandons those in flight, refuses new ones until `openWrites`. */
  fenceWrites(reason: string): void;
  /**
   * Lets writes through again (this replica holds the lock again). A provider whose parts of an
   * earlier hold may still be stopping opens only once they have, and returns a promise that
   * settles then (a `fenceWrites` first: it settles without opening); the agent waits for it
   * before the node runs.
   */
  openWrites(): void | Promise<void>;
}

/**
 * Optional: long-lived parts of a provider that are not actors (the Kubernetes provider's Service
 * reflector per namespace), shown read-only in the live actor tree under their virtual node: the
 * provider's own tree views.
 * `inspect` is called for every snapshot: it must be cheap, synchronous and side-effect free.
 */
export interface InspectableProvider {
  inspect(): readonly ProviderPart[];
}

export interface ProviderPart {
  /** Unique among the provider's parts, path-safe (becomes `<node path>/<name>`). */
  readonly name: string;
  readonly kind: string;
  readonly summary: Readonly<Record<string, string | number | boolean | null>>;
  /** The part's last failure, if it is failing now. */
  readonly lastError?: { readonly message: string; readonly at: string };
}

/**
 * Optional: the provider's keyed reconcile loops (src/lib/reconcile.ts states their contract).
 * The node's subtree runs each as a supervised actor (`<node>/reconcilers/<name>`), restarts it
 * when it crashes, and it re-lists its keys then. Called at every start of the node's subtree:
 * return the same reconcilers each time (they hold no queue; their actor does). Until the node's
 * subtree runs them, nothing reconciles: a provider used without a node runs them itself.
 */
export interface ReconcilingProvider {
  reconcilers(): readonly Reconciler[];
}

export function isReconcilingProvider<P extends object>(provider: P): provider is P & ReconcilingProvider {
  return hasMethod(provider, 'reconcilers');
}

export function isInspectableProvider<P extends object>(provider: P): provider is P & InspectableProvider {
  return hasMethod(provider, 'inspect');
}

export function isWriteFencedProvider<P extends object>(provider: P): provider is P & WriteFencedProvider {
  return hasMethod(provider, 'fenceWrites') && hasMethod(provider, 'openWrites');
}

export function isLogsProvider<P extends object>(provider: P): provider is P & LogsProvider {
  return hasMethod(provider, 'getContainerLogs');
}

export function isStatsProvider<P extends object>(provider: P): provider is P & StatsProvider {
  return hasMethod(provider, 'getStatsSummary');
}

export function isExecProvider<P extends object>(provider: P): provider is P & ExecProvider {
  return hasMethod(provider, 'runInContainer');
}

export function isAttachProvider<P extends object>(provider: P): provider is P & AttachProvider {
  return hasMethod(provider, 'attachToContainer');
}

export function isPortForwardProvider<P extends object>(provider: P): provider is P & PortForwardProvider {
  return hasMethod(provider, 'portForward');
}

/** Does this pod provider push status itself, or must it be polled? */
export function isPodProvider(provider: LegacyPodProvider): provider is PodProvider {
  return hasMethod(provider, 'notifyPods');
}

/** The namespace/name/uid of a pod, with the defaults the API server would have applied. */
export function podIdentity(pod: Pod): NamedPod {
  return {
    namespace: pod.metadata?.namespace ?? 'default',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid,
  };
}
