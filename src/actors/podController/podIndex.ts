/**
 * Which pods of one virtual node have an actor, by uid. There is deliberately no lookup by
 * namespace/name: a pod is its uid, and a same-named pod is another pod.
 *
 * Mutated in place by the controller's decisions (copying a 10k-entry map on every event would
 * make each event cost O(pods)); it is private to the controller's incarnation and rebuilt from
 * the watch cache whenever the controller restarts.
 */
import type { PodIdentity } from '../../lib/podIdentity.js';

export class PodIndex {
  private readonly byUid = new Map<string, PodIdentity>();

  get size(): number {
    return this.byUid.size;
  }

  has(uid: string): boolean {
    return this.byUid.has(uid);
  }

  add(key: PodIdentity): void {
    this.byUid.set(key.uid, key);
  }

  remove(uid: string): PodIdentity | undefined {
    const key = this.byUid.get(uid);
    if (!key) return undefined;
    this.byUid.delete(uid);
    return key;
  }

  uids(): IterableIterator<string> {
    return this.byUid.keys();
  }
}
