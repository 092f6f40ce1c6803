/**
 * Pure status builders for the simulated provider's pod lifecycle before its containers run:
 * Pending (ContainerCreating), and the image and container IDs; the statuses while containers run
 * are containerStatuses.ts's, a pod deleted before it started ends by podStatus.ts. Each takes
 * the previous status so unchanged conditions keep their transition times.
 */
import { createHash } from 'node:crypto';
import type { ContainerStatus, Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { mergeConditions, podCondition } from '../podStatus.js';
import { definedOnly, ifDefined } from '../../lib/defaults.js';
import { KeptValues } from './keptValues.js';

export interface Placement {
  readonly hostIP: string;
  /** Set once the sandbox is up (Running); Pending pods have none yet. */
  readonly podIP?: string;
  readonly startTime: Date;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Image IDs of the images run lately: a node runs few images, so its pods of one image hold one
 * ID string (about 180 bytes each otherwise, kept in every container status).
 */
const imageIDs = new KeptValues(256, (image) => {
  const repository = image.includes('@') ? image.slice(0, image.indexOf('@')) : image.replace(/:[^/:]*$/, '');
  return `${repository}@sha256:${digest(image)}`;
});

/** A stable image ID, `<repository>@sha256:<digest of the image reference>`. */
export function simulatedImageID(image: string): string {
  return imageIDs.get(image);
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
