/**
 * Which host ConfigMaps and Secrets this virtual node's offloaded pods reference, counted per
 * pod, so that a pod leaving releases exactly what it held. Pure data structure.
 */
export class ReferenceIndex {
  private readonly byPod = new Map<string, { readonly namespace: string; readonly keys: readonly string[] }>();
  private readonly counts = new Map<string, Map<string, number>>();

  /** Records (or replaces) what pod `podKey` in host namespace `namespace` references. */
  set(podKey: string, namespace: string, keys: readonly string[]): void {
    this.remove(podKey);
    const unique = [...new Set(keys)];
    this.byPod.set(podKey, { namespace, keys: unique });
    let counts = this.counts.get(namespace);
    if (!counts) this.counts.set(namespace, (counts = new Map()));
    for (const key of unique) counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  remove(podKey: string): void {
    const before = this.byPod.get(podKey);
    if (!before) return;
    this.byPod.delete(podKey);
    const counts = this.counts.get(before.namespace);
    if (!counts) return;
    for (const key of before.keys) {
      const n = (counts.get(key) ?? 0) - 1;
      if (n > 0) counts.set(key, n);
      else counts.delete(key);
    }
    if (counts.size === 0) this.counts.delete(before.namespace);
  }

  has(podKey: string): boolean {
    return this.byPod.has(podKey);
  }

  isReferenced(namespace: string, key: string): boolean {
    return (this.counts.get(namespace)?.get(key) ?? 0) > 0;
  }

  /** Host namespaces with at least one reference. */
  namespaces(): string[] {
    return [...this.counts.keys()];
  }

  /** The referenced keys in a host namespace. */
  keysIn(namespace: string): string[] {
    return [...(this.counts.get(namespace)?.keys() ?? [])];
  }
}
