/**
 * The pod's own scheduling constraints carried to the remote cluster, when its virtual node says so
 * (`schedulingConstraints: carry`; default `drop`, Tether's behaviour before). Pure.
 *
 * Carried: pod affinity and anti-affinity (required and preferred) and `priorityClassName` (the
 * remote's Priority admission sets `priority` and `preemptionPolicy` from its own class of that
 * name, and refuses the pod if it has none). Node affinity and nodeSelector are never carried:
 * they chose the virtual node on the host, and name host node labels; the node's scheduling
 * patch (schedulingPatch.ts) says where in the remote the pods go.
 *
 * A pod affinity term names namespaces of the host: `namespaces` are mapped to the remote
 * namespaces (namespaceMapping.ts), and no namespaces means the pod's own, which maps by itself. A
 * `namespaceSelector` selects host namespaces by their labels, which remote namespaces do not
 * carry: an empty one (every namespace) becomes every remote namespace of this host cluster
 * (Tether's `tether.dev/host-cluster` label on the namespaces it creates); a term with any other
 * selector cannot be translated and is dropped, and named as dropped (the host pod's Event).
 */
import type { V1Affinity, V1PodAffinityTerm, V1WeightedPodAffinityTerm } from '@kubernetes/client-node';
import type { FieldPath } from '../../../lib/fieldProblem.js';
import { hostClusterLabel, labelValue } from '../marks.js';
import { definedOnly } from '../../../lib/defaults.js';

export type SchedulingConstraintsRule = 'drop' | 'carry';
export const DEFAULT_SCHEDULING_CONSTRAINTS: SchedulingConstraintsRule = 'drop';

export interface NamespaceTranslation {
  readonly hostClusterId: string;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
}

export interface CarriedAffinity {
  /** The pod (anti-)affinity for the remote pod; undefined when nothing is left. */
  readonly affinity: V1Affinity | undefined;
  /** The terms that could not be carried. */
  readonly dropped: readonly FieldPath[];
}

type PodAffinityKind = 'podAffinity' | 'podAntiAffinity';
const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';
const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';

export function carriedAffinity(affinity: V1Affinity | undefined, ns: NamespaceTranslation): CarriedAffinity {
  const out: V1Affinity = {};
  const dropped: FieldPath[] = [];
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const satisfies readonly PodAffinityKind[]) {
    const own = affinity?.[kind];
    if (!own) continue;
    const required = (own[REQUIRED] ?? []).flatMap((term, i) => {
      const remote = remoteTerm(term, ns);
      if (!remote) dropped.push(['spec', 'affinity', kind, REQUIRED, i, 'namespaceSelector']);
      return remote ? [remote] : [];
    });
    const preferred = (own[PREFERRED] ?? []).flatMap((weighted: V1WeightedPodAffinityTerm, i) => {
      const remote = remoteTerm(weighted.podAffinityTerm, ns);
      if (!remote) dropped.push(['spec', 'affinity', kind, PREFERRED, i, 'podAffinityTerm', 'namespaceSelector']);
      return remote ? [{ weight: weighted.weight, podAffinityTerm: remote }] : [];
    });
    if (required.length > 0 || preferred.length > 0) {
      out[kind] = definedOnly({ [REQUIRED]: nonEmpty(required), [PREFERRED]: nonEmpty(preferred) });
    }
  }
  return { affinity: Object.keys(out).length > 0 ? out : undefined, dropped };
}

const nonEmpty = <T>(list: T[]): T[] | undefined => (list.length > 0 ? list : undefined);

/** The term with remote namespaces; undefined when its namespaceSelector cannot be translated. */
function remoteTerm(term: V1PodAffinityTerm, ns: NamespaceTranslation): V1PodAffinityTerm | undefined {
  const copy = structuredClone(term);
  const selector = copy.namespaceSelector;
  if (selector) {
    const everything = Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
    if (!everything) return undefined;
    copy.namespaceSelector = { matchLabels: { [hostClusterLabel]: labelValue(ns.hostClusterId) } };
  }
  if (copy.namespaces) copy.namespaces = [...new Set(copy.namespaces.map((n) => ns.remoteNamespaceOf(n)))];
  return copy;
}
