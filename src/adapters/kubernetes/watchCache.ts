/**
 * The cache behind a watch, and the one place that decides which change events it emits.
 *
 * Watch events and full lists (initial, after restarts, periodic resyncs) both go through here,
 * so duplicates are suppressed (same resourceVersion), a recreated object (same name, new UID)
 * becomes delete + add, and a list that is older than what the watch already delivered does not
 * roll the cache back. resourceVersions are opaque in the API contract, but etcd-backed servers
 * issue increasing integers; they are compared only when both are integers, otherwise the
 * newer-arriving copy wins.
 */
import type { ChangeType } from './watch.js';

export interface Versioned {
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

export interface Change<T> {
  readonly type: ChangeType;
  readonly object: T;
}

export class WatchCache<T extends Versioned> {
  private readonly objects = new Map<string, T>();

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  values(): T[] {
    return [...this.objects.values()];
  }

  /** An ADDED or MODIFIED from the watch. */
  upsert(obj: T): Change<T>[] {
    const key = keyOf(obj);
    const old = this.objects.get(key);
    if (!old) {
      this.objects.set(key, obj);
      return [{ type: 'added', object: obj }];
    }
    if (uidOf(old) !== uidOf(obj)) {
      this.objects.set(key, obj);
      return [{ type: 'deleted', object: old }, { type: 'added', object: obj }];
    }
    if (rvOf(old) === rvOf(obj) || isOlder(rvOf(obj), rvOf(old))) return [];
    this.objects.set(key, obj);
    return [{ type: 'updated', object: obj }];
  }

  /** A DELETED from the watch. Unknown objects (already removed by a list) produce nothing. */
  remove(obj: T): Change<T>[] {
    const key = keyOf(obj);
    const old = this.objects.get(key);
    if (!old || (uidOf(obj) !== undefined && uidOf(old) !== uidOf(obj))) return [];
    this.objects.delete(key);
    // A watch object without a uid still names the pod the cache had: readers key by uid.
    return [{ type: 'deleted', object: uidOf(obj) === undefined ? old : obj }];
  }

  /**
   * Reconciles the cache with a complete list taken at `listVersion`. A list never replaces a
   * newer object: a listed copy older than the cached one (a re-creation the watch delivered
   * after the snapshot, whatever its UID) is skipped, and objects missing from the list are
   * deleted unless the cache holds a copy newer than the list.
   */
  replace(items: readonly T[], listVersion: string): Change<T>[] {
    const changes: Change<T>[] = [];
    const listed = new Set<string>();
    for (const obj of items) {
      const key = keyOf(obj);
      listed.add(key);
      const old = this.objects.get(key);
      if (old && isOlder(rvOf(obj), rvOf(old))) continue;
      changes.push(...this.upsert(obj));
    }
    for (const [key, old] of this.objects) {
      if (listed.has(key) || isOlder(listVersion, rvOf(old))) continue;
      this.objects.delete(key);
      changes.push({ type: 'deleted', object: old });
    }
    return changes;
  }
}

export function keyOf(obj: Versioned): string {
  const m = obj.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

function uidOf(obj: Versioned): string | undefined {
  return obj.metadata?.uid;
}

function rvOf(obj: Versioned): string {
  return obj.metadata?.resourceVersion ?? '';
}

const INTEGER = /^[0-9]{1,30}$/;

/** True only if both are integers and `a` < `b`. */
export function isOlder(a: string, b: string): boolean {
  if (!INTEGER.test(a) || !INTEGER.test(b)) return false;
  return BigInt(a) < BigInt(b);
}
