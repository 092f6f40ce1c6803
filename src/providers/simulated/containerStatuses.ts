/**
 * Pure builders from the simulated containers' states to the pod's status, as the kubelet writes
 * it: each container's `state` (waiting, running, terminated), `lastState`, `restartCount`,
 * `ready`/`started` and IDs; the phase (restartPolicy.ts); the conditions (Initialized once the
 * regular init containers completed and the sidecars started, ContainersReady and Ready while
 * every container runs, PodCompleted once the pod is terminal).
 */
import type { ContainerStatus, Pod, PodCondition, PodStatus } from '../../adapters/kubernetes/model.js';
import { mergeConditions, podCondition } from '../podStatus.js';
import { definedOnly, ifDefined } from '../../lib/defaults.js';
import { podPhase } from './restartPolicy.js';
import { simulatedImageID, type Placement } from './podLifecycle.js';
import type { ContainerHealth } from './probes/probeWorker.js';

export interface Terminated {
  readonly exitCode: number;
  readonly reason: string;
  readonly message?: string;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly containerID: string;
}

export type ContainerStage =
  | { readonly kind: 'waiting'; readonly reason: string; readonly message?: string }
  | { readonly kind: 'running'; readonly startedAt: number }
  | { readonly kind: 'terminated'; readonly terminated: Terminated };

export interface ContainerFacts {
  readonly name: string;
  readonly image: string;
  readonly stage: ContainerStage;
  readonly restartCount: number;
  /** The current instance's (or the last one's), once one has been created. */
  readonly containerID?: string;
  readonly last?: Terminated;
  /** A regular init container that exited 0 counts as ready, as the kubelet reports it. */
  readonly role: 'init' | 'sidecar' | 'main';
  /** While running, what its probes say (probes/podProbes.ts); without probes it is started and ready. */
  readonly health?: ContainerHealth;
  /** Waiting to start again whatever its last exit code said (it was killed for its probe). */
  readonly restarting?: true;
}

/** A container that never ran when its pod ended: its last exit, else as the kubelet reports one it cannot find. */
export function finalStage(last: Terminated | undefined, now: number): ContainerStage {
  if (last !== undefined) return { kind: 'terminated', terminated: last };
  return { kind: 'terminated', terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: now, finishedAt: now, containerID: '' } };
}

function terminatedState(t: Terminated): NonNullable<ContainerStatus['state']>['terminated'] {
  return {
    exitCode: t.exitCode,
    reason: t.reason,
    startedAt: new Date(t.startedAt),
    finishedAt: new Date(t.finishedAt),
    containerID: t.containerID,
    ...definedOnly({ message: t.message }),
  };
}

/**
 * `now` is the status's own instant: a container that started then shares its Date with the
 * conditions' transition times (an idle pod keeps its status for its life; a Date is 96 bytes).
 */
export function containerStatus(c: ContainerFacts, now: Date): ContainerStatus {
  const startedAt = (at: number): Date => (now.getTime() === at ? now : new Date(at));
  const state: ContainerStatus['state'] = c.stage.kind === 'waiting'
    ? { waiting: { reason: c.stage.reason, ...definedOnly({ message: c.stage.message }) } }
    : c.stage.kind === 'running' ? { running: { startedAt: startedAt(c.stage.startedAt) } }
    : { terminated: terminatedState(c.stage.terminated) };
  const running = c.stage.kind === 'running';
  const completedInit = c.role === 'init' && c.stage.kind === 'terminated' && c.stage.terminated.exitCode === 0;
  return {
    name: c.name,
    image: c.image,
    imageID: c.containerID === undefined ? '' : simulatedImageID(c.image),
    ready: (running && (c.health?.ready ?? true)) || completedInit,
    started: running && (c.health?.started ?? true),
    restartCount: c.restartCount,
    state,
    ...definedOnly({ containerID: c.containerID, lastState: ifDefined(c.last, (t) => ({ terminated: terminatedState(t) })) }),
  };
}

export interface PodFacts {
  readonly inits: readonly ContainerFacts[];
  readonly mains: readonly ContainerFacts[];
  /** Whether the regular init containers have all completed (and the sidecars started) once. */
  readonly initialized: boolean;
  /** Deleted and every container ended: the phase is final whatever the restart policy. */
  readonly terminal: boolean;
}

/** The pod's status over its containers' facts; `previous` keeps unchanged conditions' times. */
export function podStatusOf(pod: Pod, placement: Placement, previous: PodStatus | undefined, facts: PodFacts, now: Date): PodStatus {
  const inits = facts.inits.map((c) => containerStatus(c, now));
  const mains = facts.mains.map((c) => containerStatus(c, now));
  const phase = podPhase(pod.spec, inits, mains, facts.terminal, new Set(facts.mains.filter((c) => c.restarting).map((c) => c.name)));
  const ended = phase === 'Succeeded' || phase === 'Failed';
  // A sidecar counts as a container does: running and ready (its readiness probe, if any).
  const sidecarsUp = facts.inits.every((c, i) => c.role !== 'sidecar' || inits[i]?.ready === true);
  const ready = !ended && facts.initialized && sidecarsUp && mains.every((s) => s.ready);
  const notReady = ended ? 'PodCompleted' : 'ContainersNotReady';
  // The kubelet's message (status/generate.go): the sidecars and containers that are not ready.
  const unready = [...inits.filter((s, i) => facts.inits[i]?.role === 'sidecar' && !s.ready), ...mains.filter((s) => !s.ready)].map((s) => s.name);
  const message = ready || ended || unready.length === 0 ? undefined : `containers with unready status: [${unready.join(' ')}]`;
  const qosClass = previous?.qosClass ?? pod.status?.qosClass;
  return {
    phase,
    hostIP: placement.hostIP,
    hostIPs: [{ ip: placement.hostIP }],
    ...ifDefined(placement.podIP, (ip) => ({ podIP: ip, podIPs: [{ ip }] })),
    startTime: placement.startTime,
    ...definedOnly({ qosClass }),
    conditions: mergeConditions(previous?.conditions, [
      podCondition('PodReadyToStartContainers', !ended, now),
      podCondition('Initialized', facts.initialized, now, facts.initialized ? undefined : ended ? 'PodCompleted' : 'ContainersNotInitialized'),
      podCondition('ContainersReady', ready, now, ready ? undefined : notReady),
      podCondition('Ready', ready, now, ready ? undefined : notReady),
    ]).map((c) => (c.type === 'ContainersReady' || c.type === 'Ready' ? withMessage(c, message) : c)),
    ...definedOnly({ initContainerStatuses: inits.length === 0 ? undefined : inits }),
    containerStatuses: mains,
  };
}

/** The condition with `message` (or none): a kept condition keeps its transition time, not an old message. */
function withMessage(condition: PodCondition, message: string | undefined): PodCondition {
  const { message: _old, ...rest } = condition;
  return { ...rest, ...definedOnly({ message }) };
}
