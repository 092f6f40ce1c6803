/**
 * The simulated node's pods and their lifecycle: starting (Pending, ContainerCreating) → running
 * after the start latency, its containers run by podContainers.ts (commands, exits, restarts,
 * back-off) → stopping within the grace period when deleted → ended (terminal status, or a
 * terminal phase reached on its own). A pod waits for its start on one timer; its IP comes from
 * the pod CIDR and goes back when its containers stop. Every change is handed to `notify` as a
 * copy of the pod.
 */
import type { Clock, Timer } from '../../lib/clock.js';
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { deepCopyPod } from '../deepCopy.js';
import { isTerminalPhase, terminatedStatus } from '../podStatus.js';
import { podKey } from '../../lib/podIdentity.js';
import { podIdentity, type PodNotification } from '../provider.js';
import { IpAllocator } from './ipAllocator.js';
import { pendingStatus, type Placement } from './podLifecycle.js';
import { PodContainers } from './podContainers.js';
import type { PodContainersOptions } from './podContainersOptions.js';
import type { ShellRunner } from './containerRuntime.js';
import type { ConfigSource } from './configSource.js';
import { startLatencyOf } from './dataFaults.js';
import { DEFAULT_IMAGE_COMMANDS, type ImageCommands } from './imageCommands.js';
import { definedOnly, when } from '../../lib/defaults.js';
import type { PodEventSink } from '../registration.js';
import type { ExecResult } from './probes/containerProbes.js';
import type { InPlaceUpdate, ResourceList } from '../provider.js';
import { actuated, afterVerdict, allocatedOf, initialInPlace, inPlaceStatus, resizeVerdict, resourcesOf, withdrawn, withEphemeral, type InPlaceState } from './inPlaceUpdates.js';

type Stage = 'starting' | 'running' | 'stopping' | 'ended';

export interface SimPod {
  readonly key: string;
  /** Spec and metadata as last given; status as simulated. */
  pod: Pod;
  stage: Stage;
  readonly placement: Placement;
  /** The start timer, while starting. */
  timer: Timer | undefined;
  /** While stopping: when the grace period runs out. */
  killAt: number;
  /** Once running: its containers. */
  containers: PodContainers<SimPod> | undefined;
  endedAt: number | undefined;
  /** With in-place updates on (inPlaceUpdates.ts): the allocation, resize conditions and ephemeral containers; its actuation timer. */
  inPlace?: InPlaceState;
  resizeTimer?: Timer;
}

export interface SimulatedPodsOptions {
  readonly clock: Clock;
  readonly hostIP: string;
  readonly podCIDR: string;
  readonly startLatencyMs?: number | ((pod: Pod) => number);
  readonly stopLatencyMs?: number | ((pod: Pod) => number);
  readonly exitAfterMs?: (pod: Pod) => number | undefined;
  /** Image → default command (imageCommands.ts), over the built-in table. */
  readonly imageCommands?: ImageCommands;
  /** Where a command's ConfigMaps and Secrets come from. Without one, references to them are left out. */
  readonly configSource?: ConfigSource;
  /** Runs a container's shell program; default the built-in shell. */
  readonly runShell?: ShellRunner;
  /** An exec probe's command in a running container of the pod (the exec sessions' path). */
  readonly runExec?: (pod: SimPod, container: string, command: readonly string[], signal: AbortSignal) => Promise<ExecResult>;
  /** The kubelet's Events about the pods' containers (probes' `Unhealthy`, `Killing`). */
  readonly podEvents?: PodEventSink;
  /** Told of every change, synchronously: the caller delivers it later. */
  readonly notify: (notification: PodNotification) => void;
  /** The changes of a running pod applied in place (inPlaceUpdates.ts); default none. */
  readonly inPlaceUpdates?: ReadonlySet<InPlaceUpdate>;
  /** The node's allocatable, which a resize is checked against. */
  readonly allocatable?: () => ResourceList;
  /** A resize that fits is actuated this long after it was allocated. Default 100 ms. */
  readonly resizeLatencyMs?: number;
}

const DEFAULT_GRACE_SECONDS = 30;

function latency(value: number | ((pod: Pod) => number) | undefined, pod: Pod, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : value(pod);
}

export class SimulatedPods {
  private readonly records = new Map<string, SimPod>();
  private readonly ips: IpAllocator;
  private readonly clock: Clock;
  private readonly imageCommands: ImageCommands;
  private readonly inPlaceUpdates: ReadonlySet<InPlaceUpdate>;
  /** What every pod's containers share: one object for the node, each call naming its pod. */
  private readonly containerOptions: PodContainersOptions<SimPod>;

  constructor(private readonly options: SimulatedPodsOptions) {
    this.clock = options.clock;
    this.ips = new IpAllocator(options.podCIDR);
    this.imageCommands = { ...DEFAULT_IMAGE_COMMANDS, ...options.imageCommands };
    this.inPlaceUpdates = options.inPlaceUpdates ?? new Set();
    this.containerOptions = {
      clock: this.clock,
      imageCommands: this.imageCommands,
      ...definedOnly({ configSource: options.configSource, runShell: options.runShell, exitAfterMs: options.exitAfterMs }),
      runExec: (record, container, command, _timeoutMs, signal) => options.runExec?.(record, container, command, signal) ?? Promise.reject(new Error('exec probes are not run on this node')),
      event: (record, type, reason, note, container) => options.podEvents?.(podIdentity(record.pod), type, reason, note, container),
      changed: (record, containers) => this.containersChanged(record, containers),
    };
  }

  get size(): number {
    return this.records.size;
  }

  get(key: string): SimPod | undefined {
    return this.records.get(key);
  }

  values(): SimPod[] {
    return [...this.records.values()];
  }

  cancelTimers(): void {
    for (const record of this.records.values()) {
      record.timer?.cancel();
      record.containers?.cancel();
      record.resizeTimer?.cancel();
    }
  }

  /** A new pod, Pending at once, Running after the start latency. The pod is owned, not copied. */
  start(key: string, pod: Pod): void {
    const { namespace } = podIdentity(pod);
    const now = this.clock.now();
    const placement: Placement = { hostIP: this.options.hostIP, podIP: this.ips.allocate(), startTime: new Date(now) };
    const record: SimPod = {
      key, pod, stage: 'starting', placement, timer: undefined, killAt: 0, containers: undefined, endedAt: undefined,
      ...when(this.inPlaceUpdates.size > 0, () => ({ inPlace: initialInPlace(pod) })),
    };
    record.pod.metadata = { ...pod.metadata, namespace };
    // One Date for the instant: the conditions' transition time is the start time (a Date is 96 bytes).
    record.pod.status = this.withInPlace(record, pendingStatus(pod, { hostIP: placement.hostIP, startTime: placement.startTime }, pod.status, placement.startTime));
    this.records.set(key, record);
    this.emit(record);
    const startIn = startLatencyOf(pod) ?? latency(this.options.startLatencyMs, pod, 500);
    record.timer = this.clock.setTimer(startIn, () => this.started(record));
  }

  /**
   * A changed spec: a running container whose image changed restarts with the new one; with
   * in-place updates, changed resources are resized and new ephemeral containers start.
   */
  update(record: SimPod, pod: Pod): void {
    const before = record.pod.spec?.containers ?? [];
    record.pod = { ...pod, metadata: { ...pod.metadata, namespace: podIdentity(pod).namespace }, status: record.pod.status };
    if (record.stage !== 'running') return;
    for (const c of pod.spec?.containers ?? []) {
      if (before.find((b) => b.name === c.name)?.image !== c.image) record.containers?.replaceImage(c.name, c.image ?? '');
    }
    if (record.inPlace) this.updateInPlace(record, record.inPlace);
  }

  private updateInPlace(record: SimPod, state: InPlaceState): void {
    const now = new Date(this.clock.now());
    let next = this.inPlaceUpdates.has('ephemeralContainers') ? withEphemeral(state, record.pod.spec, now) : state;
    if (this.inPlaceUpdates.has('resize')) {
      const desired = resourcesOf(record.pod.spec);
      const others = (resource: string): number => this.values().reduce((sum, r) => (r === record || !r.inPlace || r.stage === 'ended' ? sum : sum + allocatedOf(r.inPlace, resource)), 0);
      const verdict = resizeVerdict(next, desired, this.options.allocatable?.() ?? {}, others);
      next = withdrawn(afterVerdict(next, verdict, now, record.pod.metadata?.generation), desired, now);
      if (verdict.kind === 'fits') this.scheduleActuation(record);
      if (verdict.kind === 'Infeasible' || verdict.kind === 'Deferred') {
        const note = `Pod resize ${verdict.kind}: ${verdict.message}`;
        this.options.podEvents?.(podIdentity(record.pod), verdict.kind === 'Infeasible' ? 'Warning' : 'Normal', `Resize${verdict.kind}`, note);
      }
    }
    if (next === state) return;
    record.inPlace = next;
    record.pod.status = this.withInPlace(record, record.pod.status ?? {});
    this.emit(record);
  }

  /** The allocation reaches the containers after the resize latency (ResizeStarted, then ResizeCompleted). */
  private scheduleActuation(record: SimPod): void {
    record.resizeTimer?.cancel();
    this.options.podEvents?.(podIdentity(record.pod), 'Normal', 'ResizeStarted', 'Pod resize started');
    record.resizeTimer = this.clock.setTimer(this.options.resizeLatencyMs ?? 100, () => {
      record.resizeTimer = undefined;
      if (!record.inPlace || this.records.get(record.key) !== record || record.stage === 'ended') return;
      record.inPlace = actuated(record.inPlace, new Date(this.clock.now()));
      record.pod.status = this.withInPlace(record, record.pod.status ?? {});
      this.options.podEvents?.(podIdentity(record.pod), 'Normal', 'ResizeCompleted', 'Pod resize completed');
      this.emit(record);
    });
  }

  private withInPlace(record: SimPod, status: NonNullable<Pod['status']>): NonNullable<Pod['status']> {
    return record.inPlace ? inPlaceStatus(status, record.inPlace, record.pod, this.inPlaceUpdates) : status;
  }

  /** Graceful stop; a shorter grace period shortens a stop under way, a longer one never lengthens it. */
  delete(record: SimPod, pod: Pod): void {
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
        this.stopContainers(record);
        return;
      case 'stopping':
        if (now + grace * 1000 < record.killAt) {
          record.killAt = now + grace * 1000;
          this.stopContainers(record);
        }
        return;
    }
  }

  /** Forgets a pod without a terminal status, as if the backend lost it; the record, if there was one. */
  lose(namespace: string, name: string): SimPod | undefined {
    const record = this.records.get(podKey(namespace, name));
    if (record === undefined) return undefined;
    record.timer?.cancel();
    record.containers?.cancel();
    record.resizeTimer?.cancel();
    this.remove(record);
    return record;
  }

  private started(record: SimPod): void {
    record.timer = undefined;
    record.stage = 'running';
    const containers = new PodContainers(this.containerOptions, record);
    record.containers = containers;
    containers.start();
  }

  private stopContainers(record: SimPod): void {
    const containers = record.containers;
    if (containers === undefined) return;
    containers.stop(record.killAt, latency(this.options.stopLatencyMs, record.pod, 100));
    if (!containers.running) this.containersChanged(record, containers);
  }

  /** The containers moved: a new status; a stopped pod ends, and so does one whose phase is final. */
  private containersChanged(record: SimPod, containers: PodContainers<SimPod>): void {
    if (record.containers !== containers || this.records.get(record.key) !== record || record.stage === 'ended') return;
    const now = this.clock.now();
    const stopped = record.stage === 'stopping' && !containers.running;
    // Object.assign, not `{ ...old, ...new }`: V8 gives each object that spread makes, when the second
    // object adds keys (podIP, podIPs over the Pending status), a hidden class of its own, about
    // 300 bytes an idle pod keeps for its life (docs/benchmarks.md, the runtime at 10,000 pods).
    const status: PodStatus = this.withInPlace(record, Object.assign({}, record.pod.status, containers.status(record.placement, record.pod.status, stopped)));
    record.pod.status = status;
    if (stopped || isTerminalPhase(status.phase)) {
      containers.cancel();
      record.stage = 'ended';
      record.endedAt = now;
      this.ips.release(record.placement.podIP ?? '');
    }
    this.emit(record);
    if (stopped) this.remove(record);
  }

  /** Containers stop: terminal status, notified; the IP goes back to the pool. */
  private end(record: SimPod, exitCode: number, reason: string): void {
    const now = this.clock.now();
    record.stage = 'ended';
    record.endedAt = now;
    record.pod.status = this.withInPlace(record, terminatedStatus(record.pod, record.pod.status, { now: new Date(now), exitCode, reason }));
    this.ips.release(record.placement.podIP ?? '');
    this.emit(record);
  }

  /** Forgets the pod, after its terminal status has been notified (deletion) or without one (loss). */
  private remove(record: SimPod): void {
    if (this.records.get(record.key) !== record) return;
    this.records.delete(record.key);
    if (record.stage !== 'ended') this.ips.release(record.placement.podIP ?? '');
  }

  private emit(record: SimPod): void {
    this.options.notify({ type: 'status', pod: deepCopyPod(record.pod) });
  }
}
