/**
 * Remote objects that lost Tether's marks (a remote admin took them over): Tether's no more, left
 * alone, and reported once each (a Warning Event on the host object, `ReflectionNotOwned`) and
 * counted for /metrics. Keyed by the copy (`<kind>/<remote namespace>/<name>`) and its remote
 * uid, so a new object of that name that loses its marks is reported again. Pruned by the owner
 * when the copy is no longer wanted, so it stays bounded by what is reflected.
 */
export const NOT_OWNED_REASON = 'ReflectionNotOwned';

export class NotOwnedReports {
  private readonly reported = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  /** True the first time the object `key` (remote `uid`) is found not owned: the caller reports it. */
  first(kind: string, key: string, uid: string): boolean {
    if (this.reported.get(key) === uid) return false;
    this.reported.set(key, uid);
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    return true;
  }

  /** The copy is Tether's again (written) or no longer wanted. */
  forget(key: string): void {
    this.reported.delete(key);
  }

  /** Keeps only the entries `keep` accepts. */
  retain(keep: (key: string) => boolean): void {
    for (const key of this.reported.keys()) if (!keep(key)) this.reported.delete(key);
  }

  /** How many objects are remembered (bounded by the copies wanted). */
  get size(): number {
    return this.reported.size;
  }

  /** Objects found not owned since start, per kind (a counter for /metrics). */
  totals(): ReadonlyMap<string, number> {
    return this.counts;
  }
}
