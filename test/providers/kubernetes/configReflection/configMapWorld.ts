/**
 * One ConfigMap referenced by one offloaded pod, with fake clusters and list-watches the test
 * drives, and the reflector's loops running as the node's subtree runs them.
 */
import { ApiException } from '@kubernetes/client-node';
import type { Test } from 'tap';
import type { CachedListWatchOptions } from '../../../../src/adapters/kubernetes/cachedListWatch.js';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { Reflector, type ReflectorOptions } from '../../../../src/providers/kubernetes/configReflection/configReflector.js';
import { definedOnly } from '../../../../src/lib/defaults.js';
import { remoteCopy, type HostObject } from '../../../../src/providers/kubernetes/configReflection/reflectedObject.js';
import type { ActorSystem } from '../../../../src/supervisors/actorSystem.js';
import { ManualClock } from '../../../support/manualClock.js';
import { runReconcilers } from '../../../support/reconcilers.js';
import { translateErrors } from '../../../../src/adapters/kubernetes/errors.js';
import { describeOperation, type Operation } from '../../../../src/adapters/kubernetes/operation.js';
import { FakeListWatch } from '../../../support/fakeListWatch.js';

/** Errors as the real `call` hands them on: classified at the adapter (src/adapters/kubernetes/errors.ts). */
export const asCalled = <T>(op: Operation, fn: () => Promise<T>): Promise<T> => translateErrors(describeOperation(op), fn);

export const silentLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A list-watch driven by the test: `list` is its first (or a re-) list, `emit` one watch event. */
/** The tests' list-watch of ConfigMaps (the one fake list-watch, test/support/fakeListWatch.ts). */
export type FakeWatch = FakeListWatch<HostObject>;

/** A mutating admission webhook in the remote cluster: it labels every ConfigMap written. */
export const audited = (body: HostObject): HostObject => ({ ...body, metadata: { ...body.metadata, labels: { ...body.metadata?.labels, 'policy.example/audited': 'true' } } });

export interface ConfigMapWorld {
  reflector: Reflector;
  writes: string[];
  watch: (path: string) => FakeWatch;
  source: HostObject;
  copy: HostObject;
  pod: Pod;
  /** Holds every remote write until the promise settles (undefined: answer at once). */
  hold: (until: Promise<void> | undefined) => void;
  /** The remote copy deleted behind the reflector's back: a replace is answered 404. */
  deleteRemotely: () => void;
  /** What the remote holds under the copy's name now (a remote admin took it over, say). */
  takeOver: (object: HostObject) => void;
  /** The next remote write is answered 500. */
  failNextWrite: () => void;
  clock: ManualClock;
  system: ActorSystem;
}

export interface WorldOptions {
  /** Reported copies taken over in the remote (the reflector's `onNotOwned`). */
  readonly onNotOwned?: ReflectorOptions['onNotOwned'];
  /** The remote namespace check run before every judgement (the provider's remoteNamespaces.ts). */
  readonly namespaceUsable?: ReflectorOptions['namespaceUsable'];
}

export function configMapWorld(t: Test, admit: (body: HostObject) => HostObject = (body) => body, options: WorldOptions = {}): ConfigMapWorld {
  const source: HostObject = { metadata: { name: 'app-config', namespace: 'shop', resourceVersion: '3' }, data: { 'app.conf': 'v1' } };
  const copy = { ...remoteCopy('ConfigMap', source, 'shop-home', 'home'), metadata: { ...remoteCopy('ConfigMap', source, 'shop-home', 'home').metadata, resourceVersion: '10' } };
  const writes: string[] = [];
  let held: Promise<void> | undefined;
  let gone = false;
  let failing = false;
  let version = 10;
  /** What a remote read answers: the last write, or what `takeOver` put there. */
  let remoteObject: HostObject | undefined;
  const stored = async (body: HostObject): Promise<HostObject> => {
    await held;
    if (failing) {
      failing = false;
      throw new ApiException(500, 'internal error', JSON.stringify({ kind: 'Status', code: 500, reason: 'InternalError' }), {});
    }
    return (remoteObject = admit({ ...body, metadata: { ...body.metadata, resourceVersion: String(++version) } }));
  };
  const content = (body: HostObject): string => `${body.metadata?.namespace}/${body.metadata?.name}=${(body as { data?: Record<string, string> }).data?.['app.conf']}`;
  const host = { call: (_p: string, op: Operation, fn: (c: unknown) => Promise<unknown>) => asCalled(op, () => fn({ readNamespacedConfigMap: async () => source })) };
  const remote = {
    call: (_p: string, op: Operation, fn: (c: unknown) => Promise<unknown>) => asCalled(op, () => fn({
      createNamespacedConfigMap: async ({ body }: { body: HostObject }) => {
        writes.push(content(body));
        return stored(body);
      },
      readNamespacedConfigMap: async () => remoteObject ?? Promise.reject(new ApiException(404, 'not found', JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }), {})),
      deleteNamespacedConfigMap: async ({ namespace, name }: { namespace: string; name: string }) => {
        writes.push(`delete ${namespace}/${name}`);
        remoteObject = undefined;
        return {};
      },
      replaceNamespacedConfigMap: async ({ body }: { body: HostObject }) => {
        if (gone) {
          gone = false;
          throw new ApiException(404, 'not found', JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }), {});
        }
        writes.push(`replace ${content(body)} at ${body.metadata?.resourceVersion}`);
        return stored(body);
      },
    })),
  };
  const watches = new Map<string, FakeWatch>();
  const clock = new ManualClock();
  const reflector = new Reflector({
    host: host as unknown as ClusterClient, remote: remote as unknown as ClusterClient, hostClusterId: 'home',
    remoteNamespaceOf: (ns) => `${ns}-home`, clock, log: silentLog as never, ...definedOnly({ onNotOwned: options.onNotOwned, namespaceUsable: options.namespaceUsable }),
    watchFactory: (o: CachedListWatchOptions<HostObject>) => {
      const w = new FakeListWatch<HostObject>(o.path);
      watches.set(o.path, w);
      return w;
    },
  });
  const system = runReconcilers(t, reflector.reconcilers(), clock); // as the node's subtree does
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'shop', uid: 'u' },
    spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', configMap: { name: 'app-config' } }] },
  };
  const watch = (path: string): FakeWatch => {
    const w = watches.get(path);
    if (!w) throw new Error(`no watch of ${path}; have ${[...watches.keys()].join(', ')}`);
    return w;
  };
  return { reflector, writes, watch, source, copy, pod, takeOver: (object) => void (remoteObject = object), hold: (until) => void (held = until), deleteRemotely: () => void (gone = true), failNextWrite: () => void (failing = true), clock, system };
}

export async function offloaded(world: ConfigMapWorld): Promise<void> {
  (await world.reflector.reflectFor(world.pod, 'shop-home')).done();
  world.reflector.track('shop/p', 'shop', world.pod);
}
