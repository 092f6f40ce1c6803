/**
 * The optional capabilities behind the kubelet API's container sessions and stats: logs
 * (`kubectl logs`), `/stats/summary`, exec, attach and port-forward (virtual-kubelet's
 * `AttachIO` and `PortForward`, made async). A provider implements those it can; Tether detects
 * them at run time (`isLogsProvider` and friends, provider.ts).
 */
import type { PodIdentity } from '../lib/podIdentity.js';

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
  readonly podRef: PodIdentity;
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

