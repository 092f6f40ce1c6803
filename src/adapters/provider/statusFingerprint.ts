/**
 * A canonical JSON string of a status (object keys sorted, Dates as ISO strings), so two statuses
 * that mean the same compare equal however they were built.
 */
export function fingerprint(value: unknown): string {
  return JSON.stringify(canonical(value));
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
