/**
 * Writes and deletes the remote copies of Services and EndpointSlices, through the remote
 * ClusterClient (its rate limiter, deadlines and write fence). It never overwrites or deletes an
 * object without this virtual node's reflection marks: a create that meets a foreign object of
 * the same name is answered `taken` and nothing is written. Every replace and delete carries the
 * uid and resourceVersion of the copy it was judged on as preconditions; one that conflicts is
 * read and judged again, and a copy whose marks were removed since (a remote admin took it over)
 * is answered `not-owned` and left alone. A copy of another virtual node of the same host cluster
 * is not foreign: the nodes of one host cluster share one copy per remote namespace, `shared` while
 * its node has pods there, handed over (`handOver`) or adopted (`adopt`) by relabelling it in
 * place, never by deleting it, so a Service keeps its uid and ClusterIP.
 */
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { isKind } from '../../../lib/errorKind.js';
import type { EndpointSlice, Service } from '../../../adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { isHeadless, isReflectedBy, type ReflectionMarks } from './reflectedService.js';
import type { DesiredObject, ReflectedKind } from './servicePlan.js';
import { operation, type Operation } from '../../../adapters/kubernetes/operation.js';
import { forEachPage } from '../../../adapters/kubernetes/pagedList.js';
import type { Priority } from '../../../adapters/kubernetes/rateLimiter.js';
import { definedOnly } from '../../../lib/defaults.js';
import { hostClusterSelector, hostNamespaceAnnotation, isOwned, labelValue, virtualNodeLabel } from '../marks.js';

/** `stored`: the object as the remote API server stored it (after its admission chain), when it answered with one. */
export type WriteOutcome =
  | { readonly type: 'written'; readonly stored: Reflected | undefined }
  | { readonly type: 'taken' }
  /** Held by virtual node `holder` of the same host cluster: its copy, left to it. */
  | { readonly type: 'shared'; readonly holder: string }
  | NotOwned;

/** A copy Tether wrote that lost its marks since it was judged: its uid. */
export interface NotOwned { readonly type: 'not-owned'; readonly uid: string }

type Reflected = Service | EndpointSlice;

interface KindApi {
  readonly word: string;
  create(namespace: string, body: Reflected, what: string): Promise<Reflected | undefined>;
  read(namespace: string, name: string, what: string): Promise<Reflected>;
  replace(namespace: string, name: string, body: Reflected, what: string): Promise<Reflected | undefined>;
  delete(namespace: string, name: string, seen: Reflected, what: string): Promise<unknown>;
}

/** The delete options of a copy judged as `seen`: its uid and resourceVersion must still hold. */
const preconditions = (seen: Reflected): { body: { preconditions: { uid?: string; resourceVersion?: string } } } =>
  ({ body: { preconditions: definedOnly({ uid: seen.metadata?.uid, resourceVersion: seen.metadata?.resourceVersion }) } });

function kindApis(remote: ClusterClient): Record<ReflectedKind, KindApi> {
  const priority = (op: Operation): Priority => (op.verb === 'delete' ? 'delete' : 'other');
  const core = <T>(op: Operation, fn: Parameters<ClusterClient['call']>[2]): Promise<T> => remote.call(priority(op), op, fn) as Promise<T>;
  const discovery = <T>(op: Operation, fn: (d: ClusterClient['discovery'], o: ConfigurationOptions) => Promise<T>): Promise<T> =>
    remote.callDiscovery(priority(op), op, fn);
  return {
    Service: {
      word: 'service',
      create: (namespace, body, what) => core(operation('create', what), (c, o) => c.createNamespacedService({ namespace, body: body as Service }, o)),
      read: (namespace, name, what) => core(operation('get', what), (c, o) => c.readNamespacedService({ namespace, name }, o)),
      replace: (namespace, name, body, what) => core(operation('update', what), (c, o) => c.replaceNamespacedService({ namespace, name, body: body as Service }, o)),
      delete: (namespace, name, seen, what) => core(operation('delete', what), (c, o) => c.deleteNamespacedService({ namespace, name, ...preconditions(seen) }, o)),
    },
    EndpointSlice: {
      word: 'endpointslice',
      create: (namespace, body, what) => discovery(operation('create', what), (d, o) => d.createNamespacedEndpointSlice({ namespace, body: body as EndpointSlice }, o)),
      read: (namespace, name, what) => discovery(operation('get', what), (d, o) => d.readNamespacedEndpointSlice({ namespace, name }, o)),
      replace: (namespace, name, body, what) => discovery(operation('update', what), (d, o) => d.replaceNamespacedEndpointSlice({ namespace, name, body: body as EndpointSlice }, o)),
      delete: (namespace, name, seen, what) => discovery(operation('delete', what), (d, o) => d.deleteNamespacedEndpointSlice({ namespace, name, ...preconditions(seen) }, o)),
    },
  };
}

export class ReflectionWriter {
  private readonly apis: Record<ReflectedKind, KindApi>;

  constructor(private readonly remote: ClusterClient, private readonly marks: ReflectionMarks) {
    this.apis = kindApis(remote);
  }

  /** This virtual node's mark, as `nodesWithPods` names nodes. */
  get ownNode(): string {
    return labelValue(this.marks.nodeName);
  }

  /** Makes the remote copy equal `desired`; `cached` is this node's copy as the remote watch last saw it. Rejects with KubeApiError. */
  async write(desired: DesiredObject, cached: Reflected | undefined): Promise<WriteOutcome> {
    const api = this.apis[desired.kind];
    const namespace = desired.object.metadata?.namespace ?? '';
    const what = `remote ${api.word} ${namespace}/${desired.name}`;
    let current = cached;
    if (!current) {
      try {
        return { type: 'written', stored: await api.create(namespace, desired.object, what) };
      } catch (err) {
        if (!isKind(err, 'already-exists')) throw err;
      }
      current = await api.read(namespace, desired.name, what);
      if (!this.owns(current)) return this.isSibling(current) ? { type: 'shared', holder: holderOf(current) } : { type: 'taken' };
    }
    if (desired.kind === 'Service' && !replaceable(current as Service, desired.object)) {
      // clusterIP is immutable: a Service that turns headless (or back) is recreated.
      const gone = await this.delete(desired.kind, namespace, desired.name, current);
      if (gone.type === 'not-owned') return gone;
      return { type: 'written', stored: await api.create(namespace, desired.object, what) };
    }
    try {
      return { type: 'written', stored: await api.replace(namespace, desired.name, withCurrent(desired, current), what) };
    } catch (err) {
      if (!isKind(err, 'conflict')) throw err;
      // Changed since it was judged: a copy that lost its marks is not Tether's any more.
      const now = await api.read(namespace, desired.name, what);
      if (!this.owns(now)) return { type: 'not-owned', uid: now.metadata?.uid ?? '' };
      throw err;
    }
  }

  /**
   * Deletes this node's copy as judged on `seen` (uid and resourceVersion preconditions). One that
   * changed since is read and judged again: gone or replaced by another object is done, one that
   * lost its marks is `not-owned` and left alone, one still Tether's is deleted at its new version.
   */
  async delete(kind: ReflectedKind, namespace: string, name: string, seen: Reflected): Promise<{ readonly type: 'deleted' } | NotOwned> {
    const api = this.apis[kind];
    const what = `remote ${api.word} ${namespace}/${name}`;
    let judged = seen;
    for (let attempt = 0; ; attempt++) {
      try {
        if (!this.owns(judged)) return { type: 'not-owned', uid: judged.metadata?.uid ?? '' };
        await api.delete(namespace, name, judged, what);
        return { type: 'deleted' };
      } catch (err) {
        if (isKind(err, 'not-found')) return { type: 'deleted' };
        if (!isKind(err, 'conflict') || attempt > 0) throw err;
        const now = await api.read(namespace, name, what).catch((e: unknown) => (isKind(e, 'not-found') ? undefined : Promise.reject(e)));
        if (!now || now.metadata?.uid !== seen.metadata?.uid) return { type: 'deleted' }; // gone, or another object holds the name now
        judged = now;
      }
    }
  }

  /**
   * The virtual nodes of this host cluster with live (not terminating) offloaded pods of host
   * namespace `hostNamespace` in `remoteNamespace` (their node marks, sorted): who needs its copies.
   */
  async nodesWithPods(remoteNamespace: string, hostNamespace: string): Promise<string[]> {
    const labelSelector = hostClusterSelector(this.marks.hostClusterId);
    const nodes = new Set<string>();
    await forEachPage(
      (page) => this.remote.call('other', operation('list', `tether pods in ${remoteNamespace}`), (core, options) =>
        core.listNamespacedPod({ namespace: remoteNamespace, labelSelector, ...page }, options), { deadline: 'list' }),
      ({ items }) => {
        for (const p of items) {
          const node = p.metadata?.labels?.[virtualNodeLabel] ?? '';
          if (p.metadata?.annotations?.[hostNamespaceAnnotation] === hostNamespace && p.metadata.deletionTimestamp === undefined && node !== '') nodes.add(node);
        }
      },
    );
    return [...nodes].sort();
  }

  /**
   * The virtual node of this host cluster, other than this one, with offloaded pods of host
   * namespace `hostNamespace` in `remoteNamespace` (the first by name), if any: it needs the
   * copies this node no longer wants, so they are handed over to it rather than deleted.
   */
  async heir(remoteNamespace: string, hostNamespace: string): Promise<string | undefined> {
    const own = labelValue(this.marks.nodeName);
    return (await this.nodesWithPods(remoteNamespace, hostNamespace)).find((node) => node !== own);
  }

  /**
   * Hands this node's copy, as judged on `seen`, over to virtual node `heir` of the same host
   * cluster: only its node mark changes (at the uid and resourceVersion seen), so a Service keeps
   * its ClusterIP and no client of it sees a gap. Changed since: judged again at the next pass.
   */
  async handOver(kind: ReflectedKind, seen: Reflected, heir: string): Promise<{ readonly type: 'handed-over' } | NotOwned> {
    if (!this.owns(seen)) return { type: 'not-owned', uid: seen.metadata?.uid ?? '' };
    await this.relabel(kind, seen, heir, `handed over to node ${heir}`);
    return { type: 'handed-over' };
  }

  /**
   * Takes over the copy of another virtual node of this host cluster, as judged on `seen`, whose
   * node no longer has pods there (it stopped, or its pods moved to this node): only the node mark
   * changes, at the uid and resourceVersion seen, so the Service keeps its uid and ClusterIP. A
   * copy without this host cluster's marks is never adopted. Changed since: judged again at the next pass.
   */
  async adopt(kind: ReflectedKind, seen: Reflected): Promise<{ readonly type: 'adopted' } | NotOwned> {
    if (!this.isSibling(seen)) return { type: 'not-owned', uid: seen.metadata?.uid ?? '' };
    await this.relabel(kind, seen, labelValue(this.marks.nodeName), `adopted from node ${holderOf(seen)}`);
    return { type: 'adopted' };
  }

  /** A copy of this host cluster held by another of its virtual nodes. */
  isSibling(object: Reflected): boolean {
    return isOwned(object.metadata?.labels, this.marks.hostClusterId) && holderOf(object) !== '' && !this.owns(object);
  }

  /** `seen` with its node mark set to `node`, at its uid and resourceVersion; a conflict or its absence is left to the next pass. */
  private async relabel(kind: ReflectedKind, seen: Reflected, node: string, why: string): Promise<void> {
    const api = this.apis[kind];
    const namespace = seen.metadata?.namespace ?? '';
    const name = seen.metadata?.name ?? '';
    const body = { ...seen, metadata: { ...seen.metadata, labels: { ...seen.metadata?.labels, [virtualNodeLabel]: node } } } as Reflected;
    try {
      await api.replace(namespace, name, body, `remote ${api.word} ${namespace}/${name} (${why})`);
    } catch (err) {
      if (!isKind(err, 'not-found') && !isKind(err, 'conflict')) throw err;
    }
  }

  private owns(object: Reflected): boolean {
    return isReflectedBy(object.metadata?.labels, this.marks);
  }
}

/** Whether `current` can become `desired` by a replace (the allocated clusterIP cannot change). */
function replaceable(current: Service, desired: Service): boolean {
  const allocated = (s: Service): boolean => s.spec?.type !== 'ExternalName' && !isHeadless(s);
  return allocated(current) === allocated(desired) || current.spec?.type === 'ExternalName' || desired.spec?.type === 'ExternalName';
}

/** The replace body: `desired` at the current resourceVersion, keeping a Service's allocated clusterIPs. */
function withCurrent(desired: DesiredObject, current: Reflected): Reflected {
  const metadata = { ...desired.object.metadata, ...definedOnly({ uid: current.metadata?.uid, resourceVersion: current.metadata?.resourceVersion }) };
  if (desired.kind === 'EndpointSlice') return { ...desired.object, metadata };
  const spec = { ...desired.object.spec };
  const was = (current as Service).spec;
  if (spec.type !== 'ExternalName' && !isHeadless(desired.object) && was?.type !== 'ExternalName') {
    if (was?.clusterIP !== undefined) spec.clusterIP = was.clusterIP;
    if (was?.clusterIPs !== undefined) spec.clusterIPs = was.clusterIPs;
  }
  return { ...desired.object, metadata, spec };
}

/** The virtual node whose mark a copy carries ('' if none). */
const holderOf = (object: Reflected): string => object.metadata?.labels?.[virtualNodeLabel] ?? '';
