/**
 * Pure: a running container's `started`/`ready` written into the pod status, and the pod's
 * `ContainersReady` and `Ready` conditions recomputed from every container, in the kubelet's words
 * (pkg/kubelet/status/generate.go: reason `ContainersNotReady`, message
 * `containers with unready status: [a b]`). A condition whose status did not change keeps its
 * transition time.
 */
import type { PodCondition, PodStatus } from '../../../adapters/kubernetes/model.js';
import type { ContainerHealth } from './probeWorker.js';
import { definedOnly } from '../../../lib/defaults.js';

function condition(previous: readonly PodCondition[], type: string, unready: readonly string[], now: Date): PodCondition {
  const ok = unready.length === 0;
  const before = previous.find((c) => c.type === type);
  const lastTransitionTime = before !== undefined && before.status === (ok ? 'True' : 'False') ? before.lastTransitionTime : now;
  return ok
    ? { type, status: 'True', ...definedOnly({ lastTransitionTime }) }
    : { type, status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]`, ...definedOnly({ lastTransitionTime }) };
}

/** The status with container `name`'s health set and the readiness conditions following it. */
export function withContainerHealth(status: PodStatus, name: string, health: Partial<ContainerHealth>, now: Date): PodStatus {
  const containerStatuses = (status.containerStatuses ?? []).map((c) => (c.name === name ? { ...c, ...health } : c));
  const unready = containerStatuses.filter((c) => !c.ready).map((c) => c.name);
  const previous = status.conditions ?? [];
  const conditions = previous.map((c) => (c.type === 'ContainersReady' || c.type === 'Ready' ? condition(previous, c.type, unready, now) : c));
  return { ...status, containerStatuses, conditions };
}
