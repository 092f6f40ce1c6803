/**
 * What the Service reflector remembers about copies it could not write, keyed
 * `<remote namespace>/<kind>/<name>`: names held by a foreign object (`taken`, looked at afresh
 * at every resync), copies the remote refused as invalid (`rejected`, not retried until the host
 * object changes), the digest a `ReflectionNameTaken` Warning was recorded for (recorded again
 * only on a change), and copies that lost this node's marks (`notOwned`, reported once each).
 * Every map is pruned to the objects a namespace's pass still wants (`prune`), so each stays
 * bounded by what is reflected.
 */
import { NotOwnedReports } from '../notOwned.js';

export class RefusedNames {
  private readonly taken = new Map<string, string>();
  private readonly rejected = new Map<string, string>();
  private readonly warned = new Map<string, string>();
  /** Copies that lost this node's marks (keyed `<kind>/<remote namespace>/<name>`, for /metrics). */
  readonly notOwned = new NotOwnedReports();

  /** A foreign object holds the name; true if a Warning should be recorded (the first time, or `digest` changed). */
  nameTaken(key: string, digest: string): boolean {
    this.taken.set(key, digest);
    if (this.warned.get(key) === digest) return false;
    this.warned.set(key, digest);
    return true;
  }

  /** A copy Tether wrote lost its marks: the name is not Tether's now (reported as that, not as taken too). */
  lostMarks(key: string, digest: string): void {
    this.taken.set(key, digest);
    this.warned.set(key, digest);
  }

  rejectedByRemote(key: string, digest: string): void {
    this.rejected.set(key, digest);
  }

  /** The copy was written: nothing is refused about it any more. */
  written(kind: string, key: string): void {
    this.taken.delete(key);
    this.rejected.delete(key);
    this.warned.delete(key);
    this.notOwned.forget(`${kind}/${key}`);
  }

  /** A foreign object of that name went; true if it was holding a name Tether wants. */
  freed(key: string): boolean {
    return this.taken.delete(key);
  }

  /** Every resync looks at taken names afresh (the Warnings are still recorded only on a change). */
  forgetTaken(): void {
    this.taken.clear();
  }

  /** Digest refused per object key of one remote namespace (what the plan must not write again). */
  refusedIn(remoteNamespace: string): Map<string, string> {
    return scoped(new Map([...this.taken, ...this.rejected]), remoteNamespace);
  }

  /** Names taken in one remote namespace (`<kind>/<name>`). */
  takenIn(remoteNamespace: string): string[] {
    return [...scoped(this.taken, remoteNamespace).keys()];
  }

  /** Keeps only what is remembered about the objects of `remoteNamespace` still wanted there (`<kind>/<name>`). */
  prune(remoteNamespace: string, wanted: ReadonlySet<string>): void {
    const stale = (key: string): boolean => key.startsWith(`${remoteNamespace}/`) && !wanted.has(key.slice(remoteNamespace.length + 1));
    for (const map of [this.taken, this.rejected, this.warned]) for (const key of map.keys()) if (stale(key)) map.delete(key);
    this.notOwned.retain((key) => !stale(key.slice(key.indexOf('/') + 1)));
  }

  /** How many entries are remembered in all (a bound for tests). */
  get size(): number {
    return this.taken.size + this.rejected.size + this.warned.size + this.notOwned.size;
  }
}

/** The entries of `map` under `<remoteNamespace>/`, keyed by the rest of the key. */
export function scoped(map: ReadonlyMap<string, string>, remoteNamespace: string): Map<string, string> {
  const prefix = `${remoteNamespace}/`;
  return new Map([...map].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
}
