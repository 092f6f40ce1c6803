import { createHash } from 'node:crypto';

/**
 * A digest of the canonical JSON of a value (object keys sorted, Dates as ISO strings), so two
 * statuses that mean the same compare equal however they were built. A digest, not the JSON
 * itself: each pod actor keeps several, and at 10k pods full strings cost tens of MiB.
 */
export function fingerprint(value: unknown): string {
  return createHash('sha1').update(JSON.stringify(canonical(value))).digest('base64url');
}

function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) out[key] = canonical(field);
  }
  return out;
}
