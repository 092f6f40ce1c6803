/**
 * The remote scheduling patch of a virtual node (Liqo's OffloadingPatch): a nodeSelector,
 * affinity terms and tolerations added to every remote pod of that node, so one remote cluster
 * can back several virtual nodes, each on its own pool of remote nodes. Pure.
 *
 * How the patch meets the pod's own constraints, so that the pod keeps every constraint of its
 * own and the patch narrows where it may go, and applying the patch twice is applying it once:
 * - nodeSelector: the pod's pairs plus the patch's (the patch wins a key both set: it names the pool).
 * - required node affinity: the terms are ORed, so each of the pod's terms is ANDed with each of
 *   the patch's (a term that holds a patch term already is left as it is); with no terms of the
 *   pod's, the patch's.
 * - preferred node affinity, pod affinity and anti-affinity (required and preferred), and
 *   tolerations: the pod's, plus each of the patch's that the pod does not have already.
 */
import { isDeepStrictEqual } from 'node:util';
import type { V1Affinity, V1NodeSelectorTerm, V1Toleration } from '@kubernetes/client-node';
import type { PodSpec } from '../../../adapters/kubernetes/model.js';
import { definedOnly } from '../../../lib/defaults.js';

/** What a virtual node adds to every pod it offloads. */
export interface OffloadingPatch {
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly V1Toleration[];
  readonly affinity?: V1Affinity;
}

/** The scheduling fields of a pod spec the patch touches. */
export type SchedulingFields = Pick<PodSpec, 'nodeSelector' | 'affinity' | 'tolerations'>;

/** The pod's scheduling fields with the patch applied (new objects; neither input is changed). */
export function applySchedulingPatch(own: SchedulingFields, patch: OffloadingPatch | undefined): SchedulingFields {
  const out: SchedulingFields = {};
  const nodeSelector = { ...own.nodeSelector, ...patch?.nodeSelector };
  if (Object.keys(nodeSelector).length > 0) out.nodeSelector = nodeSelector;
  const tolerations = union(own.tolerations, patch?.tolerations);
  if (tolerations) out.tolerations = tolerations;
  const affinity = mergeAffinity(own.affinity, patch?.affinity);
  if (affinity) out.affinity = affinity;
  return out;
}

function mergeAffinity(own: V1Affinity | undefined, patch: V1Affinity | undefined): V1Affinity | undefined {
  const out: V1Affinity = {};
  const required = mergeRequiredTerms(
    own?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    patch?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
  );
  const preferredNodes = union(own?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution, patch?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
  if (required || preferredNodes) {
    out.nodeAffinity = {
      ...definedOnly({
        requiredDuringSchedulingIgnoredDuringExecution: required ? { nodeSelectorTerms: required } : undefined,
        preferredDuringSchedulingIgnoredDuringExecution: preferredNodes,
      }),
    };
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const req = union(own?.[kind]?.requiredDuringSchedulingIgnoredDuringExecution, patch?.[kind]?.requiredDuringSchedulingIgnoredDuringExecution);
    const pref = union(own?.[kind]?.preferredDuringSchedulingIgnoredDuringExecution, patch?.[kind]?.preferredDuringSchedulingIgnoredDuringExecution);
    if (req || pref) {
      out[kind] = definedOnly({ requiredDuringSchedulingIgnoredDuringExecution: req, preferredDuringSchedulingIgnoredDuringExecution: pref });
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Each of the pod's terms ANDed with each patch term, unless it holds one already. */
function mergeRequiredTerms(own: readonly V1NodeSelectorTerm[] | undefined, patch: readonly V1NodeSelectorTerm[] | undefined): V1NodeSelectorTerm[] | undefined {
  if (!patch || patch.length === 0) return own && own.length > 0 ? own.map((t) => structuredClone(t)) : undefined;
  if (!own || own.length === 0) return union(patch, []);
  const terms = own.flatMap((o) => (patch.some((p) => holds(o, p)) ? [structuredClone(o)] : patch.map((p) => andTerms(o, p))));
  return union(terms, []);
}

function holds(term: V1NodeSelectorTerm, part: V1NodeSelectorTerm): boolean {
  const within = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean => (b ?? []).every((x) => (a ?? []).some((y) => isDeepStrictEqual(x, y)));
  return within(term.matchExpressions, part.matchExpressions) && within(term.matchFields, part.matchFields);
}

function andTerms(a: V1NodeSelectorTerm, b: V1NodeSelectorTerm): V1NodeSelectorTerm {
  const expressions = union(a.matchExpressions, b.matchExpressions);
  const fields = union(a.matchFields, b.matchFields);
  return definedOnly({ matchExpressions: expressions, matchFields: fields });
}

/** `own` then each item of `more` that is not already there (deep equality); undefined when empty. */
function union<T>(own: readonly T[] | undefined, more: readonly T[] | undefined): T[] | undefined {
  const out: T[] = [];
  for (const item of [...(own ?? []), ...(more ?? [])]) if (!out.some((x) => isDeepStrictEqual(x, item))) out.push(structuredClone(item));
  return out.length > 0 ? out : undefined;
}
