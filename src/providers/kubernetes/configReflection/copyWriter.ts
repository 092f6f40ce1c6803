/**
 * The calls behind ConfigMap and Secret reflection, one per verb: a host read, a remote write
 * and a remote delete that never touch an object Tether does not own (reflectedObject.ts
 * `isTetherCopy`). Every replace and delete carries the uid and resourceVersion of the copy it
 * was judged on as preconditions, so a copy whose marks a remote admin removed since (which
 * changes its resourceVersion) is judged again, not overwritten or deleted. Each hands the
 * ClusterClient's request options to the request (so its deadline aborts the request itself) and
 * rejects with the API's error; configReflector.ts classifies.
 */
import { operation } from '../../../adapters/kubernetes/operation.js';
import { isKind } from '../../../lib/errorKind.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { definedOnly } from '../../../lib/defaults.js';
import { SharedCalls } from '../../../lib/sharedCalls.js';
import { isTetherCopy, type HostObject } from './reflectedObject.js';
import type { ObjectReference, ReferencedKind } from './references.js';

export const kindWord = (kind: ReferencedKind): string => (kind === 'ConfigMap' ? 'configmap' : 'secret');

/** `written`: the copy as the remote stored it. `not-owned`: an object without Tether's marks holds the name (its uid). */
export type StoreOutcome = { readonly type: 'written'; readonly stored: HostObject | undefined } | { readonly type: 'not-owned'; readonly uid: string };

/** `deleted` (or already gone), or left alone because it is not Tether's (its uid). */
export type DeleteOutcome = { readonly type: 'deleted' } | { readonly type: 'not-owned'; readonly uid: string };

export interface CopyWriterOptions {
  readonly host: ClusterClient;
  readonly remote: ClusterClient;
  readonly hostClusterId: string;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
}

export class CopyWriter {
  /** Host reads in flight, by kind, namespace and name: readers who come while one runs share it. */
  private readonly reading = new SharedCalls<HostObject | undefined>();
  /** Remote copy writes in flight, by kind, namespace and name, versioned by the content's digest. */
  private readonly storing = new SharedCalls<StoreOutcome>();

  constructor(private readonly o: CopyWriterOptions) {}

  /**
   * The host object, or undefined when it is not found (the caller decides what that means).
   * Concurrent reads of one object are one GET: at 10,000 pods created together, each mounting
   * one ConfigMap, a GET per create filled the host client's budget and queue (the creates then
   * timed out waiting for it). A reader that joins gets an answer sent at most one round trip
   * before it asked; a read that has settled is not kept (this is not a cache).
   */
  readHost(namespace: string, ref: ObjectReference): Promise<HostObject | undefined> {
    return this.reading.run(`${ref.kind}/${namespace}/${ref.name}`, () => this.readHostOnce(namespace, ref));
  }

  private async readHostOnce(namespace: string, ref: ObjectReference): Promise<HostObject | undefined> {
    try {
      return await this.read(this.o.host, ref.kind, namespace, ref.name, `${kindWord(ref.kind)} ${namespace}/${ref.name} from the host cluster`);
    } catch (err) {
      if (isKind(err, 'not-found')) return undefined;
      throw err;
    }
  }

  /**
   * One write: a replace of the copy the watch holds (`cached`; one request, where
   * create-then-replace costs three), else a create, then a read and replace if it exists. An
   * object that is not Tether's copy is answered `not-owned` and left as it is. A store of the
   * same `digest` (of the copy's content) to the same copy already in flight is joined, not
   * repeated: the pods created together that shared one host read would each write it.
   */
  store(kind: ReferencedKind, copy: HostObject, cached: HostObject | undefined, digest: string): Promise<StoreOutcome> {
    const key = `${kind}/${copy.metadata?.namespace ?? ''}/${copy.metadata?.name ?? ''}`;
    return this.storing.run(key, () => this.storeOnce(kind, copy, cached), digest);
  }

  private async storeOnce(kind: ReferencedKind, copy: HostObject, cached: HostObject | undefined): Promise<StoreOutcome> {
    const namespace = copy.metadata?.namespace ?? '';
    const what = `remote ${kindWord(kind)} ${namespace}/${copy.metadata?.name ?? ''}`;
    if (cached && this.owns(cached)) {
      try {
        return { type: 'written', stored: await this.replaceAt(kind, copy, cached, what) };
      } catch (err) {
        // The watch was behind (changed, taken over or deleted since): do it the long way.
        if (!isKind(err, 'conflict') && !isKind(err, 'not-found')) throw err;
      }
    }
    try {
      return { type: 'written', stored: await this.o.remote.call<HostObject>('other', operation('create', what), (core, options) =>
        kind === 'ConfigMap' ? core.createNamespacedConfigMap({ namespace, body: copy }, options) : core.createNamespacedSecret({ namespace, body: copy }, options),
      ) };
    } catch (err) {
      if (!isKind(err, 'already-exists')) throw err;
    }
    const current = await this.read(this.o.remote, kind, namespace, copy.metadata?.name ?? '', what);
    if (!this.owns(current)) return { type: 'not-owned', uid: current.metadata?.uid ?? '' };
    return { type: 'written', stored: await this.replaceAt(kind, copy, current, what) };
  }

  /**
   * Deletes the remote copy if it is Tether's: judged on `seen` (the watch's or the sweep's view)
   * or on a fresh read, and deleted at that uid and resourceVersion. A copy changed since is read
   * and judged once more. One already gone is deleted.
   */
  async delete(kind: ReferencedKind, namespace: string, name: string, seen?: HostObject): Promise<DeleteOutcome> {
    const what = `remote ${kindWord(kind)} ${namespace}/${name}`;
    let judged = seen;
    for (let attempt = 0; ; attempt++) {
      try {
        judged ??= await this.read(this.o.remote, kind, namespace, name, what);
        if (!this.owns(judged)) return { type: 'not-owned', uid: judged.metadata?.uid ?? '' };
        const preconditions = definedOnly({ uid: judged.metadata?.uid, resourceVersion: judged.metadata?.resourceVersion });
        await this.o.remote.call('delete', operation('delete', what), (core, options) =>
          kind === 'ConfigMap'
            ? core.deleteNamespacedConfigMap({ name, namespace, body: { preconditions } }, options)
            : core.deleteNamespacedSecret({ name, namespace, body: { preconditions } }, options),
        );
        return { type: 'deleted' };
      } catch (err) {
        if (isKind(err, 'not-found')) return { type: 'deleted' };
        if (!isKind(err, 'conflict') || attempt > 0) throw err;
        judged = undefined; // changed since it was judged: judge it again
      }
    }
  }

  private owns(object: HostObject): boolean {
    return isTetherCopy(object, this.o.hostClusterId, this.o.remoteNamespaceOf);
  }

  private read(cluster: ClusterClient, kind: ReferencedKind, namespace: string, name: string, what: string): Promise<HostObject> {
    return cluster.call<HostObject>('other', operation('get', what), (core, options) =>
      kind === 'ConfigMap' ? core.readNamespacedConfigMap({ name, namespace }, options) : core.readNamespacedSecret({ name, namespace }, options),
    );
  }

  /** A replace at the uid and resourceVersion of `judged`, the copy found to be Tether's. */
  private replaceAt(kind: ReferencedKind, copy: HostObject, judged: HostObject, what: string): Promise<HostObject | undefined> {
    const namespace = copy.metadata?.namespace ?? '';
    const name = copy.metadata?.name ?? '';
    const body = { ...copy, metadata: { ...copy.metadata, ...definedOnly({ uid: judged.metadata?.uid, resourceVersion: judged.metadata?.resourceVersion }) } };
    return this.o.remote.call<HostObject>('other', operation('update', what), (core, options) =>
      kind === 'ConfigMap'
        ? core.replaceNamespacedConfigMap({ name, namespace, body }, options)
        : core.replaceNamespacedSecret({ name, namespace, body }, options),
    );
  }
}
