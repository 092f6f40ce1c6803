/**
 * Which pods of one virtual node have an actor: uid to identity, and namespace/name to uid.
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
  private readonly byName = new Map<string, string>();

  get size(): number {
    return this.byUid.size;
  }

  has(uid: string): boolean {
    return this.byUid.has(uid);
  }

  add(key: PodKey): void {
    this.byUid.set(key.uid, key);
    this.byName.set(nameKey(key.namespace, key.name), key.uid);
  }

  remove(uid: string): PodKey | undefined {
    const key = this.byUid.get(uid);
    if (!key) return undefined;
    this.byUid.delete(uid);
    const n = nameKey(key.namespace, key.name);
    if (this.byName.get(n) === uid) this.byName.delete(n);
    return key;
  }

  uidOf(namespace: string, name: string): string | undefined {
    return this.byName.get(nameKey(namespace, name));
  }

  uids(): IterableIterator<string> {
    return this.byUid.keys();
  }
}

const nameKey = (namespace: string, name: string): string => `${namespace}/${name}`;
