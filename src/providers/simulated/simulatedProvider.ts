/**
 * An in-memory provider that behaves like a small real node, for tests, the harness and
 * benchmarks: pods go Pending (ContainerCreating), then Running after a start latency, get an IP
 * from the pod CIDR, run their containers' commands in the built-in shell (exit, restart, back
 * off; a container without a command is a server writing synthetic logs), and stop within their
 * grace period when deleted.
 * Failures are injected through `faults` (see simulatedFaults.ts).
 *
 * The pods and their lifecycle are simulatedPods.ts; logs, exec, attach and port-forward are
 * simulatedSessions.ts. Status is pushed through notifyPods, always asynchronously (a microtask
 * after the change), in order. Every pod handed out is a copy; pods handed in are owned (not copied).
 */
import type { Clock } from '../../lib/clock.js';
import { systemClock } from '../../adapters/clock.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../../lib/lifecycle.js';
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { deepCopy, deepCopyPod, deepCopyPodsYielding } from '../deepCopy.js';
import { invalidInput, notFound, transient } from '../errors.js';
import type {
  AttachProvider,
  ContainerLogOptions,
  ContainerRef,
  ContainerStreams,
  ExecProvider,
  InPlaceUpdate,
  InPlaceUpdateProvider,
  LifecycleHookName,
  LifecycleHookProvider,
  LogsProvider,
  PortConnection,
  PortForwardProvider,
  NodeResources,
  PodNotification,
  PodNotificationCallback,
  Provider,
  ProviderNodeInfo,
  StatsProvider,
  StatsSummary,
} from '../provider.js';
import { podKey } from '../../lib/podIdentity.js';
import { podIdentity } from '../provider.js';
import { podMarksOf, type PodMarks } from '../podMarks.js';
import { SimulatedFaults, type SimulatedFaultOptions } from './faults.js';
import { simulatedStats } from './stats.js';
import type { ConfigSource } from './configSource.js';
import { SimulatedPods, type SimPod } from './simulatedPods.js';
import { SimulatedSessions } from './simulatedSessions.js';
import type { ImageCommands } from './imageCommands.js';
import type { ShellRunner } from './containerRuntime.js';
import { definedOnly } from '../../lib/defaults.js';
import type { PodEventSink } from '../registration.js';

export interface SimulatedProviderOptions {
  readonly clock?: Clock;
  readonly hostIP?: string;
  /** Default 10.244.0.0/16. */
  readonly podCIDR?: string;
  /** Pending → Running. Default 500 ms. */
  readonly startLatencyMs?: number | ((pod: Pod) => number);
  /** How long containers take to exit after being asked to stop. Default 100 ms. */
  readonly stopLatencyMs?: number | ((pod: Pod) => number);
  /** For restartPolicy Never/OnFailure: containers exit 0 this long after Running. Default: never. */
  readonly exitAfterMs?: (pod: Pod) => number | undefined;
  /** One synthetic log line per container every this many ms. Default 1000. */
  readonly logIntervalMs?: number;
  /** Default cpu 20, memory 100Gi, pods 10000 (allocatable = capacity). */
  readonly resources?: NodeResources;
  readonly nodeInfo?: Partial<ProviderNodeInfo>;
  readonly faults?: SimulatedFaultOptions;
  /**
   * Where exec finds the ConfigMaps and Secrets the pods name (env, envFrom, volumes). Default:
   * none exist, so only optional references and literal values resolve.
   */
  readonly configSource?: ConfigSource;
  /**
   * Image → the command a container without `command`/`args` runs (imageCommands.ts), over the
   * built-in table. An image in neither runs as a long-running server.
   */
  readonly imageCommands?: ImageCommands;
  /** Runs a container's shell program (tests); default the built-in shell. */
  readonly runShell?: ShellRunner;
  /** Where the kubelet's Events about the pods' containers go (probes' `Unhealthy`, `Killing`): the node's host EventRecorder. */
  readonly podEvents?: PodEventSink;
  /**
   * The changes of a running pod this node applies in place, as a kubelet (inPlaceUpdates.ts):
   * `resize`, `ephemeralContainers`. Default none: the node's Tether answers them as a kubelet
   * that cannot (docs/kubelet-api.md).
   */
  readonly inPlaceUpdates?: readonly InPlaceUpdate[];
  /** A resize that fits is actuated this long after it was allocated. Default 100 ms. */
  readonly resizeLatencyMs?: number;
}

export const DEFAULT_RESOURCES: NodeResources = {
  capacity: { cpu: '20', memory: '100Gi', pods: '10000' },
  allocatable: { cpu: '20', memory: '100Gi', pods: '10000' },
};

export class SimulatedProvider implements Provider, LogsProvider, StatsProvider, ExecProvider, AttachProvider, PortForwardProvider, LifecycleHookProvider, InPlaceUpdateProvider, Lifecycle {
  readonly name = 'simulated';
  /** Failure injection; change it at any time. */
  readonly faults: SimulatedFaults;
  private readonly clock: Clock;
  private readonly bootTime: number;
  private resources: NodeResources;
  private readonly pods: SimulatedPods;
  private readonly sessions: SimulatedSessions;
  private callback: PodNotificationCallback | undefined;

  private readonly life: LifecycleControl;
  /** Ready at once: a simulated node has nothing to connect to. */
  readonly ready: Promise<void>;
  readonly done: Promise<void>;

  constructor(private readonly options: SimulatedProviderOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.life = new LifecycleControl({ clock: this.clock, release: () => this.pods.cancelTimers() });
    this.life.markReady();
    this.ready = this.life.ready;
    this.done = this.life.done;
    this.pods = new SimulatedPods({
      clock: this.clock,
      hostIP: options.hostIP ?? '10.0.0.10',
      podCIDR: options.podCIDR ?? '10.244.0.0/16',
      ...definedOnly({
        startLatencyMs: options.startLatencyMs, stopLatencyMs: options.stopLatencyMs, exitAfterMs: options.exitAfterMs,
        imageCommands: options.imageCommands, configSource: options.configSource, runShell: options.runShell, podEvents: options.podEvents,
        resizeLatencyMs: options.resizeLatencyMs,
      }),
      inPlaceUpdates: new Set(options.inPlaceUpdates ?? []),
      allocatable: () => this.resources.allocatable,
      // Exec probes take the path `kubectl exec` takes: the container's env and files, now.
      runExec: (record, container, command, signal) => this.sessions.runProbe(record, container, command, signal),
      notify: (notification) => this.deliver(notification),
    });
    this.resources = deepCopy(options.resources ?? DEFAULT_RESOURCES);
    this.faults = new SimulatedFaults(options.faults);
    this.sessions = new SimulatedSessions({
      pods: this.pods, faults: this.faults, clock: this.clock, logIntervalMs: options.logIntervalMs ?? 1000,
      ...definedOnly({ configSource: options.configSource }),
    });
    this.bootTime = this.clock.now();
  }

  /** Pods the provider holds, including ended ones not yet deleted. */
  get podCount(): number {
    return this.pods.size;
  }

  /** Cancels every pod's timers; pods stay where they are. */
  stop(options?: StopOptions): Promise<StopOutcome> {
    return this.life.stop(options);
  }

  /** The running-pod changes this node applies itself (InPlaceUpdateProvider), as it was built. */
  inPlaceUpdates(): readonly InPlaceUpdate[] {
    return [...(this.options.inPlaceUpdates ?? [])];
  }

  setResources(resources: NodeResources): void {
    this.resources = deepCopy(resources);
  }

  notifyPods(callback: PodNotificationCallback): void {
    this.callback = callback;
  }

  async createPod(pod: Pod, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const { namespace, name, uid } = podIdentity(pod);
    if (name === '') throw invalidInput('pod has no name');
    const key = podKey(namespace, name);
    this.faults.takeCrash(key, 'createPod');
    const existing = this.pods.get(key);
    if (existing !== undefined) {
      if (existing.pod.metadata?.uid === uid) return;
      throw transient(`pod ${key} with another uid is still present`);
    }
    this.faults.checkCreate(key, pod);
    const maxPods = Number(this.resources.allocatable['pods'] ?? Number.POSITIVE_INFINITY);
    if (this.pods.size >= maxPods) throw transient(`node is full: ${this.pods.size} of ${maxPods} pods`);
    this.pods.start(key, pod);
  }

  async updatePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.pods.update(this.require(pod, 'updatePod'), pod);
  }

  async deletePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.pods.delete(this.require(pod, 'deletePod'), pod);
  }

  async getPod(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined> {
    signal?.throwIfAborted();
    const key = podKey(namespace, name);
    this.faults.takeCrash(key, 'getPod');
    const record = this.pods.get(key);
    return record === undefined ? undefined : deepCopyPod(record.pod);
  }

  async getPodStatus(namespace: string, name: string, signal?: AbortSignal): Promise<PodStatus | undefined> {
    return (await this.getPod(namespace, name, signal))?.status;
  }

  async listPods(signal?: AbortSignal): Promise<Pod[]> {
    signal?.throwIfAborted();
    return deepCopyPodsYielding(this.pods.values().map((r) => r.pod));
  }

  /**
   * The light listing for the orphan sweep (podMarks.ts): no pod is copied, and a long list is
   * made in slices that yield to the event loop (10k pods in one go is ~20–40 ms of loop).
   */
  async listPodMarks(signal?: AbortSignal, slice = 2_000): Promise<PodMarks[]> {
    signal?.throwIfAborted();
    const records = this.pods.values();
    const out: PodMarks[] = [];
    for (let i = 0; i < records.length; i += slice) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const record of records.slice(i, i + slice)) out.push(podMarksOf(record.pod));
    }
    return out;
  }

  /**
   * Forgets a pod as if the backend lost it: no terminal status. With `notify` (default) the
   * loss is reported as `gone` (reason 'NotFound'); without, only polling would notice.
   */
  losePod(namespace: string, name: string, options: { notify?: boolean } = {}): void {
    const record = this.pods.lose(namespace, name);
    if (record === undefined) return;
    if (options.notify === false) return;
    const { uid } = podIdentity(record.pod);
    this.deliver({ type: 'gone', namespace, name, uid, reason: 'NotFound', message: 'The simulated provider lost the pod' });
  }

  async ping(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.faults.checkPing();
  }

  async capacity(): Promise<NodeResources> {
    return deepCopy(this.resources);
  }

  async nodeInfo(): Promise<ProviderNodeInfo> {
    return {
      operatingSystem: 'linux',
      architecture: 'amd64',
      kernelVersion: '6.8.0-simulated',
      osImage: 'Tether simulated node',
      containerRuntimeVersion: 'simulated://1.0.0',
      ...this.options.nodeInfo,
    };
  }

  getContainerLogs(namespace: string, podName: string, containerName: string, options: ContainerLogOptions, signal?: AbortSignal): Promise<AsyncIterable<string>> {
    return this.sessions.getContainerLogs(namespace, podName, containerName, options, signal);
  }

  /** Runs a command of the built-in set (builtinShell.ts); see simulatedSessions.ts. */
  runInContainer(target: ContainerRef, command: readonly string[], streams: ContainerStreams, signal?: AbortSignal): Promise<number> {
    return this.sessions.runInContainer(target, command, streams, signal);
  }

  /** The main process's synthetic log lines from now on; see simulatedSessions.ts. */
  attachToContainer(target: ContainerRef, streams: ContainerStreams, signal?: AbortSignal): Promise<number | undefined> {
    return this.sessions.attachToContainer(target, streams, signal);
  }

  /** A small HTTP responder on a declared `containerPort`; see simulatedSessions.ts. */
  runLifecycleHook(namespace: string, podName: string, container: string, hook: LifecycleHookName, signal?: AbortSignal): Promise<void> {
    return this.sessions.runLifecycleHook(namespace, podName, container, hook, signal);
  }

  /** Stops one container as the kubelet kills it after a failed postStart hook; see simulatedSessions.ts. */
  killContainer(namespace: string, podName: string, container: string, gracePeriodSeconds: number, signal?: AbortSignal): Promise<void> {
    return this.sessions.killContainer(namespace, podName, container, gracePeriodSeconds, signal);
  }

  /** A sidecar's postStart hook is over: what follows it starts; see simulatedSessions.ts. */
  postStartDone(namespace: string, podName: string, container: string, containerID: string, signal?: AbortSignal): Promise<void> {
    return this.sessions.postStartDone(namespace, podName, container, containerID, signal);
  }

  portForward(namespace: string, podName: string, port: number, connection: PortConnection, signal?: AbortSignal): Promise<void> {
    return this.sessions.portForward(namespace, podName, port, connection, signal);
  }

  async getStatsSummary(): Promise<StatsSummary> {
    return simulatedStats(this.clock.now(), this.bootTime, this.pods.values().filter((r) => r.stage === 'running' || r.stage === 'stopping').map((r) => r.pod));
  }

  private require(pod: Pod, operation: string): SimPod {
    const { namespace, name, uid } = podIdentity(pod);
    const key = podKey(namespace, name);
    this.faults.takeCrash(key, operation);
    const record = this.pods.get(key);
    if (record === undefined || (uid !== undefined && record.pod.metadata?.uid !== uid)) throw notFound(`pod ${key} not found`);
    return record;
  }

  /** Delivers after the current call returns, in order. */
  private deliver(notification: PodNotification): void {
    queueMicrotask(() => {
      try {
        this.callback?.(notification);
      } catch {
        // A throwing callback is Tether's bug; the simulation goes on.
      }
    });
  }
}
