/**
 * The field names a mapping in the config file may hold, read from the schema at a path, so an
 * unknown field's error can list what was meant ("unknown field; expected one of: …").
 */
import { z } from 'zod';

export function knownFields(schema: z.ZodType, path: readonly PropertyKey[], raw: unknown): string[] {
  let at: z.ZodType | undefined = schema;
  let value: unknown = raw;
  for (const part of path) {
    at = objectAt(at, value);
    if (at instanceof z.ZodObject) at = (at.shape as Record<string, z.ZodType>)[String(part)];
    else if (at instanceof z.ZodArray) at = at.element as z.ZodType;
    else if (at instanceof z.ZodRecord) at = at.valueType as z.ZodType;
    else return [];
    value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[part] : undefined;
  }
  const target = objectAt(at, value);
  return target instanceof z.ZodObject ? Object.keys(target.shape as object) : [];
}

/** Unwraps optionals and picks, in a union, the branch that fits the value best. */
function objectAt(schema: z.ZodType | undefined, value: unknown): z.ZodType | undefined {
  let at = schema;
  while (at instanceof z.ZodOptional || at instanceof z.ZodDefault || at instanceof z.ZodNullable) at = at.unwrap() as z.ZodType;
  if (!(at instanceof z.ZodUnion)) return at;
  const options = (at.options as z.ZodType[]).map((o) => objectAt(o, value)).filter((o): o is z.ZodObject => o instanceof z.ZodObject);
  const keys = value !== null && typeof value === 'object' ? Object.keys(value) : [];
  const type = keys.includes('type') ? (value as Record<string, unknown>).type : undefined;
  const byType = options.find((o) => {
    const literal = (o.shape as Record<string, z.ZodType>).type;
    return literal instanceof z.ZodLiteral && literal.values.has(type as never);
  });
  if (byType) return byType;
  const score = (o: z.ZodObject): number => keys.filter((k) => k in (o.shape as object)).length;
  return [...options].sort((a, b) => score(b) - score(a))[0];
}
