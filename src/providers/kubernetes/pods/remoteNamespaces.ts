/**
 * Remote namespaces: created on demand with Tether's marks (managed-by, this host cluster, the
 * creating virtual node; the host namespace as an annotation) and the node's Pod Security level.
 * A namespace that already exists is used only if it is Tether's for this host cluster (its
 * marks) or the node's config lists it as adoptable (`podPolicy.adoptNamespaces`); any other is
 * refused: a remote user who pre-created `<hostns>-<hostClusterId>` would otherwise receive that
 * host namespace's Secrets and pods. A refusal is transient (`RemoteNamespaceNotOwned`: the host
 * pod's creation is retried with backoff, the annotation and Events say why), and is not
 * remembered, so deleting the namespace or listing it takes effect at the next attempt. The same
 * decision guards every write of the ConfigMap/Secret reflector (`ensure`). Namespaces are never
 * deleted by Tether: other virtual nodes, or the remote cluster's owner, may use them.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import { isKind } from '../../../lib/errorKind.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { hostClusterLabel, hostNamespaceAnnotation, labelValue, managedByLabel, managedByValue, ownershipLabels, virtualNodeLabel } from '../marks.js';
import { operation } from '../../../adapters/kubernetes/operation.js';
import { transient } from '../../errors.js';

/** The Event reason of a refused remote namespace. */
export const NAMESPACE_NOT_OWNED = 'RemoteNamespaceNotOwned';

export interface NamespaceMarks {
  readonly hostClusterId: string;
  readonly nodeName: string;
  /** Remote namespaces the node may use although Tether did not make them. */
  readonly adoptable: ReadonlySet<string>;
}

export type NamespaceVerdict =
  | { readonly use: true; readonly how: 'owned' | 'adopted' }
  | { readonly use: false; readonly why: string };

/** Whether an existing remote namespace may receive this host cluster's objects. Pure. */
export function namespaceVerdict(ns: V1Namespace, marks: NamespaceMarks): NamespaceVerdict {
  const name = ns.metadata?.name ?? '';
  const labels = ns.metadata?.labels ?? {};
  if (labels[managedByLabel] === managedByValue && labels[hostClusterLabel] === labelValue(marks.hostClusterId)) return { use: true, how: 'owned' };
  if (marks.adoptable.has(name)) return { use: true, how: 'adopted' };
  const whose = labels[managedByLabel] === managedByValue ? `it carries the marks of host cluster ${labels[hostClusterLabel] ?? '(none)'}` : `it lacks the label ${managedByLabel}=${managedByValue}`;
  return {
    use: false,
    why: `remote namespace ${name} exists and was not created by Tether for host cluster ${marks.hostClusterId} (${whose}); nothing is copied into it and no pod is created there. Delete it in the remote cluster, or list it in this node's podPolicy.adoptNamespaces to use it as it is`,
  };
}

/** The namespace Tether creates for `hostNamespace`. */
export function namespaceToCreate(name: string, hostNamespace: string, marks: NamespaceMarks, podSecurity: Readonly<Record<string, string>>): V1Namespace {
  return {
    metadata: {
      name,
      labels: { ...podSecurity, ...ownershipLabels(marks.hostClusterId), [virtualNodeLabel]: labelValue(marks.nodeName) },
      annotations: { [hostNamespaceAnnotation]: hostNamespace },
    },
  };
}

export class RemoteNamespaces {
  private readonly known = new Set<string>();
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly remote: ClusterClient,
    private readonly marks: NamespaceMarks,
    /** Labels of the namespaces Tether creates (the Pod Security level). */
    private readonly podSecurity: Readonly<Record<string, string>> = {},
  ) {}

  /**
   * Makes sure `name` exists and may be used (created by Tether, or Tether's, or adoptable).
   * Rejects with KubeApiError, or a transient ProviderError (`RemoteNamespaceNotOwned`).
   */
  ensure(name: string, hostNamespace: string): Promise<void> {
    if (this.known.has(name)) return Promise.resolve();
    let pending = this.inFlight.get(name);
    if (!pending) {
      pending = this.create(name, hostNamespace).finally(() => this.inFlight.delete(name));
      this.inFlight.set(name, pending);
    }
    return pending;
  }

  /** Forgets that `name` exists (after a 404 naming it: someone deleted it). */
  forget(name: string): void {
    this.known.delete(name);
  }

  private async create(name: string, hostNamespace: string): Promise<void> {
    try {
      await this.remote.call('other', operation('create', `remote namespace ${name}`), (core, options) =>
        core.createNamespace({ body: namespaceToCreate(name, hostNamespace, this.marks, this.podSecurity) }, options),
      );
    } catch (err) {
      if (!isKind(err, 'already-exists')) throw err;
      const existing = await this.remote.call('other', operation('get', `remote namespace ${name}`), (core, options) => core.readNamespace({ name }, options));
      const verdict = namespaceVerdict(existing, this.marks);
      if (!verdict.use) throw transient(verdict.why, { reason: NAMESPACE_NOT_OWNED });
    }
    this.known.add(name);
  }
}
