/**
 * The kubelet's container Events, derived from what the provider reports: the kubelet records
 * them as it pulls, creates, starts and backs off a container (kuberuntime_container.go,
 * images/image_manager.go); a virtual node sees only the statuses that follow, so each Event is
 * read off the change between two successive statuses, once per change. Reasons and words are
 * the kubelet's (pkg/kubelet/events); what a provider cannot tell (how long a pull took, the
 * image's size) is left out of the words rather than invented. docs/kubelet-api.md, "Events".
 */
import type { ContainerStatus, PodStatus } from '../../adapters/kubernetes/model.js';
import type { EventType } from './protocol.js';

export interface ContainerEvent {
  readonly eventType: EventType;
  readonly reason: string;
  readonly note: string;
  /** The kubelet's reference to the container: `spec.containers{name}` or `spec.initContainers{name}`. */
  readonly fieldPath: string;
}

interface PodName {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** The Events the change from `previous` (undefined: none seen) to `next` means, init containers first. */
export function containerEvents(pod: PodName, previous: PodStatus | undefined, next: PodStatus): ContainerEvent[] {
  return [
    ...listEvents(pod, 'spec.initContainers', previous?.initContainerStatuses, next.initContainerStatuses),
    ...listEvents(pod, 'spec.containers', previous?.containerStatuses, next.containerStatuses),
  ];
}

function listEvents(pod: PodName, path: string, previous: readonly ContainerStatus[] | undefined, next: readonly ContainerStatus[] | undefined): ContainerEvent[] {
  const before = new Map((previous ?? []).map((s) => [s.name, s]));
  return (next ?? []).flatMap((status) =>
    changeEvents(pod, before.get(status.name), status).map(([eventType, reason, note]) => ({ eventType, reason, note, fieldPath: `${path}{${status.name}}` })),
  );
}

type Said = readonly [EventType, string, string];

function changeEvents(pod: PodName, previous: ContainerStatus | undefined, next: ContainerStatus): Said[] {
  if (hasRun(next) && !sameRun(previous, next)) return startEvents(previous, next);
  const reason = next.state?.waiting?.reason;
  if (reason === undefined || reason === previous?.state?.waiting?.reason) return [];
  return waitingEvents(pod, next, reason, next.state?.waiting?.message);
}

/** A container that is running or has ended has run: it was created and started. */
const hasRun = (status: ContainerStatus): boolean => status.state?.running !== undefined || status.state?.terminated !== undefined;

/** The same run of the container: the same restart, and the same container where both name one. */
function sameRun(previous: ContainerStatus | undefined, next: ContainerStatus): boolean {
  if (previous === undefined || !hasRun(previous) || previous.restartCount !== next.restartCount) return false;
  return previous.containerID === undefined || next.containerID === undefined || previous.containerID === next.containerID;
}

function startEvents(previous: ContainerStatus | undefined, next: ContainerStatus): Said[] {
  const first = next.restartCount === 0 && (previous === undefined || !hasRun(previous));
  const pulled: Said[] = first
    ? [['Normal', 'Pulling', `Pulling image "${next.image}"`], ['Normal', 'Pulled', `Successfully pulled image "${next.image}"`]]
    : [['Normal', 'Pulled', `Container image "${next.image}" already present on machine`]];
  return [...pulled, ['Normal', 'Created', 'Container created'], ['Normal', 'Started', 'Container started']];
}

/** Waiting reasons that need no Event: the container is on its way. */
const onItsWay: ReadonlySet<string> = new Set(['ContainerCreating', 'PodInitializing']);

function waitingEvents(pod: PodName, next: ContainerStatus, reason: string, message: string | undefined): Said[] {
  if (onItsWay.has(reason)) return [];
  switch (reason) {
    case 'ErrImagePull':
      return [
        ['Normal', 'Pulling', `Pulling image "${next.image}"`],
        ['Warning', 'Failed', `Failed to pull image "${next.image}": ${message ?? reason}`],
        ['Warning', 'Failed', 'Error: ErrImagePull'],
      ];
    case 'ImagePullBackOff':
      return [['Normal', 'BackOff', `Back-off pulling image "${next.image}"`], ['Warning', 'Failed', 'Error: ImagePullBackOff']];
    case 'CrashLoopBackOff':
      return [['Warning', 'BackOff', `Back-off restarting failed container ${next.name} in pod ${pod.name}_${pod.namespace}(${pod.uid})`]];
    default:
      return [['Warning', 'Failed', `Error: ${message ?? reason}`]];
  }
}
