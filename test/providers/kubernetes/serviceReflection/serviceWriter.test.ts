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

t.test('another virtual node\'s copy of the same host cluster is taken too', async (t) => {
  const sibling = ours({ ports: [{ port: 1 }] });
  sibling.metadata!.labels!['tether.dev/virtual-node'] = 'vk-2';
  const { remote, calls } = fakeRemote(sibling, apiError('already-exists'));
  t.same(await new ReflectionWriter(remote, marks).write(desired({ ports: [{ port: 5432 }] }), undefined), { type: 'taken' });
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
  for (const kind of ['not-found', 'conflict'] as const) {
    const remote = { call: () => Promise.reject(apiError(kind)) } as unknown as ClusterClient;
    await t.resolves(new ReflectionWriter(remote, marks).delete('Service', 'shop-home', 'db', 'r-1'), kind);
  }
});
