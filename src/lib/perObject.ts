/**
 * `compute` taken once per object and remembered while the object lives (weakly held), for a value
 * derived from an object that is never changed in place once asked about: a pod or status from a
 * watch cache (which replaces an object on every event and never edits one), or a status a
 * decision built (decisions make new objects). What one message compares several times, or what
 * every admission sums over every pod, then costs a lookup (issue 28).
 */
export function perObject<K extends object, V extends NonNullable<unknown>>(compute: (key: K) => V): (key: K) => V {
  const known = new WeakMap<K, V>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      value = compute(key);
      known.set(key, value);
    }
    return value;
  };
}
