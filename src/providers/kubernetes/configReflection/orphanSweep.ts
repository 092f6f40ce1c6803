/**
 * Deletes the reflected copies nothing references any more. Level-based and safe across virtual
 * nodes sharing a remote namespace: it lists every Tether copy of this host cluster, and keeps
 * those referenced by any Tether pod in that namespace (of any virtual node), by a pod this node
 * is creating (a hold, see `hold`), or younger than `minAgeMs` (another node may be about to
 * create its pod). Only copies that are Tether's (`isTetherCopy`: its labels for this host
 * cluster, and the host namespace they name mapping to where they are) are candidates, each
 * deleted at the uid and resourceVersion listed. configReflector.ts runs it as a reconcile of
 * one key: after start-up, shortly after one of this node's remote pods goes, and at every resync.
 */
import { operation } from '../../../adapters/kubernetes/operation.js';
import { forEachPage } from '../../../adapters/kubernetes/pagedList.js';
import type { V1ConfigMapList, V1SecretList } from '@kubernetes/client-node';
import type { Clock } from '../../../lib/clock.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { hostClusterSelector } from '../marks.js';
import { isTetherCopy, type HostObject } from './reflectedObject.js';
import { referencedObjects, referenceKey, type ReferencedKind } from './references.js';

export interface OrphanSweepOptions {
  readonly remote: ClusterClient;
  readonly hostClusterId: string;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
  readonly clock: Clock;
  readonly log: KubeLog;
  /** Copies younger than this are never swept (default 30 s). */
  readonly minAgeMs?: number | undefined;
}

/** Deletes one copy, judged on `seen` (as listed): its uid and resourceVersion are the delete's preconditions. */
export type DeleteCopy = (kind: ReferencedKind, namespace: string, name: string, seen: HostObject) => Promise<void>;

export class OrphanSweep {
  /** What the pods this node is creating reference, by pod. */
  private readonly holds = new Map<string, { readonly namespace: string; readonly keys: readonly string[] }>();

  constructor(private readonly o: OrphanSweepOptions) {}

  /** Keeps `keys` of host namespace `namespace` from being swept until the returned release is called. */
  hold(podKey: string, namespace: string, keys: readonly string[]): () => void {
    const token = { namespace, keys };
    this.holds.set(podKey, token);
    return () => {
      if (this.holds.get(podKey) === token) this.holds.delete(podKey);
    };
  }

  /** One sweep; rejects with the API's error if a listing fails, stops early if `signal` aborts. */
  async run(signal: AbortSignal, deleteCopy: DeleteCopy): Promise<void> {
    const selector = hostClusterSelector(this.o.hostClusterId);
    const [configMaps, secrets] = await Promise.all([
      this.o.remote.call<V1ConfigMapList>('other', operation('list', 'reflected configmaps'), (core, options) => core.listConfigMapForAllNamespaces({ labelSelector: selector }, options)),
      this.o.remote.call<V1SecretList>('other', operation('list', 'reflected secrets'), (core, options) => core.listSecretForAllNamespaces({ labelSelector: selector }, options)),
    ]);
    const candidates = [
      ...configMaps.items.map((object) => ({ kind: 'ConfigMap' as const, object })),
      ...secrets.items.map((object) => ({ kind: 'Secret' as const, object })),
    ].filter((c) => this.oldEnough(c.object) && isTetherCopy(c.object, this.o.hostClusterId, this.o.remoteNamespaceOf));
    const namespaces = new Set(candidates.map((c) => c.object.metadata?.namespace ?? ''));
    for (const namespace of namespaces) {
      const used = await this.referencedInRemoteNamespace(namespace, signal);
      for (const c of candidates) {
        signal.throwIfAborted();
        const name = c.object.metadata?.name ?? '';
        if (c.object.metadata?.namespace !== namespace || used.has(referenceKey(c.kind, name))) continue;
        await deleteCopy(c.kind, namespace, name, c.object);
        this.o.log.debug('deleted unreferenced reflected object', { kind: c.kind, namespace, name });
      }
    }
  }

  private oldEnough(object: HostObject): boolean {
    const created = object.metadata?.creationTimestamp;
    if (!created) return true;
    return this.o.clock.now() - new Date(created).getTime() >= (this.o.minAgeMs ?? 30_000);
  }

  /** Keys referenced by any Tether pod in a remote namespace, or held by pods this node is creating. */
  private async referencedInRemoteNamespace(remoteNamespace: string, signal: AbortSignal): Promise<Set<string>> {
    const used = new Set<string>();
    const labelSelector = hostClusterSelector(this.o.hostClusterId);
    // Page by page, keeping only the names referenced: at 10k pods one list was ~40 MB at once.
    await forEachPage(
      (page) => this.o.remote.call('other', operation('list', `tether pods in ${remoteNamespace}`), (core, options) =>
        core.listNamespacedPod({ namespace: remoteNamespace, labelSelector, ...page }, options), { deadline: 'list', signal }),
      ({ items }) => {
        for (const pod of items) for (const ref of referencedObjects(pod)) used.add(referenceKey(ref.kind, ref.name));
      },
      signal,
    );
    for (const held of this.holds.values()) {
      if (this.o.remoteNamespaceOf(held.namespace) === remoteNamespace) for (const key of held.keys) used.add(key);
    }
    return used;
  }
}
