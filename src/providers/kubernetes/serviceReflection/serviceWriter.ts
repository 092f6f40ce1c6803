/**
 * Writes and deletes the remote copies of Services and EndpointSlices, through the remote
 * ClusterClient (its rate limiter, deadlines and write fence). It never overwrites or deletes an
 * object without this virtual node's reflection marks: a create that meets a foreign object of
 * the same name is answered `taken` and nothing is written; a deletion carries the uid of the
 * copy it means as a precondition, so an object that took the name since is left alone.
 */
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { isKind } from '../../../lib/errorKind.js';
import type { EndpointSlice, Service } from '../../../adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { isHeadless, isReflectedBy, type ReflectionMarks } from './reflectedService.js';
import type { DesiredObject, ReflectedKind } from './servicePlan.js';
import { operation, type Operation } from '../../../adapters/kubernetes/operation.js';
import type { Priority } from '../../../adapters/kubernetes/rateLimiter.js';

/** `stored`: the object as the remote API server stored it (after its admission chain), when it answered with one. */
export type WriteOutcome = { readonly type: 'written'; readonly stored: Reflected | undefined } | { readonly type: 'taken' };

type Reflected = Service | EndpointSlice;

interface KindApi {
  readonly word: string;
  create(namespace: string, body: Reflected, what: string): Promise<Reflected | undefined>;
  read(namespace: string, name: string, what: string): Promise<Reflected>;
  replace(namespace: string, name: string, body: Reflected, what: string): Promise<Reflected | undefined>;
  delete(namespace: string, name: string, uid: string | undefined, what: string): Promise<unknown>;
}

const preconditions = (uid: string | undefined): { body?: { preconditions: { uid: string } } } => (uid ? { body: { preconditions: { uid } } } : {});

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
      delete: (namespace, name, uid, what) => core(operation('delete', what), (c, o) => c.deleteNamespacedService({ namespace, name, ...preconditions(uid) }, o)),
    },
    EndpointSlice: {
      word: 'endpointslice',
      create: (namespace, body, what) => discovery(operation('create', what), (d, o) => d.createNamespacedEndpointSlice({ namespace, body: body as EndpointSlice }, o)),
      read: (namespace, name, what) => discovery(operation('get', what), (d, o) => d.readNamespacedEndpointSlice({ namespace, name }, o)),
      replace: (namespace, name, body, what) => discovery(operation('update', what), (d, o) => d.replaceNamespacedEndpointSlice({ namespace, name, body: body as EndpointSlice }, o)),
      delete: (namespace, name, uid, what) => discovery(operation('delete', what), (d, o) => d.deleteNamespacedEndpointSlice({ namespace, name, ...preconditions(uid) }, o)),
    },
  };
}

export class ReflectionWriter {
  private readonly apis: Record<ReflectedKind, KindApi>;

  constructor(remote: ClusterClient, private readonly marks: ReflectionMarks) {
    this.apis = kindApis(remote);
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
      if (!isReflectedBy(current.metadata?.labels, this.marks)) return { type: 'taken' };
    }
    if (desired.kind === 'Service' && !replaceable(current as Service, desired.object)) {
      // clusterIP is immutable: a Service that turns headless (or back) is recreated.
      await this.delete(desired.kind, namespace, desired.name, current.metadata?.uid);
      return { type: 'written', stored: await api.create(namespace, desired.object, what) };
    }
    return { type: 'written', stored: await api.replace(namespace, desired.name, withCurrent(desired, current), what) };
  }

  /** Deletes this node's copy (uid precondition); already gone or replaced by another object: done. */
  async delete(kind: ReflectedKind, namespace: string, name: string, uid: string | undefined): Promise<void> {
    const api = this.apis[kind];
    try {
      await api.delete(namespace, name, uid, `remote ${api.word} ${namespace}/${name}`);
    } catch (err) {
      if (!isKind(err, 'not-found') && !isKind(err, 'conflict')) throw err;
    }
  }
}

/** Whether `current` can become `desired` by a replace (the allocated clusterIP cannot change). */
function replaceable(current: Service, desired: Service): boolean {
  const allocated = (s: Service): boolean => s.spec?.type !== 'ExternalName' && !isHeadless(s);
  return allocated(current) === allocated(desired) || current.spec?.type === 'ExternalName' || desired.spec?.type === 'ExternalName';
}

/** The replace body: `desired` at the current resourceVersion, keeping a Service's allocated clusterIPs. */
function withCurrent(desired: DesiredObject, current: Reflected): Reflected {
  const metadata = { ...desired.object.metadata, resourceVersion: current.metadata?.resourceVersion };
  if (desired.kind === 'EndpointSlice') return { ...desired.object, metadata };
  const spec = { ...desired.object.spec };
  const was = (current as Service).spec;
  if (spec.type !== 'ExternalName' && !isHeadless(desired.object) && was?.type !== 'ExternalName') {
    if (was?.clusterIP !== undefined) spec.clusterIP = was.clusterIP;
    if (was?.clusterIPs !== undefined) spec.clusterIPs = was.clusterIPs;
  }
  return { ...desired.object, metadata, spec };
}
