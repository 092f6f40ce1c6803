/**
 * The calls behind ConfigMap and Secret reflection, one per verb: a host read, a remote write
 * that never overwrites an object Tether does not own, a remote delete. Each hands the
 * ClusterClient's request options to the request (so its deadline aborts the request itself) and
 * rejects with the API's error; configReflector.ts classifies.
 */
import { operation } from '../../../adapters/kubernetes/operation.js';
import { isKind } from '../../../lib/errorKind.js';
import { transient } from '../../errors.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { isOwned } from '../marks.js';
import type { HostObject } from './reflectedObject.js';
import type { ObjectReference, ReferencedKind } from './references.js';

export const kindWord = (kind: ReferencedKind): string => (kind === 'ConfigMap' ? 'configmap' : 'secret');

export class CopyWriter {
  constructor(private readonly o: { readonly host: ClusterClient; readonly remote: ClusterClient; readonly hostClusterId: string }) {}

  /** The host object, or undefined when it is not found (the caller decides what that means). */
  async readHost(namespace: string, ref: ObjectReference): Promise<HostObject | undefined> {
    try {
      return await this.o.host.call<HostObject>('other', operation('get', `${kindWord(ref.kind)} ${namespace}/${ref.name} from the host cluster`), (core, options) =>
        ref.kind === 'ConfigMap'
          ? core.readNamespacedConfigMap({ name: ref.name, namespace }, options)
          : core.readNamespacedSecret({ name: ref.name, namespace }, options),
      );
    } catch (err) {
      if (isKind(err, 'not-found')) return undefined;
      throw err;
    }
  }

  /**
   * One write: a replace at the resourceVersion of the copy the watch holds (`cached`; one
   * request, where create-then-replace costs three), else a create, then a read and replace if it
   * exists. Refuses (transient) to overwrite an object that does not carry Tether's marks.
   */
  async store(kind: ReferencedKind, copy: HostObject, cached: HostObject | undefined): Promise<HostObject | undefined> {
    const namespace = copy.metadata?.namespace ?? '';
    const what = `remote ${kindWord(kind)} ${namespace}/${copy.metadata?.name ?? ''}`;
    if (cached && isOwned(cached.metadata?.labels, this.o.hostClusterId)) {
      try {
        return await this.replaceAt(kind, copy, cached.metadata?.resourceVersion, what);
      } catch (err) {
        // The watch was behind (changed or deleted since): do it the long way.
        if (!isKind(err, 'conflict') && !isKind(err, 'not-found')) throw err;
      }
    }
    try {
      return await this.o.remote.call<HostObject>('other', operation('create', `${what}`), (core, options) =>
        kind === 'ConfigMap' ? core.createNamespacedConfigMap({ namespace, body: copy }, options) : core.createNamespacedSecret({ namespace, body: copy }, options),
      );
    } catch (err) {
      if (!isKind(err, 'already-exists')) throw err;
      return this.replaceRemote(kind, copy, what);
    }
  }

  /** Deletes the remote copy; one already gone is not an error. */
  async delete(kind: ReferencedKind, namespace: string, name: string): Promise<void> {
    try {
      await this.o.remote.call('delete', operation('delete', `remote ${kindWord(kind)} ${namespace}/${name}`), (core, options) =>
        kind === 'ConfigMap' ? core.deleteNamespacedConfigMap({ name, namespace }, options) : core.deleteNamespacedSecret({ name, namespace }, options),
      );
    } catch (err) {
      if (!isKind(err, 'not-found')) throw err;
    }
  }

  private async replaceRemote(kind: ReferencedKind, copy: HostObject, what: string): Promise<HostObject | undefined> {
    const namespace = copy.metadata?.namespace ?? '';
    const name = copy.metadata?.name ?? '';
    const current = await this.o.remote.call<HostObject>('other', operation('get', `${what}`), (core, options) =>
      kind === 'ConfigMap' ? core.readNamespacedConfigMap({ name, namespace }, options) : core.readNamespacedSecret({ name, namespace }, options),
    );
    if (!isOwned(current.metadata?.labels, this.o.hostClusterId)) {
      throw transient(`${what} exists and is not managed by Tether for this host cluster; not overwriting it`);
    }
    return this.replaceAt(kind, copy, current.metadata?.resourceVersion, what);
  }

  private replaceAt(kind: ReferencedKind, copy: HostObject, resourceVersion: string | undefined, what: string): Promise<HostObject | undefined> {
    const namespace = copy.metadata?.namespace ?? '';
    const name = copy.metadata?.name ?? '';
    const body = { ...copy, metadata: { ...copy.metadata, resourceVersion } };
    return this.o.remote.call<HostObject>('other', operation('update', `${what}`), (core, options) =>
      kind === 'ConfigMap'
        ? core.replaceNamespacedConfigMap({ name, namespace, body }, options)
        : core.replaceNamespacedSecret({ name, namespace, body }, options),
    );
  }
}
