/**
 * The provider contract: what Tether asks of whatever actually runs a virtual node's pods
 * (another cluster, a cloud container service, the simulator).
 *
 * Modelled on virtual-kubelet's PodLifecycleHandler + PodNotifier + NodeProvider, made async.
 * Ownership rule for every method: a pod handed to the provider belongs to the provider from then
 * on (Tether never touches it again), and every pod the provider hands back (return value or
 * notification) belongs to Tether (the provider never touches it again). `withDeepCopies` enforces
 * this for providers that cannot promise it themselves.
 *
 * Errors: every method rejects with errors classified by `errors.ts` (`notFound`, `invalidInput`,
 * `transient`); callers branch on `providerKindOf(err)`, never on message text. An unclassified
 * error (`providerKindOf` is undefined) is treated by callers as a crash of the provider call.
 *
 * Cancellation: every async method takes an optional AbortSignal. A provider should stop waiting
 * and reject with the signal's reason when it fires; whether the remote side effect happened
 * anyway is unknown, which is why every mutating method is idempotent.
 */
import type { NodeSystemInfo, Pod, PodStatus } from '../adapters/kubernetes/model.js';

/** What a provider pushes to Tether about one pod. */
export type PodNotification =
  /** The pod's current state. `pod` is a copy Tether owns; its `status` is the truth. */
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

/** Options of `kubectl logs` as the kubelet receives them. */
export interface ContainerLogOptions {
  /** Only the last N lines. */
  readonly tailLines?: number;
  /** Keep streaming new lines until `signal` aborts or the container ends. */
  readonly follow?: boolean;
  /** Prefix each line with its RFC 3339 timestamp and a space. */
  readonly timestamps?: boolean;
  /** Only lines written in the last N seconds. */
  readonly sinceSeconds?: number;
  /** Stop after this many bytes (UTF-8), possibly in the middle of a line. */
  readonly limitBytes?: number;
  /** The previous (terminated) instance of the container rather than the current one. */
  readonly previous?: boolean;
}

export interface LogsProvider {
  /**
   * Container logs as an AsyncIterable of text chunks (each chunk is one or more whole lines with
   * their '\n', except that `limitBytes` may cut the last one). The promise rejects before any
   * output if the pod is unknown (`notFound`) or the container has no such log (`invalidInput`),
   * so an HTTP layer can answer with a status code. The iterable ends when the log ends, or, with
   * `follow`, when `signal` aborts (ending quietly, not throwing) or the container terminates.
   * Not idempotent in time (a later call sees more lines). Use `Readable.from(iterable)` for a stream.
   */
  getContainerLogs(
    namespace: string,
    podName: string,
    containerName: string,
    options: ContainerLogOptions,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<string>>;
}

/** A subset of the kubelet's stats/v1alpha1 Summary, JSON-shaped for `/stats/summary`. */
export interface UsageStats {
  /** RFC 3339 time of the sample. */
  readonly time: string;
  readonly usageNanoCores: number;
  /** Cumulative CPU time since start, if the provider knows it (else /metrics/resource derives it). */
  readonly usageCoreNanoSeconds?: number;
  readonly workingSetBytes: number;
}

export interface ContainerStats {
  readonly name: string;
  readonly startTime: string;
  readonly usage: UsageStats;
}

export interface PodStats {
  readonly podRef: { readonly namespace: string; readonly name: string; readonly uid: string };
  readonly startTime: string;
  readonly usage: UsageStats;
  readonly containers: readonly ContainerStats[];
}

export interface StatsSummary {
  readonly node: { readonly startTime: string; readonly usage: UsageStats };
  readonly pods: readonly PodStats[];
}

export interface StatsProvider {
  /** A usage snapshot of the node and its running pods. Read-only; the result is Tether's. */
  getStatsSummary(signal?: AbortSignal): Promise<StatsSummary>;
}

/** A terminal's size in character cells, as `kubectl exec -t` reports it on resize. */
export interface TerminalSize {
  readonly width: number;
  readonly height: number;
}

/**
 * The streams of one exec or attach session, as the kubelet API hands them to a provider
 * (virtual-kubelet's `AttachIO`, made async). Absent streams were not requested by the client.
 * - `stdin` yields the client's input and ends when the client closes it (or goes away);
 * - `stdout`/`stderr` write one chunk each and resolve when the chunk has been handed to the
 *   client's connection (backpressure), rejecting once the client has gone;
 * - with `tty`, stderr is merged into stdout by the client's terminal and `resize` yields each new
 *   terminal size (the first one right after the session starts).
 */
export interface ContainerStreams {
  readonly stdin?: AsyncIterable<Buffer>;
  readonly stdout?: (chunk: string | Buffer) => Promise<void>;
  readonly stderr?: (chunk: string | Buffer) => Promise<void>;
  readonly tty: boolean;
  readonly resize?: AsyncIterable<TerminalSize>;
}

/** The container an exec or attach is for. */
export interface ContainerRef {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

export interface ExecProvider {
  /**
   * Runs `command` in the container and resolves with its exit code once it has ended and its
   * output has been written. Rejects before any output when the pod is unknown (`notFound`) or
   * the container cannot run commands (`invalidInput`: no such container, not running); the
   * kubelet API answers those as HTTP errors or as a Failure Status on the error channel. When
   * `signal` aborts (the client went away, the stream timed out) the command is stopped and the
   * promise settles soon after. A command that is not found is exit code 127, not a rejection.
   */
  runInContainer(target: ContainerRef, command: readonly string[], streams: ContainerStreams, signal?: AbortSignal): Promise<number>;
}

export interface AttachProvider {
  /**
   * Attaches to the container's main process: its output from now on goes to `stdout`/`stderr`
   * and `stdin` goes to it (if it reads stdin). Resolves with the process's exit code when it
   * ends, or with undefined when the attach ends first (`signal` aborted). Rejects like
   * `runInContainer` when there is nothing to attach to.
   */
  attachToContainer(target: ContainerRef, streams: ContainerStreams, signal?: AbortSignal): Promise<number | undefined>;
}

/**
 * One forwarded connection to a port of a pod (virtual-kubelet's `PortForward`): the bytes the
 * client sends arrive on `input` (ending when the client half-closes), the pod's answer is written
 * with `write`. Resolves when the pod side has closed; rejects `notFound` for an unknown pod and
 * `invalidInput` for a port nothing listens on.
 */
export interface PortForwardProvider {
  portForward(namespace: string, podName: string, port: number, connection: PortConnection, signal?: AbortSignal): Promise<void>;
}

/** One forwarded TCP connection as a provider sees it: the client's bytes, and a writer back. */
export interface PortConnection {
  readonly input: AsyncIterable<Buffer>;
  readonly write: (chunk: Buffer) => Promise<void>;
}

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
  /** Lets writes through again (this replica holds the lock again). */
  openWrites(): void;
}

/**
 * Optional: long-lived parts of a provider that are not actors (the Kubernetes provider's Service
 * reflector per namespace), shown read-only in the live actor tree under their virtual node.
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

/** "namespace/name", the key Tether uses for a pod everywhere. */
export function podKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** The namespace/name/uid of a pod, with the defaults the API server would have applied. */
export function podIdentity(pod: Pod): { namespace: string; name: string; uid: string | undefined } {
  return {
    namespace: pod.metadata?.namespace ?? 'default',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid,
  };
}
