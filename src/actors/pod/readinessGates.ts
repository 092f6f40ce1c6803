/**
 * The host pod's Ready condition with its readiness gates applied, as the kubelet computes it
 * (pkg/kubelet/status/generate.go): when the containers are ready, Ready is True only if every
 * gate's condition on the host pod is True; otherwise False with reason ReadinessGatesNotReady
 * and a message naming each gate that holds it back. Pure.
 *
 * The gates live on the host pod (the remote twin drops them: nothing remote would set them), and
 * their conditions are written on the host pod by whoever owns them, so only the host can say.
 */
import type { Pod, PodCondition, PodStatus } from '../../adapters/kubernetes/model.js';

export const readinessGatesNotReady = 'ReadinessGatesNotReady';

/** `status` (owned fields as written to the host) with Ready held False by any gate not True. */
export function withReadinessGates(status: PodStatus, host: Pod | undefined): PodStatus {
  const gates = host?.spec?.readinessGates ?? [];
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  if (gates.length === 0 || ready?.status !== 'True') return status;
  const conditions = host?.status?.conditions ?? [];
  const holding = gates.flatMap(({ conditionType }) => {
    const found = conditions.find((c) => c.type === conditionType);
    if (!found) return [`corresponding condition of pod readiness gate "${conditionType}" does not exist.`];
    return found.status === 'True' ? [] : [`the status of pod readiness gate "${conditionType}" is not "True", but ${found.status}`];
  });
  if (holding.length === 0) return status;
  const held: PodCondition = { ...ready, status: 'False', reason: readinessGatesNotReady, message: holding.join(', ') };
  return { ...status, conditions: (status.conditions ?? []).map((c) => (c.type === 'Ready' ? held : c)) };
}
