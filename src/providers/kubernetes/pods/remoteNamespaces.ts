/**
 * Remote namespaces, created on demand with Tether's marks and a Pod Security level. Idempotent: AlreadyExists is success
 * (whoever created it). Namespaces are never deleted by Tether: other virtual nodes, or the
 * remote cluster's owner, may use them, and deleting one deletes everything in it.
 */
import { isKind } from '../../../lib/errorKind.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { ownershipLabels } from '../marks.js';
import { operation } from '../../../adapters/kubernetes/operation.js';

export class RemoteNamespaces {
  private readonly known = new Set<string>();
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly remote: ClusterClient,
    private readonly hostClusterId: string,
    /** Extra labels of the namespaces Tether creates (the Pod Security level). */
    private readonly labels: Readonly<Record<string, string>> = {},
  ) {}

  /** Makes sure `name` exists. Rejects with KubeApiError. */
  ensure(name: string): Promise<void> {
    if (this.known.has(name)) return Promise.resolve();
    let pending = this.inFlight.get(name);
    if (!pending) {
      pending = this.create(name).finally(() => this.inFlight.delete(name));
      this.inFlight.set(name, pending);
    }
    return pending;
  }

  /** Forgets that `name` exists (after a 404 naming it: someone deleted it). */
  forget(name: string): void {
    this.known.delete(name);
  }

  private async create(name: string): Promise<void> {
    try {
      await this.remote.call('other', operation('create', `remote namespace ${name}`), (core, options) =>
        core.createNamespace({ body: { metadata: { name, labels: { ...this.labels, ...ownershipLabels(this.hostClusterId) } } } }, options),
      );
    } catch (err) {
      if (!isKind(err, 'already-exists')) throw err;
    }
    this.known.add(name);
  }
}
