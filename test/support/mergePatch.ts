/** How the apiserver merges the patches the fakes receive: lists by key, maps with `null` deletes. */

/** A strategic merge of a list keyed by `key`: patched items replace theirs, new ones are appended. */
export function mergeBy<T>(before: T[] | undefined, patch: T[] | undefined, key: (item: T) => string): T[] | undefined {
  if (!patch) return before;
  const out = [...(before ?? [])];
  for (const item of patch) {
    const i = out.findIndex((o) => key(o) === key(item));
    if (i >= 0) out[i] = item;
    else out.push(item);
  }
  return out;
}

/** A JSON merge patch of a string map (labels, annotations): a `null` value deletes its key. */
export function mergeMap(
  before: Record<string, string> | undefined,
  patch: Readonly<Record<string, string | null>> | undefined,
): Record<string, string> | undefined {
  if (!patch) return before;
  const out = { ...before };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}
