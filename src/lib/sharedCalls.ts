/**
 * Calls in flight, by key: a caller who asks while a call with the same key (and the same
 * `version` of what it asks for) runs gets that call's outcome instead of making another. A call
 * that has settled is forgotten at once, so this is never a cache: the next caller calls afresh.
 */
export class SharedCalls<T> {
  private readonly running = new Map<string, { readonly version: string; readonly outcome: Promise<T> }>();

  /** `version`: callers share a call only if they ask for the same one (e.g. the digest of a write). */
  run(key: string, call: () => Promise<T>, version = ''): Promise<T> {
    const joined = this.running.get(key);
    if (joined?.version === version) return joined.outcome;
    const outcome = call().finally(() => {
      if (this.running.get(key)?.outcome === outcome) this.running.delete(key);
    });
    // Every caller may stop waiting (a given-up create): a failure then has no one to go to.
    outcome.catch(() => undefined);
    this.running.set(key, { version, outcome });
    return outcome;
  }

  /** Calls in flight now. */
  get size(): number {
    return this.running.size;
  }
}
