/**
 * An in-memory provider that behaves like a small real node, for tests, the harness and
 * benchmarks: pods go Pending (ContainerCreating), then Running after a start latency, get an IP
 * from the pod CIDR, stop within their grace period when deleted, and write synthetic logs.
 * Failures are injected through `faults` (see simulatedFaults.ts).
 *
 * Status is pushed through notifyPods, always asynchronously (a microtask after the change), in
 * order. Every pod handed out is a copy; pods handed in are owned (not copied).
 */
import type { Clock, Timer } from '../../lib/clock.js';
import { systemClock } from '../../adapters/clock.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../../lib/lifecycle.js';
import type { ContainerStatus, Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { deepCopy, deepCopyPod, deepCopyPodsYielding } from '../deepCopy.js';
import { invalidInput, notFound, transient } from '../errors.js';
import { IpAllocator } from './ipAllocator.js';
import { terminatedStatus } from '../podStatus.js';
import { sleep } from '../../lib/clock.js';
import type {
  AttachProvider,
  ContainerLogOptions,
  ContainerRef,
  ContainerStreams,
  ExecProvider,
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
  TerminalSize,
} from '../provider.js';
import { podIdentity, podKey } from '../provider.js';
import { podMarksOf, type PodMarks } from '../podMarks.js';
import { pendingStatus, runningStatus, simulatedContainerID, simulatedImageID, type Placement } from './podLifecycle.js';
import { SimulatedFaults, type SimulatedFaultOptions } from './faults.js';
import { syntheticLogs, type LogSource } from './syntheticLogs.js';
import { simulatedStats } from './stats.js';
import { BuiltinShell } from './builtinShell.js';
import { emptyConfigSource, type ConfigSource } from './configSource.js';
import { containerView, MissingReference } from './containerView.js';
import { servePortConnection } from './portResponder.js';

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
}

type Stage = 'starting' | 'running' | 'stopping' | 'ended';

interface SimPod {
  readonly key: string;
  /** Spec and metadata as last given; status as simulated. */
  pod: Pod;
  stage: Stage;
  readonly placement: Placement;
  /** The one pending lifecycle timer: start, exit, or stop. */
  timer: Timer | undefined;
  /** While stopping: when the grace period runs out, and when the containers will exit. */
  killAt: number;
  exitAt: number;
  /** Current instance start per container, and the previous instance (for logs --previous). */
  readonly starts: Map<string, number>;
  readonly previous: Map<string, { startedAt: number; endedAt: number }>;
  endedAt: number | undefined;
}

export const DEFAULT_RESOURCES: NodeResources = {
  capacity: { cpu: '20', memory: '100Gi', pods: '10000' },
  allocatable: { cpu: '20', memory: '100Gi', pods: '10000' },
};

const DEFAULT_GRACE_SECONDS = 30;

function latency(value: number | ((pod: Pod) => number) | undefined, pod: Pod, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : value(pod);
}

export class SimulatedProvider implements Provider, LogsProvider, StatsProvider, ExecProvider, AttachProvider, PortForwardProvider, Lifecycle {
  readonly name = 'simulated';
  /** Failure injection; change it at any time. */
  readonly faults: SimulatedFaults;
  private readonly clock: Clock;
  private readonly ips: IpAllocator;
  private readonly hostIP: string;
  private readonly logIntervalMs: number;
  private readonly bootTime: number;
  private resources: NodeResources;
  private readonly pods = new Map<string, SimPod>();
  private callback: PodNotificationCallback | undefined;

  private readonly life: LifecycleControl;
  /** Ready at once: a simulated node has nothing to connect to. */
  readonly ready: Promise<void>;
  readonly done: Promise<void>;

  constructor(private readonly options: SimulatedProviderOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.life = new LifecycleControl({ clock: this.clock, release: () => this.cancelTimers() });
    this.life.markReady();
    this.ready = this.life.ready;
    this.done = this.life.done;
    this.ips = new IpAllocator(options.podCIDR ?? '10.244.0.0/16');
    this.hostIP = options.hostIP ?? '10.0.0.10';
    this.logIntervalMs = options.logIntervalMs ?? 1000;
    this.resources = deepCopy(options.resources ?? DEFAULT_RESOURCES);
    this.faults = new SimulatedFaults(options.faults);
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

  private cancelTimers(): void {
    for (const record of this.pods.values()) record.timer?.cancel();
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
    const now = this.clock.now();
    const placement: Placement = { hostIP: this.hostIP, podIP: this.ips.allocate(), startTime: new Date(now) };
    const record: SimPod = {
      key, pod, stage: 'starting', placement, timer: undefined, killAt: 0, exitAt: 0,
      starts: new Map(), previous: new Map(), endedAt: undefined,
    };
    record.pod.metadata = { ...pod.metadata, namespace };
    record.pod.status = pendingStatus(pod, { hostIP: placement.hostIP, startTime: placement.startTime }, pod.status, new Date(now));
    this.pods.set(key, record);
    this.emit(record);
    record.timer = this.clock.setTimer(latency(this.options.startLatencyMs, pod, 500), () => this.started(record));
  }

  async updatePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const record = this.require(pod, 'updatePod');
    const before = record.pod.spec?.containers ?? [];
    record.pod = { ...pod, metadata: { ...pod.metadata, namespace: podIdentity(pod).namespace }, status: record.pod.status };
    if (record.stage !== 'running') return;
    const changed = (pod.spec?.containers ?? []).filter((c) => before.find((b) => b.name === c.name)?.image !== c.image);
    if (changed.length === 0) return;
    const now = this.clock.now();
    for (const c of changed) this.restartContainer(record, c.name, c.image ?? '', now);
    this.emit(record);
  }

  async deletePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const record = this.require(pod, 'deletePod');
    const grace = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds
      ?? record.pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
    record.pod.metadata = {
      ...record.pod.metadata,
      deletionGracePeriodSeconds: grace,
      deletionTimestamp: pod.metadata?.deletionTimestamp ?? new Date(this.clock.now() + grace * 1000),
    };
    const now = this.clock.now();
    switch (record.stage) {
      case 'ended':
        this.emit(record); // the terminal status again: deletePod always ends in one
        this.remove(record);
        return;
      case 'starting':
        record.timer?.cancel();
        this.end(record, 137, 'Error');
        this.remove(record);
        return;
      case 'running':
        record.stage = 'stopping';
        record.killAt = now + grace * 1000;
        record.exitAt = now + latency(this.options.stopLatencyMs, record.pod, 100);
        this.scheduleStop(record);
        return;
      case 'stopping':
        if (now + grace * 1000 < record.killAt) {
          record.killAt = now + grace * 1000;
          this.scheduleStop(record);
        }
        return;
    }
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
    return deepCopyPodsYielding([...this.pods.values()].map((r) => r.pod));
  }

  /**
   * The light listing for the orphan sweep (podMarks.ts): no pod is copied, and a long list is
   * made in slices that yield to the event loop (10k pods in one go is ~20–40 ms of loop).
   */
  async listPodMarks(signal?: AbortSignal, slice = 2_000): Promise<PodMarks[]> {
    signal?.throwIfAborted();
    const records = [...this.pods.values()];
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
    const record = this.pods.get(podKey(namespace, name));
    if (record === undefined) return;
    record.timer?.cancel();
    this.remove(record);
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

  async getContainerLogs(
    namespace: string,
    podName: string,
    containerName: string,
    options: ContainerLogOptions,
    signal?: AbortSignal,
  ): Promise<AsyncIterable<string>> {
    signal?.throwIfAborted();
    const key = podKey(namespace, podName);
    this.faults.takeCrash(key, 'getContainerLogs');
    const record = this.pods.get(key);
    if (record === undefined) throw notFound(`pod ${key} not found`);
    const isInit = (record.pod.spec?.initContainers ?? []).some((c) => c.name === containerName);
    if (!isInit && !(record.pod.spec?.containers ?? []).some((c) => c.name === containerName)) {
      throw invalidInput(`container ${containerName} is not valid for pod ${podName}`);
    }
    if (record.stage === 'starting') {
      throw invalidInput(`container "${containerName}" in pod "${podName}" is waiting to start: ContainerCreating`);
    }
    const label = `${podName}/${containerName}`;
    const source = this.logSource(record, containerName, label, isInit, options.previous === true);
    if (source === undefined) throw invalidInput(`previous terminated container "${containerName}" in pod "${podName}" not found`);
    const current = (): LogSource | undefined =>
      this.pods.get(key) === record ? this.logSource(record, containerName, label, isInit, options.previous === true) : undefined;
    return syntheticLogs({ clock: this.clock, intervalMs: this.logIntervalMs, options, source: current, ...(signal ? { signal } : {}) });
  }

  /**
   * Runs a command of the built-in set (builtinShell.ts) against the container's current env and
   * volume files. Rejects `notFound` for an unknown pod, `invalidInput` for an unknown or not
   * running container or a missing mandatory ConfigMap/Secret.
   */
  async runInContainer(target: ContainerRef, command: readonly string[], streams: ContainerStreams, signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    const { namespace, pod: podName, container: containerName } = target;
    const record = this.runningContainer(namespace, podName, containerName, 'runInContainer');
    let view;
    try {
      view = await containerView(deepCopyPod(record.pod), containerName, this.options.configSource ?? emptyConfigSource, signal);
    } catch (error) {
      if (error instanceof MissingReference) throw invalidInput(error.message);
      throw transient(`reading the ConfigMaps and Secrets of pod ${podKey(namespace, podName)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // A terminal turns "\n" into "\r\n" (onlcr); without one the bytes go as they are.
    const out = (write: ContainerStreams['stdout']) => (chunk: string): Promise<void> =>
      write ? write(streams.tty ? chunk.replace(/\r?\n/g, '\r\n') : chunk) : Promise.resolve();
    let size: TerminalSize | undefined;
    if (streams.resize) void (async () => {
      for await (const next of streams.resize ?? []) size = next;
    })().catch(() => undefined);
    const shell = new BuiltinShell({
      view,
      terminalSize: () => size,
      ...(streams.stdin ? { stdin: streams.stdin } : {}),
      stdout: out(streams.stdout),
      // With a terminal there is one output: stderr goes to it too.
      stderr: out(streams.tty ? streams.stdout : streams.stderr),
      tty: streams.tty,
      sleep: (ms, s) => sleep(this.clock, ms, s),
      ...(signal ? { signal } : {}),
    });
    return shell.run(command);
  }

  /**
   * Attaches to the container's main process: its synthetic log lines from now on, until the
   * container stops (resolving with its exit code 0) or `signal` aborts. The main process does not
   * read stdin, so stdin is left unread, as a real process leaves it: the host side stops reading
   * its client once its stdin buffer is full, rather than draining the client into memory.
   */
  async attachToContainer(target: ContainerRef, streams: ContainerStreams, signal?: AbortSignal): Promise<number | undefined> {
    signal?.throwIfAborted();
    const { namespace, pod: podName, container: containerName } = target;
    this.runningContainer(namespace, podName, containerName, 'attachToContainer');
    const logs = await this.getContainerLogs(namespace, podName, containerName, { follow: true, tailLines: 0 }, signal);
    for await (const line of logs) await streams.stdout?.(streams.tty ? line.replace(/\n/g, '\r\n') : line);
    return signal?.aborted ? undefined : 0;
  }

  /**
   * One forwarded connection to a declared `containerPort`: a small HTTP server answers, naming
   * the pod, container and port (portResponder.ts). Rejects `invalidInput` for a port no
   * container declares (nothing listens there).
   */
  async portForward(namespace: string, podName: string, port: number, connection: PortConnection, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const key = podKey(namespace, podName);
    this.faults.takeCrash(key, 'portForward');
    const record = this.pods.get(key);
    if (record === undefined) throw notFound(`pod ${key} not found`);
    if (record.stage !== 'running') throw invalidInput(`pod ${key} is not running`);
    const container = (record.pod.spec?.containers ?? []).find((c) => (c.ports ?? []).some((p) => p.containerPort === port));
    if (!container) throw invalidInput(`nothing listens on port ${port} of pod ${key}: no container declares it`);
    await servePortConnection({ namespace, pod: podName, container: container.name, port }, connection, signal);
  }

  private runningContainer(namespace: string, podName: string, containerName: string, operation: string): SimPod {
    const key = podKey(namespace, podName);
    this.faults.takeCrash(key, operation);
    const record = this.pods.get(key);
    if (record === undefined) throw notFound(`pod ${key} not found`);
    if (!(record.pod.spec?.containers ?? []).some((c) => c.name === containerName)) {
      throw invalidInput(`container ${containerName} is not valid for pod ${podName}`);
    }
    if (record.stage !== 'running') {
      throw invalidInput(`unable to upgrade connection: container not found ("${containerName}")${record.stage === 'starting' ? ': ContainerCreating' : ''}`);
    }
    return record;
  }

  async getStatsSummary(): Promise<StatsSummary> {
    return simulatedStats(this.clock.now(), this.bootTime, [...this.pods.values()].filter((r) => r.stage === 'running' || r.stage === 'stopping').map((r) => r.pod));
  }

  private logSource(record: SimPod, container: string, label: string, isInit: boolean, previous: boolean): LogSource | undefined {
    const start = record.placement.startTime.getTime();
    const current = record.starts.get(container);
    if (previous) {
      const before = record.previous.get(container);
      return before === undefined ? undefined : { label, ...before };
    }
    if (isInit) return { label, startedAt: start, endedAt: start };
    return current === undefined ? undefined : { label, startedAt: current, endedAt: record.endedAt };
  }

  private require(pod: Pod, operation: string): SimPod {
    const { namespace, name, uid } = podIdentity(pod);
    const key = podKey(namespace, name);
    this.faults.takeCrash(key, operation);
    const record = this.pods.get(key);
    if (record === undefined || (uid !== undefined && record.pod.metadata?.uid !== uid)) throw notFound(`pod ${key} not found`);
    return record;
  }

  private started(record: SimPod): void {
    const now = this.clock.now();
    record.timer = undefined;
    record.stage = 'running';
    record.pod.status = runningStatus(record.pod, record.placement, record.pod.status, new Date(now));
    for (const c of record.pod.spec?.containers ?? []) record.starts.set(c.name, now);
    this.emit(record);
    const restartPolicy = record.pod.spec?.restartPolicy ?? 'Always';
    const exitAfter = restartPolicy === 'Always' ? undefined : this.options.exitAfterMs?.(record.pod);
    if (exitAfter !== undefined) {
      record.timer = this.clock.setTimer(exitAfter, () => {
        record.timer = undefined;
        this.end(record, 0, 'Completed');
      });
    }
  }

  private scheduleStop(record: SimPod): void {
    record.timer?.cancel();
    const killed = record.exitAt > record.killAt;
    const at = killed ? record.killAt : record.exitAt;
    record.timer = this.clock.setTimer(at - this.clock.now(), () => {
      record.timer = undefined;
      this.end(record, killed ? 137 : 0, killed ? 'Error' : 'Completed');
      this.remove(record);
    });
  }

  /** Containers stop: terminal status, notified; the IP goes back to the pool. */
  private end(record: SimPod, exitCode: number, reason: string): void {
    const now = this.clock.now();
    record.stage = 'ended';
    record.endedAt = now;
    record.pod.status = terminatedStatus(record.pod, record.pod.status, { now: new Date(now), exitCode, reason });
    this.ips.release(record.placement.podIP ?? '');
    this.emit(record);
  }

  /** Forgets the pod, after its terminal status has been notified (deletion) or without one (loss). */
  private remove(record: SimPod): void {
    if (this.pods.get(record.key) !== record) return;
    this.pods.delete(record.key);
    if (record.stage !== 'ended') this.ips.release(record.placement.podIP ?? '');
  }

  private restartContainer(record: SimPod, name: string, image: string, now: number): void {
    const statuses = record.pod.status?.containerStatuses ?? [];
    const index = statuses.findIndex((s) => s.name === name);
    const old = statuses[index];
    if (old === undefined) return;
    const startedAt = record.starts.get(name) ?? now;
    record.previous.set(name, { startedAt, endedAt: now });
    record.starts.set(name, now);
    const restartCount = old.restartCount + 1;
    const next: ContainerStatus = {
      ...old,
      image,
      imageID: simulatedImageID(image),
      containerID: simulatedContainerID(record.pod.metadata?.uid ?? '', name, restartCount),
      restartCount,
      lastState: { terminated: { exitCode: 0, reason: 'Completed', startedAt: new Date(startedAt), finishedAt: new Date(now), ...(old.containerID ? { containerID: old.containerID } : {}) } },
      state: { running: { startedAt: new Date(now) } },
    };
    statuses[index] = next;
  }

  private emit(record: SimPod): void {
    this.deliver({ type: 'status', pod: deepCopyPod(record.pod) });
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
