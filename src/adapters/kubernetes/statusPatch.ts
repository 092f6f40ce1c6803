import type { PodStatus } from './model.js';

/**
 * The status part of a blind strategic-merge patch. The API server merges `podIPs` and `hostIPs`
 * by `ip` (their patch strategy), so a status that moved to a new address would be appended to the
 * old one and refused ("may specify no more than one IP for each IP family"). Tether's status is
 * the whole truth for these fields, so each list it sends carries the `$patch: replace` directive.
 * The kubelet gets the same effect from a two-way diff against the stored pod; a blind write has
 * no stored pod to diff against.
 */
export function statusPatchBody(status: PodStatus): Record<string, unknown> {
  const body: Record<string, unknown> = { ...status };
  for (const field of ['podIPs', 'hostIPs'] as const) {
    const list = status[field];
    if (list !== undefined) body[field] = [{ $patch: 'replace' }, ...list];
  }
  return body;
}
