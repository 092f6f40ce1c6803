/**
 * The host status while postStart hooks run (postStart.ts decides them), as the kubelet's status
 * says it then: its sync is blocked in startContainer's hook, so the status is the one its sync
 * wrote before it created the container (kubelet.go SyncPod, then convertToAPIContainerStatuses).
 * A held container keeps what the host last showed for it when that is not a run (a
 * termination, a waiting reason), else the kubelet's default state for a container the runtime
 * has not reported: `waiting` `ContainerCreating` (`PodInitializing` in a pod with init
 * containers), no containerID, image ID or start time, never ready or started. Ready and
 * ContainersReady are False with the kubelet's reason (status/generate.go), and the phase is
 * getPhase's: a main container that waits and never ran keeps the pod Pending. Pure.
 */
import type { Pod, PodCondition, PodStatus } from '../../adapters/kubernetes/model.js';
import type { PostStartRun } from './protocol.js';
import { definedOnly, when } from '../../lib/defaults.js';

/** Most pods have no postStart hook: they share this. */
export const noPostStart: readonly PostStartRun[] = [];

type ContainerStatus = NonNullable<PodStatus['containerStatuses']>[number];

/** Which run of a container a status is about: a restart is another containerID and count. */
export const runOf = (cs: ContainerStatus): string => `${cs.containerID ?? ''}#${cs.restartCount ?? 0}`;

/** A main container's or init container's status by name (names are unique across both lists). */
export const containerStatusOf = (status: PodStatus | undefined, name: string): ContainerStatus | undefined =>
  status?.containerStatuses?.find((s) => s.name === name) ?? status?.initContainerStatuses?.find((s) => s.name === name);

/** What the kubelet's status says of a held container: the host's last word for it, unless that was a run. */
function heldStatus(cs: ContainerStatus, shown: ContainerStatus | undefined, reason: string): ContainerStatus {
  if (shown !== undefined && shown.state?.running === undefined && shown.state !== undefined) return { ...shown, ready: false, started: false };
  return { name: cs.name, image: cs.image, imageID: '', ready: false, started: false, restartCount: cs.restartCount ?? 0, state: { waiting: { reason } }, ...definedOnly({ lastState: cs.lastState }) };
}

/**
 * `status` with each container whose postStart hook has not succeeded for the run it shows held
 * as the kubelet shows it (above); `host`: the host pod, its spec and the status it shows.
 */
export function withPostStartHeld(status: PodStatus, runs: readonly PostStartRun[], host: Pod | undefined): PodStatus {
  if (runs.length === 0) return status;
  const held = new Set(runs.filter((r) => r.phase !== 'done').map((r) => `${r.container}\n${r.run}`));
  const holds = (cs: ContainerStatus): boolean => cs.state?.running !== undefined && held.has(`${cs.name}\n${runOf(cs)}`);
  const mains = status.containerStatuses ?? [];
  const inits = status.initContainerStatuses ?? [];
  if (!mains.some(holds) && !inits.some(holds)) return status;
  const reason = (host?.spec?.initContainers?.length ?? 0) > 0 ? 'PodInitializing' : 'ContainerCreating';
  const hold = (cs: ContainerStatus): ContainerStatus => (holds(cs) ? heldStatus(cs, containerStatusOf(host?.status, cs.name), reason) : cs);
  const containerStatuses = mains.map(hold);
  const initContainerStatuses = inits.map(hold);
  // The kubelet's ContainersReady names the sidecars first, then the main containers.
  const sidecars = new Set((host?.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const unready = [...initContainerStatuses.filter((cs) => sidecars.has(cs.name)), ...containerStatuses].filter((cs) => !cs.ready).map((cs) => cs.name);
  const message = `containers with unready status: [${unready.join(' ')}]`;
  const down = (c: PodCondition): PodCondition => (c.type === 'Ready' || c.type === 'ContainersReady') ? (c.status === 'True' ? { ...c, status: 'False', reason: 'ContainersNotReady', message } : c) : c;
  // getPhase: a main container waiting with no termination before keeps the pod Pending.
  const waits = containerStatuses.some((cs) => cs.state?.waiting !== undefined && cs.lastState?.terminated === undefined);
  const phase = status.phase === 'Running' && waits ? 'Pending' : status.phase;
  return {
    ...status, containerStatuses,
    ...definedOnly({ phase, initContainerStatuses: when(status.initContainerStatuses !== undefined, () => initContainerStatuses), conditions: status.conditions?.map(down) }),
  };
}
