/**
 * The fields a host pod set that its remote pod will not have (podTranslation.ts drops them),
 * for one Warning Event on the host pod when it is offloaded, so a loss is never silent. Pure.
 *
 * Not named here (docs/kubernetes-provider.md lists them with the reason): what did its work on
 * the host (nodeName, nodeSelector, node affinity, schedulerName, the toleration of Tether's taint),
 * what admission sets (priority, preemptionPolicy, overhead, the `kube-api-access-*` volume) and
 * the automount, and the `default` ServiceAccount; nor the ServiceAccount when the node gives the
 * pod a token of it for the host API server (hostAccess.ts): it is not lost then.
 */
import type { PodSpec } from '../../../adapters/kubernetes/model.js';
import { formatPath } from '../../../lib/fieldProblem.js';
import { carriedAffinity, type NamespaceTranslation, type SchedulingConstraintsRule } from './schedulingConstraints.js';

export const FIELDS_DROPPED = 'OffloadFieldsDropped';

const DROPPED_LISTS = ['readinessGates', 'schedulingGates', 'resourceClaims'] as const satisfies readonly (keyof PodSpec)[];
const DROPPED_FLAGS = ['hostNetwork', 'hostPID', 'hostIPC'] as const satisfies readonly (keyof PodSpec)[];

export function droppedFields(spec: PodSpec | undefined, rule: SchedulingConstraintsRule, ns: NamespaceTranslation, serviceAccountKept = false): string[] {
  if (!spec) return [];
  const out: string[] = [];
  for (const field of DROPPED_FLAGS) if (spec[field] === true) out.push(`spec.${field}`);
  for (const field of DROPPED_LISTS) if ((spec[field]?.length ?? 0) > 0) out.push(`spec.${field}`);
  const account = spec.serviceAccountName ?? spec.serviceAccount;
  if (!serviceAccountKept && account !== undefined && account !== '' && account !== 'default') out.push('spec.serviceAccountName');
  if (rule === 'drop') {
    if (spec.priorityClassName) out.push('spec.priorityClassName');
    for (const kind of ['podAffinity', 'podAntiAffinity'] as const) if (spec.affinity?.[kind]) out.push(`spec.affinity.${kind}`);
  } else {
    out.push(...carriedAffinity(spec.affinity, ns).dropped.map((p) => formatPath(p)));
  }
  return out;
}

export function droppedWords(fields: readonly string[], nodeName: string): string {
  return `the remote pod has no ${fields.join(', ')}: node ${nodeName} does not offload ${fields.length === 1 ? 'this field' : 'these fields'} (docs/kubernetes-provider.md, "Pod translation")`;
}
