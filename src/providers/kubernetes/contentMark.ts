/**
 * The content mark of a reflected copy: an annotation holding the digest of what Tether wrote.
 * Pure.
 *
 * Why: a remote mutating admission webhook may add labels or annotations to every copy Tether
 * writes (a policy engine's audit label, say). Compared whole, such a copy never equals what
 * Tether wants, so every restart (which forgets what the remote stored) would rewrite it. With
 * the mark, a copy is judged on the keys Tether sets only (others' additions are theirs), and
 * the mark itself tells a label Tether wrote for an older host version, and no longer wants,
 * from one a webhook added: the older content has another digest.
 */
import { markPrefix } from './marks.js';

export const contentDigestAnnotation = `${markPrefix}content-digest`;

interface Marked {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** `copy` with its mark: the digest of `copy` as it is without one. */
export function withContentMark<T extends Marked>(copy: T, digestOf: (object: T) => string): T {
  const { [contentDigestAnnotation]: _old, ...annotations } = copy.metadata?.annotations ?? {};
  const unmarked = { ...copy, metadata: { ...copy.metadata, annotations } };
  return { ...unmarked, metadata: { ...unmarked.metadata, annotations: { ...annotations, [contentDigestAnnotation]: digestOf(unmarked) } } };
}

/**
 * Whether `seen` (a remote copy as its watch shows it) carries what the marked `desired` wants:
 * equal under `digestOf` once its labels and annotations are cut down to the keys `desired` has,
 * the mark among them.
 */
export function carriesContent<T extends Marked>(seen: T, desired: T, digestOf: (object: T) => string): boolean {
  const cut = (from: Record<string, string> | undefined, keys: Record<string, string> | undefined): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const key of Object.keys(keys ?? {})) if (from?.[key] !== undefined) out[key] = from[key];
    return out;
  };
  const meta = seen.metadata ?? {};
  const projected = { ...seen, metadata: { ...meta, labels: cut(meta.labels, desired.metadata?.labels), annotations: cut(meta.annotations, desired.metadata?.annotations) } };
  return digestOf(projected) === digestOf(desired);
}
