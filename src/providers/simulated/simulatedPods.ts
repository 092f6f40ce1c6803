/**
 * The simulated node's pods and their lifecycle: starting (Pending, ContainerCreating) → running
 * after the start latency → stopping within the grace period when deleted → ended (terminal
 * status). Each pod has at most one lifecycle timer; its IP comes from the pod CIDR and goes back
 * when its containers stop. Every change is handed to `notify` as a copy of the pod.
 */
import type { Clock, Timer } from '../../lib/clock.js';
import type { ContainerStatus, Pod } from '../../adapters/kubernetes/model.js';
import { deepCopyPod } from '../deepCopy.js';
import { terminatedStatus } from '../podStatus.js';
import { podKey } from '../../lib/podIdentity.js';
import { podIdentity, type PodNotification } from '../provider.js';
import { IpAllocator } from './ipAllocator.js';
import { pendingStatus, runningStatus, simulatedContainerID, simulatedImageID, type Placement } from './podLifecycle.js';
import { definedOnly } from '../../lib/defaults.js';
import { PodProbes, podHasProbes } from './probes/podProbes.js';

type Stage = 'starting' | 'running' | 'stopping' | 'ended';

export interface SimPod {
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
  /** Only for a pod whose containers have probes (probes/podProbes.ts). */
  probes: PodProbes | undefined;
}

export interface SimulatedPodsOptions {
  readonly clock: Clock;
  readonly hostIP: string;
  readonly podCIDR: string;
  readonly startLatencyMs?: number | ((pod: Pod) => number);
  readonly stopLatencyMs?: number | ((pod: Pod) => number);
  readonly exitAfterMs?: (pod: Pod) => number | undefined;
  /** Runs an exec probe's command in a running container (the built-in shell); its exit code. */
  readonly runProbeExec?: (record: SimPod, container: string, command: readonly string[], timeoutMs: number) => Promise<number>;
  /** Told of every change, synchronously: the caller delivers it later. */
  readonly notify: (notification: PodNotification) => void;
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

  constructor(private readonly options: SimulatedPodsOptions) {
    this.clock = options.clock;
    this.ips = new IpAllocator(options.podCIDR);
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
      record.probes?.stopAll();
    }
  }

  /** A new pod, Pending at once, Running after the start latency. The pod is owned, not copied. */
  start(key: string, pod: Pod): void {
    const { namespace } = podIdentity(pod);
    const now = this.clock.now();
    const placement: Placement = { hostIP: this.options.hostIP, podIP: this.ips.allocate(), startTime: new Date(now) };
    const record: SimPod = {
      key, pod, stage: 'starting', placement, timer: undefined, killAt: 0, exitAt: 0,
      starts: new Map(), previous: new Map(), endedAt: undefined, probes: undefined,
    };
    record.pod.metadata = { ...pod.metadata, namespace };
    record.pod.status = pendingStatus(pod, { hostIP: placement.hostIP, startTime: placement.startTime }, pod.status, new Date(now));
    this.records.set(key, record);
    this.emit(record);
    record.timer = this.clock.setTimer(latency(this.options.startLatencyMs, pod, 500), () => this.started(record));
  }

  /** A changed spec: a running container whose image changed restarts with the new one. */
  update(record: SimPod, pod: Pod): void {
    const before = record.pod.spec?.containers ?? [];
    record.pod = { ...pod, metadata: { ...pod.metadata, namespace: podIdentity(pod).namespace }, status: record.pod.status };
    if (record.stage !== 'running') return;
    const changed = (pod.spec?.containers ?? []).filter((c) => before.find((b) => b.name === c.name)?.image !== c.image);
    if (changed.length === 0) return;
    const now = this.clock.now();
    for (const c of changed) this.restartContainer(record, c.name, c.image ?? '', now);
    this.emit(record);
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
        record.probes?.stopAll();
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

  /** Forgets a pod without a terminal status, as if the backend lost it; the record, if there was one. */
  lose(namespace: string, name: string): SimPod | undefined {
    const record = this.records.get(podKey(namespace, name));
    if (record === undefined) return undefined;
    record.timer?.cancel();
    record.probes?.stopAll();
    this.remove(record);
    return record;
  }

  private started(record: SimPod): void {
    const now = this.clock.now();
    record.timer = undefined;
    record.stage = 'running';
    record.pod.status = runningStatus(record.pod, record.placement, record.pod.status, new Date(now));
    for (const c of record.pod.spec?.containers ?? []) record.starts.set(c.name, now);
    this.startProbes(record, now);
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
    record.probes?.stopAll();
    record.pod.status = terminatedStatus(record.pod, record.pod.status, { now: new Date(now), exitCode, reason });
    this.ips.release(record.placement.podIP ?? '');
    this.emit(record);
  }

  /** Forgets the pod, after its terminal status has been notified (deletion) or without one (loss). */
  private remove(record: SimPod): void {
    if (this.records.get(record.key) !== record) return;
    this.records.delete(record.key);
    if (record.stage !== 'ended') this.ips.release(record.placement.podIP ?? '');
  }

  private restartContainer(record: SimPod, name: string, image: string, now: number, exit = { exitCode: 0, reason: 'Completed' }): void {
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
      lastState: { terminated: { ...exit, startedAt: new Date(startedAt), finishedAt: new Date(now), ...definedOnly({ containerID: old.containerID || undefined }) } },
      state: { running: { startedAt: new Date(now) } },
    };
    statuses[index] = next;
    record.probes?.startContainer(name, now);
  }

  // --- probes (probes/podProbes.ts): only pods whose containers declare one pay for them ---
  private startProbes(record: SimPod, now: number): void {
    if (!podHasProbes(record.pod)) return;
    const runExec = this.options.runProbeExec;
    record.probes = new PodProbes(() => record.pod, {
      clock: this.clock,
      runExec: (container, command, timeoutMs) => (runExec ? runExec(record, container, command, timeoutMs) : Promise.resolve(0)),
      changed: () => this.emit(record),
      // The kubelet kills the container and starts it again: exit 137, restartCount + 1.
      restart: (container) => {
        if (record.stage !== 'running') return;
        const image = record.pod.spec?.containers.find((c) => c.name === container)?.image ?? '';
        this.restartContainer(record, container, image, this.clock.now(), { exitCode: 137, reason: 'Error' });
        this.emit(record);
      },
    });
    for (const c of record.pod.spec?.containers ?? []) record.probes.startContainer(c.name, now);
  }

  private emit(record: SimPod): void {
    this.options.notify({ type: 'status', pod: deepCopyPod(record.pod) });
  }
}
