/**
 * Objects without `undefined` fields. A field that may be absent is left out, never written as
 * `undefined`: a spread of `{ x: undefined }` would win over a default, and `'x' in o`,
 * `Object.keys` and deep comparisons would see it. One helper, so no caller writes
 * `...(x !== undefined ? { x } : {})` again (lint forbids that shape: tools/lint/optionalFields.js).
 */

/** `T` with every field optional and never `undefined`. */
export type Defined<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/** The fields of `value` that are not `undefined`: `{ ...definedOnly({ reason, uid: pod.uid }) }`. */
export function definedOnly<T extends object>(value: T | undefined): Defined<T> {
  const out: Record<string, unknown> = {};
  if (value === undefined) return out as Defined<T>;
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as Defined<T>;
}

/** `f(value)`, or `undefined` when there is no value: `definedOnly({ metadata: ifDefined(m, deepCopy) })`. */
export function ifDefined<T, R>(value: T | undefined, f: (value: T) => R): R | undefined {
  return value === undefined ? undefined : f(value);
}

/** Fields present together, only when `condition` holds: `...when(taking, () => ({ acquireTime, leaseTransitions }))`. */
export function when<T extends object>(condition: boolean, fields: () => T): T | undefined {
  return condition ? fields() : undefined;
}

/** `defaults` with every field that `partial` actually sets. */
export function withDefaults<T extends object>(defaults: T, partial: Partial<T> | undefined): T {
  return { ...defaults, ...definedOnly(partial) } as T;
}
