/**
 * What PodContainers keeps of one container across its instances: its stage, restarts, back-off,
 * logs of the current and previous instance, and the one timer it may wait on.
 */
import type { PodSpec } from '../../adapters/kubernetes/model.js';
import type { ContainerInstance } from './containerRuntime.js';
import type { ContainerLog } from './containerLog.js';
import type { BackoffEntry } from './crashLoopBackOff.js';
import type { ContainerStage, Terminated } from './containerStatuses.js';
import type { Timer } from '../../lib/clock.js';

/** Where an instance's log lives: synthetic lines (a server), or what it wrote. */
export type InstanceLog =
  | { readonly kind: 'synthetic'; readonly startedAt: number; endedAt: number | undefined }
  | { readonly kind: 'recorded'; readonly log: ContainerLog };

export interface ContainerRecord {
  readonly name: string;
  readonly role: 'init' | 'sidecar' | 'main';
  image: string;
  stage: ContainerStage;
  restartCount: number;
  containerID: string | undefined;
  last: Terminated | undefined;
  backoff: BackoffEntry | undefined;
  instance: ContainerInstance | undefined;
  current: InstanceLog | undefined;
  previous: InstanceLog | undefined;
  /** A back-off wait, an image pull retry or an OOM: at most one per container. */
  timer: Timer | undefined;
  /** An image change ends the instance; it starts again at once, without back-off. */
  replacing: boolean;
  /**
   * Its current (or, until the next instance runs, its last) instance was killed by the kubelet (a
   * failed probe, or a failed postStart hook): no second kill meanwhile, and it starts again whatever it exits with (restartsAfterExit).
   */
  probeKilled: boolean;
  /** A sidecar with a postStart hook: the instance (containerID) whose hook Tether said is over; what follows waits for it. */
  postStartOver: string | undefined;
}

export function containerRecord(c: Pick<PodSpec['containers'][number], 'name' | 'image'>, role: ContainerRecord['role']): ContainerRecord {
  return {
    name: c.name, role, image: c.image ?? '', stage: { kind: 'waiting', reason: 'PodInitializing' },
    restartCount: 0, containerID: undefined, last: undefined, backoff: undefined, instance: undefined,
    current: undefined, previous: undefined, timer: undefined, replacing: false, probeKilled: false, postStartOver: undefined,
  };
}

/** Tether's word that the postStart hook of the sidecar's instance `containerID` is over; false: a stale or repeated word. */
export function notePostStartOver(r: ContainerRecord, containerID: string): boolean {
  if (r.containerID !== containerID || r.postStartOver === containerID) return false;
  r.postStartOver = containerID;
  return true;
}

/** What follows a sidecar may start: it has no postStart hook, or Tether said its current instance's is over (the kubelet's startContainer returns only then). */
export const postStartOver = (r: ContainerRecord, spec: PodSpec['containers'][number] | undefined): boolean =>
  spec?.lifecycle?.postStart === undefined || (r.postStartOver !== undefined && r.postStartOver === r.containerID);

/** A terminated instance becomes the container's lastState once the container moves on. */
export function leaveTerminated(r: ContainerRecord): void {
  if (r.stage.kind === 'terminated') r.last = r.stage.terminated;
}
