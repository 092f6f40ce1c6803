/**
 * Which pods of one virtual node have an actor, by uid. There is deliberately no lookup by
 * namespace/name: a pod is its uid, and a same-named pod is another pod.
 *
 * Mutated in place by the controller's decisions (copying a 10k-entry map on every event would
 * make each event cost O(pods)); it is private to the controller's incarnation and rebuilt from
 * the watch cache whenever the controller restarts.
 */
export interface PodKey {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export class PodIndex {
  private readonly byUid = new Map<string, PodKey>();

  get size(): number {
    return this.byUid.size;
  }

  has(uid: string): boolean {
    return this.byUid.has(uid);
  }

  add(key: PodKey): void {
    this.byUid.set(key.uid, key);
  }

  remove(uid: string): PodKey | undefined {
    const key = this.byUid.get(uid);
    if (!key) return undefined;
    this.byUid.delete(uid);
    return key;
  }

  uids(): IterableIterator<string> {
    return this.byUid.keys();
  }
}
