/**
 * Defaults for settings objects whose optional fields may be present but `undefined` (what a
 * schema parser produces for an absent field): a plain spread would let `undefined` win over the
 * default. One helper, so no caller writes `...(x !== undefined ? { x } : {})` again.
 */
export function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (value === undefined) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `defaults` with every field that `partial` actually sets. */
export function withDefaults<T extends object>(defaults: T, partial: Partial<T> | undefined): T {
  return { ...defaults, ...definedOnly(partial) };
}
