/**
 * The host status while postStart hooks run (postStart.ts decides them): a container whose hook
 * has not succeeded for the run the status shows is neither started nor ready, as the kubelet's
 * status says while its sync is blocked in the hook. Pure.
 */
import type { PodCondition, PodStatus } from '../../adapters/kubernetes/model.js';
import type { PostStartRun } from './protocol.js';
import { definedOnly } from '../../lib/defaults.js';

/** Most pods have no postStart hook: they share this. */
export const noPostStart: readonly PostStartRun[] = [];

type ContainerStatus = NonNullable<PodStatus['containerStatuses']>[number];

/** Which run of a container a status is about: a restart is another containerID and count. */
export const runOf = (cs: ContainerStatus): string => `${cs.containerID ?? ''}#${cs.restartCount ?? 0}`;

/**
 * `status` with each container whose postStart hook has not succeeded for the run it shows held
 * not started and not ready, and the pod's Ready and ContainersReady False with the kubelet's
 * reason and message (status/generate.go), as the kubelet's status says while it runs the hook.
 */
export function withPostStartHeld(status: PodStatus, runs: readonly PostStartRun[]): PodStatus {
  if (runs.length === 0) return status;
  const held = new Set(runs.filter((r) => r.phase !== 'done').map((r) => `${r.container}\n${r.run}`));
  const holds = (cs: ContainerStatus): boolean => cs.state?.running !== undefined && held.has(`${cs.name}\n${runOf(cs)}`);
  const statuses = status.containerStatuses ?? [];
  if (!statuses.some(holds)) return status;
  const containerStatuses = statuses.map((cs) => (holds(cs) ? { ...cs, ready: false, started: false } : cs));
  const unready = containerStatuses.filter((cs) => !cs.ready).map((cs) => cs.name);
  const message = `containers with unready status: [${unready.join(' ')}]`;
  const down = (c: PodCondition): PodCondition => (c.type === 'Ready' || c.type === 'ContainersReady') && c.status === 'True' ? { ...c, status: 'False', reason: 'ContainersNotReady', message } : c;
  return { ...status, containerStatuses, ...definedOnly({ conditions: status.conditions?.map(down) }) };
}
