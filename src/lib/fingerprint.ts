import { hash } from 'node:crypto';
import { perObject } from './perObject.js';

/**
 * A digest of the canonical JSON of a value (object keys sorted, Dates as ISO strings), so two
 * statuses that mean the same compare equal however they were built. A digest, not the JSON
 * itself: each pod actor keeps several, and at 10k pods full strings cost tens of MiB.
 */
export function fingerprint(value: unknown): string {
  // As before: a value JSON leaves out entirely (undefined) has no fingerprint, and throws.
  // The one-shot digest: no Hash object per call (a status write takes several fingerprints).
  return hash('sha1', canonicalJson(value) as string, 'base64url');
}

/**
 * {@link fingerprint} of an object that is never changed in place once fingerprinted (perObject.ts),
 * taken once per object: the several comparisons one message makes (what to write, what was
 * written, what the host shows) cost lookups.
 */
export const fingerprintOf: (value: object) => string = perObject(fingerprint);

/**
 * `JSON.stringify` of `value` with every object's keys sorted, written in one pass: the same text
 * as building a sorted copy and stringifying it (the digests stay the same), without the copy,
 * which was most of a status write's cost (issue 28). Undefined for what JSON leaves out
 * (undefined, functions, symbols). As the copy did: an inherited `toJSON` other than Date's is not
 * called, and an own `__proto__` key is left out (assigning it to the copy set its prototype
 * instead). Data only: an own `toJSON` function, which the copy would have called, is left out.
 */
export function canonicalJson(value: unknown): string | undefined {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i === 0 ? '' : ','}${canonicalJson(value[i]) ?? 'null'}`;
    return `${out}]`;
  }
  let out = '{';
  let first = true;
  for (const key of sortedKeys(value)) {
    const field = canonicalJson((value as Record<string, unknown>)[key]);
    if (field === undefined) continue;
    out += `${first ? '' : ','}${quoted(key)}:${field}`;
    first = false;
  }
  return `${out}}`;
}

/** Keys repeat across every status (`type`, `status`, `lastTransitionTime`): each is quoted once. */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 10_000;

function quoted(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    // Bounded: label and annotation keys are open-ended; past the bound, keys are quoted each time.
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, q);
  }
  return q;
}

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;
/** Array-index keys ("0", "12", below 2³² − 1); a key not starting with a digit is none (the common case, no RegExp). */
const isIndex = (key: string): boolean => {
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57 && ARRAY_INDEX.test(key) && Number(key) < 4_294_967_295;
};

/**
 * The keys in the order the sorted copy listed them: JavaScript lists array-index keys ("0", "12")
 * first, in numeric order, whatever the order they were added in; then the others, sorted.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  let special = false;
  for (const key of keys) if (key === '__proto__' || isIndex(key)) special = true;
  if (!special) return keys.sort();
  const plain = keys.filter((key) => key !== '__proto__').sort();
  return [...plain.filter(isIndex).sort((a, b) => Number(a) - Number(b)), ...plain.filter((key) => !isIndex(key))];
}
