/**
 * A value computed once per key and kept for the next callers, for the last `limit` keys (the
 * oldest computed goes first): what the simulated node derives from a few inputs many pods share,
 * such as an image's ID, is then one object however many pods hold it.
 */
export class KeptValues<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly limit: number, private readonly compute: (key: string) => V) {}

  get size(): number {
    return this.values.size;
  }

  get(key: string): V {
    const kept = this.values.get(key);
    if (kept !== undefined) return kept;
    const value = this.compute(key);
    if (this.values.size >= this.limit) this.values.delete(this.values.keys().next().value as string);
    this.values.set(key, value);
    return value;
  }
}
