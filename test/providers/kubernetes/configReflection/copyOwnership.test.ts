/**
 * A reflected ConfigMap or Secret whose marks a remote admin removed is Tether's no more: never
 * deleted, never overwritten, not swept, and reported once. Every replace and delete carries
 * the uid and resourceVersion of the copy it was judged on. A fake remote that stores copies by
 * name and enforces preconditions as the API server does.
 */
import { ApiException } from '@kubernetes/client-node';
import t from 'tap';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import type { Operation } from '../../../../src/adapters/kubernetes/operation.js';
import { CopyWriter } from '../../../../src/providers/kubernetes/configReflection/copyWriter.js';
import { OrphanSweep } from '../../../../src/providers/kubernetes/configReflection/orphanSweep.js';
import { remoteCopy, type HostObject } from '../../../../src/providers/kubernetes/configReflection/reflectedObject.js';
import { ManualClock } from '../../../support/manualClock.js';
import { asCalled, configMapWorld, offloaded, silentLog } from './configMapWorld.js';
import { drain } from '../../../support/until.js';

const source: HostObject = { metadata: { name: 'app-config', namespace: 'shop' }, data: { 'app.conf': 'v1' } };
const ours = (): HostObject => {
  const copy = remoteCopy('ConfigMap', source, 'shop-home', 'home');
  return { ...copy, metadata: { ...copy.metadata, uid: 'c-1', resourceVersion: '10', creationTimestamp: new Date(0) } };
};
/** The copy after a remote admin ran `kubectl label cm app-config tether.dev/managed-by-`. */
const takenOver = (): HostObject => {
  const copy = ours();
  const labels = { ...copy.metadata?.labels };
  delete labels['tether.dev/managed-by'];
  return { ...copy, metadata: { ...copy.metadata, labels, resourceVersion: '11' } };
};

const status = (code: number, reason: string): ApiException<string> => new ApiException(code, reason, JSON.stringify({ kind: 'Status', code, reason }), {});

function fakeRemote(stored: HostObject | undefined) {
  let current = stored;
  const calls: string[] = [];
  const preconditions: unknown[] = [];
  const precondition = (uid: string | undefined, version: string | undefined): void => {
    if (!current) throw status(404, 'NotFound');
    if ((uid && uid !== current.metadata?.uid) || (version && version !== current.metadata?.resourceVersion)) throw status(409, 'Conflict');
  };
  const core = {
    readNamespacedConfigMap: async () => {
      calls.push('read');
      if (!current) throw status(404, 'NotFound');
      return current;
    },
    createNamespacedConfigMap: async ({ body }: { body: HostObject }) => {
      calls.push('create');
      if (current) throw status(409, 'AlreadyExists');
      return (current = { ...body, metadata: { ...body.metadata, uid: 'c-9', resourceVersion: '20' } });
    },
    replaceNamespacedConfigMap: async ({ body }: { body: HostObject }) => {
      calls.push(`replace at ${body.metadata?.resourceVersion ?? '-'} uid ${body.metadata?.uid ?? '-'}`);
      precondition(body.metadata?.uid, body.metadata?.resourceVersion);
      return (current = { ...body, metadata: { ...body.metadata, resourceVersion: '30' } });
    },
    deleteNamespacedConfigMap: async ({ body }: { body?: { preconditions?: { uid?: string; resourceVersion?: string } } }) => {
      calls.push('delete');
      preconditions.push(body?.preconditions);
      precondition(body?.preconditions?.uid, body?.preconditions?.resourceVersion);
      current = undefined;
      return {};
    },
    listConfigMapForAllNamespaces: async () => ({ items: current ? [current] : [] }),
    listSecretForAllNamespaces: async () => ({ items: [] }),
    listNamespacedPod: async () => ({ items: [] }),
  };
  const remote = { call: (_p: string, op: Operation, fn: (c: typeof core, o: object) => Promise<unknown>) => asCalled(op, () => fn(core, {})) } as unknown as ClusterClient;
  return { remote, calls, preconditions, current: () => current };
}

const writerOn = (remote: ClusterClient): CopyWriter => new CopyWriter({ host: remote, remote, hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home` });

void t.test('the delete of a copy whose marks were removed is refused: it is not deleted', async (t) => {
  const world = fakeRemote(takenOver());
  t.same(await writerOn(world.remote).delete('ConfigMap', 'shop-home', 'app-config'), { type: 'not-owned', uid: 'c-1' });
  t.same(world.calls, ['read'], 'read and judged, never deleted');
  t.ok(world.current(), 'still there');
});

void t.test('a delete judged on a stale view of the copy (marks removed since) is refused by its preconditions, then judged afresh', async (t) => {
  const world = fakeRemote(takenOver());
  t.same(await writerOn(world.remote).delete('ConfigMap', 'shop-home', 'app-config', ours()), { type: 'not-owned', uid: 'c-1' });
  t.same(world.preconditions, [{ uid: 'c-1', resourceVersion: '10' }], 'the uid and resourceVersion precondition was sent');
  t.ok(world.current(), 'still there');
});

void t.test('the delete of Tether\'s own copy carries its uid and resourceVersion', async (t) => {
  const world = fakeRemote(ours());
  t.same(await writerOn(world.remote).delete('ConfigMap', 'shop-home', 'app-config'), { type: 'deleted' });
  t.same(world.preconditions, [{ uid: 'c-1', resourceVersion: '10' }]);
  t.equal(world.current(), undefined);
});

void t.test('the update of a copy whose marks were removed is refused: nothing is overwritten', async (t) => {
  const world = fakeRemote(takenOver());
  const desired = remoteCopy('ConfigMap', { ...source, data: { 'app.conf': 'v2' } }, 'shop-home', 'home');
  const outcome = await writerOn(world.remote).store('ConfigMap', desired, ours(), 'v2'); // the watch still shows it marked
  t.same(outcome, { type: 'not-owned', uid: 'c-1' });
  t.same(world.calls, ['replace at 10 uid c-1', 'create', 'read'], 'the replace at the judged version failed; no replace at the new one');
  t.same((world.current() as { data?: object }).data, { 'app.conf': 'v1' }, 'the remote admin\'s object is as they left it');
});

void t.test('the sweep skips a copy that is not Tether\'s, even if a listing hands it over', async (t) => {
  const world = fakeRemote(takenOver());
  const deleted: string[] = [];
  const sweep = new OrphanSweep({ remote: world.remote, hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`, clock: new ManualClock(), log: silentLog as never, minAgeMs: 0 });
  await sweep.run(new AbortController().signal, async (kind, namespace, name) => void deleted.push(`${kind} ${namespace}/${name}`));
  t.same(deleted, []);
  const owned = fakeRemote(ours());
  await new OrphanSweep({ remote: owned.remote, hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`, clock: new ManualClock(), log: silentLog as never, minAgeMs: 0 })
    .run(new AbortController().signal, async (kind, namespace, name, seen) => void deleted.push(`${kind} ${namespace}/${name} at ${seen.metadata?.resourceVersion ?? ''}`));
  t.same(deleted, ['ConfigMap shop-home/app-config at 10'], 'Tether\'s own unreferenced copy is swept, judged on the listing');
});

void t.test('a copy taken over in the remote survives the host object\'s deletion, reported once', async (t) => {
  const reports: string[] = [];
  const world = configMapWorld(t, undefined, { onNotOwned: (object, note) => void reports.push(`${object.kind} ${object.namespace}/${object.name}: ${note}`) });
  await offloaded(world);
  world.takeOver(takenOver());
  // The copies' watch selects by marks: it does not show the copy that lost them.
  world.watch('/api/v1/configmaps').listed([]);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([]); // the host ConfigMap is deleted
  await drain();
  t.notOk(world.writes.some((w) => w.startsWith('delete')), 'not deleted');
  t.equal(reports.length, 1, 'reported once');
  t.match(reports[0], /^ConfigMap shop\/app-config: remote configmap shop-home\/app-config no longer carries Tether's marks/);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([]);
  await drain();
  t.equal(reports.length, 1, 'not again at the next pass');
  t.equal(world.reflector.notOwned.totals().get('ConfigMap'), 1, 'counted for /metrics');
  await world.reflector.stop();
});
