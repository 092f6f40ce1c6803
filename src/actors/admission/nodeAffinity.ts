/**
 * Does the node match the pod's nodeSelector and required node affinity (the scheduler's
 * GetRequiredNodeAffinity(pod).Match(node))? The selector's pairs must all hold, and one of the
 * required terms (its expressions and fields all holding); an empty term list matches nothing. Pure.
 */
import type { Node, Pod } from '../../adapters/kubernetes/model.js';

interface Requirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | undefined;
}

function holds(req: Requirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const [bound] = values;
      if (value === undefined || bound === undefined || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(bound)) return false;
      return req.operator === 'Gt' ? BigInt(value) > BigInt(bound) : BigInt(value) < BigInt(bound);
    }
    default:
      return false; // an operator the API would have refused: never a match
  }
}

export function matchesNodeAffinity(pod: Pod, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [key, value] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  const fields: Record<string, string | undefined> = { 'metadata.name': node.metadata?.name };
  return required.nodeSelectorTerms.some((term) => {
    const expressions = term.matchExpressions ?? [];
    const byField = term.matchFields ?? [];
    if (expressions.length === 0 && byField.length === 0) return false; // an empty term selects nothing
    return expressions.every((r) => holds(r, labels[r.key])) && byField.every((r) => holds(r, fields[r.key]));
  });
}
