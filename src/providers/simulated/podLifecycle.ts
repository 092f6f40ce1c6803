/**
 * Pure status builders for the simulated provider's pod lifecycle:
 * Pending (ContainerCreating) → Running → terminated (podStatus.ts). Each takes the previous
 * status so unchanged conditions keep their transition times.
 */
import { createHash } from 'node:crypto';
import type { ContainerStatus, Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { mergeConditions, podCondition } from '../podStatus.js';
import { definedOnly, ifDefined } from '../../lib/defaults.js';

export interface Placement {
  readonly hostIP: string;
  /** Set once the sandbox is up (Running); Pending pods have none yet. */
  readonly podIP?: string;
  readonly startTime: Date;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A stable image ID, `<repository>@sha256:<digest of the image reference>`. */
export function simulatedImageID(image: string): string {
  const repository = image.includes('@') ? image.slice(0, image.indexOf('@')) : image.replace(/:[^/:]*$/, '');
  return `${repository}@sha256:${digest(image)}`;
}

/** A stable container ID for one instance (restart) of a container in a pod. */
export function simulatedContainerID(uid: string, container: string, restartCount: number): string {
  return `simulated://${digest(`${uid}/${container}/${restartCount}`)}`;
}

function addresses(placement: Placement): Partial<PodStatus> {
  return {
    hostIP: placement.hostIP,
    hostIPs: [{ ip: placement.hostIP }],
    ...ifDefined(placement.podIP, (ip) => ({ podIP: ip, podIPs: [{ ip }] })),
    startTime: placement.startTime,
  };
}

/** The QoS class is the API server's to compute; keep whatever it said. */
function qos(pod: Pod, previous: PodStatus | undefined): Partial<PodStatus> {
  const qosClass = previous?.qosClass ?? pod.status?.qosClass;
  return qosClass === undefined ? {} : { qosClass };
}

function waiting(spec: { name: string; image?: string }, reason: string): ContainerStatus {
  return { name: spec.name, image: spec.image ?? '', imageID: '', ready: false, started: false, restartCount: 0, state: { waiting: { reason } } };
}

export function pendingStatus(pod: Pod, placement: Placement, previous: PodStatus | undefined, now: Date): PodStatus {
  const inits = pod.spec?.initContainers ?? [];
  const initialized = inits.length === 0;
  return {
    phase: 'Pending',
    ...addresses(placement),
    ...qos(pod, previous),
    conditions: mergeConditions(previous?.conditions, [
      podCondition('PodReadyToStartContainers', false, now),
      podCondition('Initialized', initialized, now, initialized ? undefined : 'ContainersNotInitialized'),
      podCondition('ContainersReady', false, now, 'ContainersNotReady'),
      podCondition('Ready', false, now, 'ContainersNotReady'),
    ]),
    ...definedOnly({ initContainerStatuses: inits.length === 0 ? undefined : inits.map((c) => waiting(c, 'PodInitializing')) }),
    containerStatuses: (pod.spec?.containers ?? []).map((c) => waiting(c, inits.length === 0 ? 'ContainerCreating' : 'PodInitializing')),
  };
}

function runningContainer(uid: string, spec: { name: string; image?: string }, startedAt: Date): ContainerStatus {
  const image = spec.image ?? '';
  return {
    name: spec.name,
    image,
    imageID: simulatedImageID(image),
    containerID: simulatedContainerID(uid, spec.name, 0),
    ready: true,
    started: true,
    restartCount: 0,
    state: { running: { startedAt } },
  };
}

function completedInit(uid: string, spec: { name: string; image?: string }, at: Date): ContainerStatus {
  const image = spec.image ?? '';
  const containerID = simulatedContainerID(uid, spec.name, 0);
  return {
    name: spec.name,
    image,
    imageID: simulatedImageID(image),
    containerID,
    ready: true,
    started: false,
    restartCount: 0,
    state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: at, finishedAt: at, containerID } },
  };
}

/** Every container running and ready since `now`; init containers (if any) completed. */
export function runningStatus(pod: Pod, placement: Placement, previous: PodStatus | undefined, now: Date): PodStatus {
  const uid = pod.metadata?.uid ?? '';
  const inits = pod.spec?.initContainers ?? [];
  return {
    phase: 'Running',
    ...addresses(placement),
    ...qos(pod, previous),
    conditions: mergeConditions(previous?.conditions, [
      podCondition('PodReadyToStartContainers', true, now),
      podCondition('Initialized', true, now),
      podCondition('ContainersReady', true, now),
      podCondition('Ready', true, now),
    ]),
    ...definedOnly({ initContainerStatuses: inits.length === 0 ? undefined : inits.map((c) => completedInit(uid, c, now)) }),
    containerStatuses: (pod.spec?.containers ?? []).map((c) => runningContainer(uid, c, now)),
  };
}
