import t from 'tap';
import { until } from '../../support/until.js';
import { V1MicroTime } from '@kubernetes/client-node';
import { ManualClock } from '../../support/manualClock.js';
import { KubeApiError } from '../../../src/adapters/kubernetes/errors.js';
import { createKubeClients } from '../../../src/adapters/kubernetes/kubeClients.js';
import type { NodeWatchEvent } from '../../../src/adapters/kubernetes/watch.js';
import {MockApiServer, status} from './mockApiServer.js';

const node = (rv: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'vk-1', uid: 'n-uid', resourceVersion: rv } });
const lease = (rv: string, renewTime: string): Record<string, unknown> => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'vk-1', namespace: 'kube-node-lease', resourceVersion: rv },
  spec: { holderIdentity: 'vk-1', leaseDurationSeconds: 40, renewTime },
});

t.test('NodeApi and LeaseApi wire format', async (t) => {
  const server = await MockApiServer.start();
  const clients = createKubeClients(server.kubeConfig(), { nodeName: 'vk-1' });
  t.teardown(async () => {
    await clients.stop();
    await server.close();
  });

  t.test('node status is a strategic merge patch on the status subresource', async (t) => {
    server.route((r) => (r.method === 'PATCH' && r.url.pathname === '/api/v1/nodes/vk-1/status' ? { body: node('2') } : undefined));
    await clients.nodes.patchNodeStatus('vk-1', { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] });
    const req = server.matching('PATCH', '/api/v1/nodes/vk-1/status').at(-1);
    t.equal(req?.headers['content-type'], 'application/strategic-merge-patch+json');
    t.same(JSON.parse(req?.body ?? '{}'), { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } });
    t.equal(clients.rateLimiterStats().lease.started, 1, 'the node heartbeat goes with the lease, not behind pod status writes');
    t.equal(clients.rateLimiterStats().status.started, 0);
  });

  t.test('node metadata is a merge patch; get on 404 is undefined; delete of a missing node succeeds', async (t) => {
    server.route((r) => (r.method === 'PATCH' && r.url.pathname === '/api/v1/nodes/vk-1' ? { body: node('3') } : undefined));
    await clients.nodes.patchNodeMetadata('vk-1', { labels: { 'type': 'virtual-kubelet' }, annotations: { old: null } });
    const req = server.matching('PATCH', '/api/v1/nodes/vk-1').at(-1);
    t.equal(req?.headers['content-type'], 'application/merge-patch+json');
    t.same(JSON.parse(req?.body ?? '{}'), { metadata: { labels: { type: 'virtual-kubelet' }, annotations: { old: null } } });
    t.equal(await clients.nodes.getNode('absent'), undefined);
    await t.resolves(clients.nodes.deleteNode('absent'));
    t.equal(clients.rateLimiterStats().delete.started, 1);
  });

  t.test('createNode that exists is alreadyExists', async (t) => {
    server.route((r) => (r.method === 'POST' && r.url.pathname === '/api/v1/nodes' ? { status: 409, body: status(409, 'AlreadyExists', 'nodes "vk-1" already exists') } : undefined));
    const err: unknown = await clients.nodes.createNode({ metadata: { name: 'vk-1' } }).catch((e: unknown) => e);
    t.equal((err as KubeApiError).kind, 'already-exists');
  });

  t.test('leases: reads give V1MicroTime, writes send microsecond times, 409 is conflict', async (t) => {
    const path = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/vk-1';
    server.route((r) => {
      if (r.url.pathname !== path) return undefined;
      if (r.method === 'GET') return { body: lease('7', '2026-01-02T03:04:05.123456Z') };
      if (r.method === 'PUT') {
        const sent = JSON.parse(r.body) as { metadata: { resourceVersion: string } };
        return sent.metadata.resourceVersion === '7'
          ? { body: lease('8', '2026-01-02T03:04:15.000000Z') }
          : { status: 409, body: status(409, 'Conflict', 'the object has been modified') };
      }
      return undefined;
    });
    const got = await clients.leases.getLease('kube-node-lease', 'vk-1');
    t.ok(got?.spec?.renewTime instanceof V1MicroTime, 'client-node returns a string; the adapter returns V1MicroTime');
    if (!got?.spec) throw new Error('no lease');
    got.spec.renewTime = new Date(Date.UTC(2026, 0, 2, 3, 4, 15, 250));
    await clients.leases.updateLease(got);
    const put = server.matching('PUT', path).at(-1);
    t.match(put?.body ?? '', /"renewTime":"2026-01-02T03:04:15\.250000Z"/, 'six fractional digits, as MicroTime requires');
    const stale = { ...got, metadata: { ...got.metadata, resourceVersion: '6' } };
    const err: unknown = await clients.leases.updateLease(stale).catch((e: unknown) => e);
    t.ok(err instanceof KubeApiError);
    t.equal((err as KubeApiError).kind, 'conflict');
    t.equal(clients.rateLimiterStats().lease.started, 4, 'three lease calls, and the node status patch above');
  });
});

t.test('NodeWatch reports the deletion of the node', async (t) => {
  const server = await MockApiServer.start();
  let items = [node('1')];
  server.route((r) => {
    if (r.method !== 'GET' || r.url.pathname !== '/api/v1/nodes') return undefined;
    if (r.url.searchParams.get('watch') === 'true') return 'watch';
    return { body: { kind: 'NodeList', metadata: { resourceVersion: '5' }, items } };
  });
  const clients = createKubeClients(server.kubeConfig(), { nodeName: 'vk-1', clock: new ManualClock() });
  const watch = clients.watchNode();
  const events: NodeWatchEvent[] = [];
  watch.events.subscribe((e) => events.push(e));
  t.teardown(async () => {
    void watch.stop();
    await clients.stop();
    await server.close();
  });
  watch.start();
  await until('the node watch', () => server.watches.length === 1);
  t.equal(watch.get()?.metadata?.uid, 'n-uid');
  t.equal(server.watches[0]?.url.searchParams.get('fieldSelector'), 'metadata.name=vk-1');
  items = [];
  server.watches[0]?.send('DELETED', node('9'));
  await until('the deleted event', () => events.some((e) => e.type === 'deleted'));
  t.same(events.map((e) => e.type), ['added', 'synced', 'deleted']);
  t.equal(watch.get(), undefined);
});
