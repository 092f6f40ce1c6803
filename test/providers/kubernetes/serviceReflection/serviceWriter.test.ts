/**
 * The writer of reflected Services and EndpointSlices never overwrites or deletes what is not
 * this node's, and handles what the API server will not replace. Fake cluster client: the calls
 * it receives are recorded; errors carry the HTTP codes the adapters classify.
 */
import t from 'tap';
import type { Service } from '../../../../src/adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { remoteService, serviceDigest } from '../../../../src/providers/kubernetes/serviceReflection/reflectedService.js';
import type { DesiredObject } from '../../../../src/providers/kubernetes/serviceReflection/servicePlan.js';
import { ReflectionWriter } from '../../../../src/providers/kubernetes/serviceReflection/serviceWriter.js';
import { KubeApiError } from '../../../../src/adapters/kubernetes/errors.js';
import { pagedList } from '../../../support/pagedList.js';

const marks = { hostClusterId: 'home', nodeName: 'vk-1' };
const apiError = (kind: 'already-exists' | 'not-found' | 'conflict'): KubeApiError => new KubeApiError({ kind, message: kind }, 'test');

function fakeRemote(current: Service | undefined, createError?: KubeApiError): { remote: ClusterClient; calls: string[]; bodies: Service[] } {
  const calls: string[] = [];
  const bodies: Service[] = [];
  const core = {
    createNamespacedService: async ({ body }: { body: Service }) => {
      calls.push('create');
      bodies.push(body);
      if (createError) throw createError;
      return body;
    },
    readNamespacedService: async () => {
      calls.push('read');
      return current;
    },
    replaceNamespacedService: async ({ body }: { body: Service }) => {
      calls.push('replace');
      bodies.push(body);
      return body;
    },
    deleteNamespacedService: async ({ body }: { body?: { preconditions?: { uid?: string } } }) => {
      calls.push(`delete uid=${body?.preconditions?.uid ?? 'none'}`);
      createError = undefined;
      return {};
    },
  };
  const remote = { call: (_p: string, _op: string, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}), callDiscovery: () => Promise.reject(new Error('not used')) };
  return { remote: remote as unknown as ClusterClient, calls, bodies };
}

function desired(spec: Service['spec']): DesiredObject {
  const object = remoteService({ metadata: { name: 'db', namespace: 'shop' }, spec }, 'shop-home', marks);
  return { kind: 'Service', name: 'db', object, digest: serviceDigest(object) };
}

const ours = (spec: Service['spec']): Service => ({
  metadata: { name: 'db', namespace: 'shop-home', uid: 'r-1', resourceVersion: '5', labels: { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home', 'tether.dev/virtual-node': 'vk-1' } },
  spec,
});

t.test('a name held by a foreign object: taken, nothing overwritten', async (t) => {
  const foreign: Service = { metadata: { name: 'db', namespace: 'shop-home', uid: 'x', labels: { owner: 'them' } }, spec: { ports: [{ port: 1 }] } };
  const { remote, calls } = fakeRemote(foreign, apiError('already-exists'));
  const outcome = await new ReflectionWriter(remote, marks).write(desired({ ports: [{ port: 5432 }] }), undefined);
  t.same(outcome, { type: 'taken' });
  t.same(calls, ['create', 'read'], 'no replace, no delete');
});

t.test('another virtual node\'s copy of the same host cluster is shared, not taken: nothing overwritten, nothing to warn about', async (t) => {
  const sibling = ours({ ports: [{ port: 1 }] });
  sibling.metadata!.labels!['tether.dev/virtual-node'] = 'vk-2';
  const { remote, calls } = fakeRemote(sibling, apiError('already-exists'));
  t.same(await new ReflectionWriter(remote, marks).write(desired({ ports: [{ port: 5432 }] }), undefined), { type: 'shared', holder: 'vk-2' });
  t.same(calls, ['create', 'read']);
});

t.test('this node\'s copy the watch had not seen yet: replaced at its resourceVersion, keeping the allocated clusterIP', async (t) => {
  const { remote, calls, bodies } = fakeRemote(ours({ type: 'ClusterIP', clusterIP: '10.1.0.9', clusterIPs: ['10.1.0.9'] }), apiError('already-exists'));
  t.match(await new ReflectionWriter(remote, marks).write(desired({ type: 'ClusterIP', ports: [{ port: 5432 }] }), undefined), { type: 'written', stored: { metadata: { name: 'db' } } }, 'with what the remote stored');
  t.same(calls, ['create', 'read', 'replace']);
  t.match(bodies[1], { metadata: { resourceVersion: '5' }, spec: { clusterIP: '10.1.0.9', clusterIPs: ['10.1.0.9'], ports: [{ port: 5432 }] } });
});

t.test('a Service turning headless is deleted (by uid) and recreated: clusterIP is immutable', async (t) => {
  const cached = ours({ type: 'ClusterIP', clusterIP: '10.1.0.9' });
  const { remote, calls, bodies } = fakeRemote(cached);
  t.match(await new ReflectionWriter(remote, marks).write(desired({ type: 'ClusterIP', clusterIP: 'None' }), cached), { type: 'written', stored: { spec: { clusterIP: 'None' } } });
  t.same(calls, ['delete uid=r-1', 'create']);
  t.equal(bodies[0]?.spec?.clusterIP, 'None');
});

t.test('deleting a copy that is gone, or whose name another object took since (uid precondition fails), is done', async (t) => {
  const gone = { call: () => Promise.reject(apiError('not-found')) } as unknown as ClusterClient;
  t.same(await new ReflectionWriter(gone, marks).delete('Service', 'shop-home', 'db', ours({})), { type: 'deleted' }, 'not found');
  const other: Service = { ...ours({}), metadata: { ...ours({}).metadata, uid: 'r-2' } };
  let deletes = 0;
  const replaced = {
    call: (_p: string, _op: unknown, fn: (c: object) => Promise<unknown>) => fn({
      deleteNamespacedService: () => (deletes++, Promise.reject(apiError('conflict'))),
      readNamespacedService: async () => other,
    }),
  } as unknown as ClusterClient;
  t.same(await new ReflectionWriter(replaced, marks).delete('Service', 'shop-home', 'db', ours({})), { type: 'deleted' }, 'another object holds the name');
  t.equal(deletes, 1, 'the other object is not deleted');
});

t.test('a delete carries the uid and resourceVersion of the copy it was judged on', async (t) => {
  const { remote, calls } = fakeRemote(undefined);
  const preconditions: unknown[] = [];
  const spy = { ...remote, call: (p: string, op: unknown, fn: (c: object, o: object) => Promise<unknown>) => (remote.call as (...a: unknown[]) => Promise<unknown>)(p, op, (c: Record<string, unknown>, o: object) => fn({
    ...c, deleteNamespacedService: async (req: { body?: { preconditions?: unknown } }) => void preconditions.push(req.body?.preconditions),
  }, o)) } as unknown as ClusterClient;
  await new ReflectionWriter(spy, marks).delete('Service', 'shop-home', 'db', ours({}));
  t.same(preconditions, [{ uid: 'r-1', resourceVersion: '5' }]);
  t.same(calls, []);
});

t.test('a copy whose marks a remote admin removed since it was judged is neither deleted nor overwritten: not-owned', async (t) => {
  const takenOver: Service = { ...ours({ ports: [{ port: 1 }] }), metadata: { name: 'db', namespace: 'shop-home', uid: 'r-1', resourceVersion: '6', labels: { team: 'remote-admin' } } };
  const calls: string[] = [];
  const core = {
    readNamespacedService: async () => (calls.push('read'), takenOver),
    // The copy changed since the watch's view (resourceVersion 5): every precondition fails.
    replaceNamespacedService: () => (calls.push('replace'), Promise.reject(apiError('conflict'))),
    deleteNamespacedService: () => (calls.push('delete'), Promise.reject(apiError('conflict'))),
  };
  const remote = { call: (_p: string, _op: unknown, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}) } as unknown as ClusterClient;
  const writer = new ReflectionWriter(remote, marks);
  t.same(await writer.delete('Service', 'shop-home', 'db', ours({})), { type: 'not-owned', uid: 'r-1' }, 'delete refused');
  t.same(calls, ['delete', 'read'], 'one delete at the old version (refused by the server), no second');
  calls.length = 0;
  t.same(await writer.write(desired({ ports: [{ port: 5432 }] }), ours({ ports: [{ port: 1 }] })), { type: 'not-owned', uid: 'r-1' }, 'update refused');
  t.same(calls, ['replace', 'read'], 'no replace at the new version');
});

t.test('a replace carries the uid of the copy it was judged on', async (t) => {
  const cached = ours({ ports: [{ port: 1 }] });
  const { remote, bodies } = fakeRemote(cached);
  await new ReflectionWriter(remote, marks).write(desired({ ports: [{ port: 5432 }] }), cached);
  t.match(bodies[0], { metadata: { uid: 'r-1', resourceVersion: '5' } });
});

t.test('a copy released while a sibling node of the host cluster still has pods there is handed over: same object, same ClusterIP, no delete', async (t) => {
  const cached = ours({ type: 'ClusterIP', clusterIP: '10.1.0.9', ports: [{ port: 5432 }] });
  const pod = (node: string, hostNamespace: string): object => ({ metadata: { name: `p-${node}`, labels: { 'tether.dev/virtual-node': node }, annotations: { 'tether.dev/host-namespace': hostNamespace } } });
  const calls: string[] = [];
  const bodies: Service[] = [];
  const core = {
    listNamespacedPod: async () => ({ items: [pod('vk-1', 'shop'), pod('vk-3', 'other'), pod('vk-2', 'shop')] }),
    replaceNamespacedService: async ({ body }: { body: Service }) => (calls.push('replace'), bodies.push(body), body),
    deleteNamespacedService: async () => (calls.push('delete'), {}),
  };
  const remote = { call: (_p: string, _op: unknown, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}) } as unknown as ClusterClient;
  const writer = new ReflectionWriter(remote, marks);
  const heir = await writer.heir('shop-home', 'shop');
  t.equal(heir, 'vk-2', 'the sibling with pods of that host namespace (not this node, not another namespace\'s)');
  t.same(await writer.handOver('Service', cached, heir ?? ''), { type: 'handed-over' });
  t.same(calls, ['replace'], 'no delete');
  t.match(bodies[0], { metadata: { uid: 'r-1', resourceVersion: '5', labels: { 'tether.dev/virtual-node': 'vk-2' } }, spec: { clusterIP: '10.1.0.9' } });
});

t.test('no sibling with pods there: no heir, the copy is deleted as before', async (t) => {
  const core = { listNamespacedPod: async () => ({ items: [] }) };
  const remote = { call: (_p: string, _op: unknown, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}) } as unknown as ClusterClient;
  t.equal(await new ReflectionWriter(remote, marks).heir('shop-home', 'shop'), undefined);
});

t.test('a sibling\'s copy is adopted by this node at the uid and resourceVersion seen: same object, same ClusterIP, only the node mark changes', async (t) => {
  const seen = ours({ type: 'ClusterIP', clusterIP: '10.1.0.9', clusterIPs: ['10.1.0.9'], ports: [{ port: 5432 }] });
  seen.metadata!.labels!['tether.dev/virtual-node'] = 'vk-2';
  const { remote, calls, bodies } = fakeRemote(undefined);
  t.same(await new ReflectionWriter(remote, marks).adopt('Service', seen), { type: 'adopted' });
  t.same(calls, ['replace'], 'no delete, no create');
  t.match(bodies[0], { metadata: { uid: 'r-1', resourceVersion: '5', labels: { 'tether.dev/virtual-node': 'vk-1', 'tether.dev/host-cluster': 'home' } }, spec: { clusterIP: '10.1.0.9' } });
});

t.test('a foreign object is never adopted', async (t) => {
  const foreign: Service = { metadata: { name: 'db', namespace: 'shop-home', uid: 'x', labels: { owner: 'them' } }, spec: { ports: [{ port: 1 }] } };
  const { remote, calls } = fakeRemote(undefined);
  t.same(await new ReflectionWriter(remote, marks).adopt('Service', foreign), { type: 'not-owned', uid: 'x' });
  t.same(calls, []);
});

t.test('the virtual nodes with live pods of a host namespace in a remote namespace: terminating pods and other namespaces\' pods do not count', async (t) => {
  const pod = (node: string, hostNamespace: string, terminating = false): object => ({
    metadata: { name: `p-${node}`, labels: { 'tether.dev/virtual-node': node }, annotations: { 'tether.dev/host-namespace': hostNamespace }, ...(terminating ? { deletionTimestamp: new Date() } : {}) },
  });
  const core = { listNamespacedPod: async () => ({ items: [pod('vk-3', 'shop'), pod('vk-1', 'shop'), pod('vk-4', 'other'), pod('vk-5', 'shop', true), pod('vk-3', 'shop')] }) };
  const remote = { call: (_p: string, _op: unknown, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}) } as unknown as ClusterClient;
  t.same(await new ReflectionWriter(remote, marks).nodesWithPods('shop-home', 'shop'), ['vk-1', 'vk-3']);
});

t.test('who has pods in the namespace is read page by page: a sibling only on a later page is the heir', async (t) => {
  const pod = (node: string, i: number): object => ({ metadata: { name: `p-${i}`, labels: { 'tether.dev/virtual-node': node }, annotations: { 'tether.dev/host-namespace': 'shop' } } });
  const pods = [...Array.from({ length: 700 }, (_, i) => pod('vk-1', i)), pod('vk-2', 700)];
  const { asks, list } = pagedList(pods);
  const core = { listNamespacedPod: list };
  const remote = { call: (_p: string, _op: unknown, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}) } as unknown as ClusterClient;
  t.equal(await new ReflectionWriter(remote, marks).heir('shop-home', 'shop'), 'vk-2');
  t.same(asks.map((a) => a.limit), [500, 500], 'two pages of at most 500');
});
