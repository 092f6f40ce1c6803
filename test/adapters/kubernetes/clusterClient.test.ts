/** The one cluster client: writes of a node whose lock is lost are fenced off, reads go on. */
import { V1Status } from '@kubernetes/client-node';
import t from 'tap';
import { ClusterClient } from '../../../src/adapters/kubernetes/clusterClient.js';
import { operation } from '../../../src/adapters/kubernetes/operation.js';
import { MockApiServer, pod } from './mockApiServer.js';
import { ManualClock } from '../../support/manualClock.js';

t.test('writes still queued when the provider is fenced are dropped, never sent; reads still go out', { timeout: 20_000 }, async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'DELETE' ? { body: new V1Status() } : r.method === 'GET' ? { body: pod('p', '2') } : undefined));
  // One token, refilled only on a clock that never moves: every request after the first waits.
  const clock = new ManualClock();
  const client = new ClusterClient(server.kubeConfig(), { clock, rateLimit: { qps: 1, burst: 1 } });
  t.teardown(() => client.stop());
  const first = client.call('delete', operation('delete', 'pod ns/a'), (core, o) => core.deleteNamespacedPod({ name: 'a', namespace: 'ns' }, o));
  const queued = client.call('delete', operation('delete', 'pod ns/b'), (core, o) => core.deleteNamespacedPod({ name: 'b', namespace: 'ns' }, o));
  await first;
  t.equal(client.limiter.stats().delete.queued, 1, 'the second delete waits for a token');
  client.fenceWrites('the lock of node vk-1 was lost');
  await t.rejects(queued, /lock of node vk-1 was lost/);
  await t.rejects(client.call('delete', operation('delete', 'pod ns/c'), (core, o) => core.deleteNamespacedPod({ name: 'c', namespace: 'ns' }, o)), /was lost/, 'new writes are refused');
  t.equal(server.requests.filter((r) => r.method === 'DELETE').length, 1, 'only the delete sent before the fence reached the server');
  const read = client.call('other', operation('get', 'pod ns/p'), (core, o) => core.readNamespacedPod({ name: 'p', namespace: 'ns' }, o));
  clock.advance(1_000);
  t.match(await read, { metadata: { name: 'p' } }, 'a read is not fenced');
  client.openWrites();
  const after = client.call('delete', operation('delete', 'pod ns/d'), (core, o) => core.deleteNamespacedPod({ name: 'd', namespace: 'ns' }, o));
  clock.advance(1_000);
  await after;
  t.equal(server.requests.filter((r) => r.method === 'DELETE').length, 2, 'writes flow again once the lock is held again');
});

t.test('a client built fenced (a standby replica) sends no write until the fence is opened; reads go out', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'DELETE' ? { body: new V1Status() } : r.method === 'GET' ? { body: pod('p', '2') } : undefined));
  const client = new ClusterClient(server.kubeConfig(), { fenced: 'the lock of node vk-1 is not held' });
  t.teardown(() => client.stop());
  await t.rejects(client.call('delete', operation('delete', 'pod ns/a'), (core, o) => core.deleteNamespacedPod({ name: 'a', namespace: 'ns' }, o)), /writes fenced: the lock of node vk-1 is not held/);
  t.match(await client.call('other', operation('get', 'pod ns/p'), (core, o) => core.readNamespacedPod({ name: 'p', namespace: 'ns' }, o)), { metadata: { name: 'p' } }, 'a read is not fenced');
  t.equal(server.requests.filter((r) => r.method === 'DELETE').length, 0, 'no write reached the server');
  client.openWrites();
  await client.call('delete', operation('delete', 'pod ns/a'), (core, o) => core.deleteNamespacedPod({ name: 'a', namespace: 'ns' }, o));
  t.equal(server.requests.filter((r) => r.method === 'DELETE').length, 1, 'opened: the write goes out');
});

t.test('a burst of requests with the budget lifted runs at most 32 at once, over sockets it keeps: no TLS handshake per request', { timeout: 30_000 }, async (t) => {
  const server = await MockApiServer.start({ tls: true });
  t.teardown(() => server.close());
  let running = 0;
  let most = 0;
  const answer = async (): Promise<{ body: Record<string, unknown> }> => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 2)); // the server's own latency
    running -= 1;
    return { body: pod('p', '2') };
  };
  server.route((r) => (r.method === 'GET' ? answer() : undefined));
  const client = new ClusterClient(server.kubeConfig(), { rateLimit: { qps: Infinity, burst: 1_000 } });
  t.teardown(() => client.stop());
  const burst = (): Promise<unknown[]> =>
    Promise.all(Array.from({ length: 200 }, (_, i) => client.call('other', operation('get', `pod ns/p${i}`), (core, o) => core.readNamespacedPod({ name: 'p', namespace: 'ns' }, o))));
  await burst();
  await burst();
  t.equal(server.requests.length, 400);
  t.ok(most <= 32, `at most 32 requests reached the server at once (saw ${most})`);
  t.ok(server.tlsHandshakes <= 32, `400 requests over at most 32 TLS connections (saw ${server.tlsHandshakes})`);
});

t.test('Events have a budget of their own: a backlog of them does not hold up a read of the host', { timeout: 20_000 }, async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'POST' ? { body: { metadata: { name: 'e' } } } : r.method === 'GET' ? { body: pod('p', '2') } : undefined));
  // One token each, refilled only on a clock that never moves.
  const clock = new ManualClock();
  const client = new ClusterClient(server.kubeConfig(), { clock, rateLimit: { qps: 1, burst: 1 }, eventRateLimit: { qps: 1, burst: 1 } });
  t.teardown(() => client.stop());
  const events = client.eventRecorder({ reportingInstance: 'vk-1', clock });
  for (let i = 0; i < 5; i++) events.record({ kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: `p${i}`, uid: `u${i}` }, 'Normal', 'Pulled', 'remote event', 'Reflect');
  t.equal(client.rateLimiterStats().event.queued, 4, 'the Events beyond the budget wait in their own queue');
  const read = await client.call('other', operation('get', 'pod ns/p'), (core, o) => core.readNamespacedPod({ name: 'p', namespace: 'ns' }, o));
  t.match(read, { metadata: { name: 'p' } }, 'the read goes out on the host budget, ahead of the Events');
  t.equal(client.rateLimiterStats().other.queued, 0);
});

t.test('Events past the bound of their queue are dropped unsent, as client-go drops them; the rest still go out', { timeout: 20_000 }, async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'POST' ? { body: { metadata: { name: 'e' } } } : undefined));
  const clock = new ManualClock();
  const client = new ClusterClient(server.kubeConfig(), { clock, eventRateLimit: { qps: 1, burst: 1 } });
  t.teardown(() => client.stop());
  const events = client.eventRecorder({ reportingInstance: 'vk-1', clock });
  for (let i = 0; i < 1_010; i++) events.record({ kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: `p${i}`, uid: `u${i}` }, 'Normal', 'Pulled', 'remote event', 'Reflect');
  const stats = client.rateLimiterStats().event;
  t.equal(stats.queued, 1_000, 'at most 1,000 Events wait');
  t.equal(stats.dropped, 9, 'one sent, 1,000 queued, the other 9 dropped');
});
