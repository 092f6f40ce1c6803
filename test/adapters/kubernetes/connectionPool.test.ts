import https from 'node:https';
import t from 'tap';
import { until } from '../../support/until.js';
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { ConnectionPool, pooledKubeConfig } from '../../../src/adapters/kubernetes/connectionPool.js';
import { createKubeClients } from '../../../src/adapters/kubernetes/kubeClients.js';
import {MockApiServer, pod} from './mockApiServer.js';

async function podServer(): Promise<MockApiServer> {
  const server = await MockApiServer.start({ tls: true });
  server.route((r) => (r.method === 'GET' && r.url.pathname.startsWith('/api/v1/namespaces/ns/pods/') ? { body: pod('p', '1') } : undefined));
  return server;
}

t.test('client-node alone: one TLS handshake per request', async (t) => {
  const server = await podServer();
  t.teardown(() => server.close());
  const core = server.kubeConfig().makeApiClient(CoreV1Api);
  for (let i = 0; i < 5; i++) await core.readNamespacedPod({ name: 'p', namespace: 'ns' });
  t.equal(server.tlsHandshakes, 5, 'this is the 1.4 behaviour the pool fixes');
});

t.test('pooled: sequential requests reuse one TLS connection', async (t) => {
  const server = await podServer();
  const pool = new ConnectionPool();
  t.teardown(async () => {
    await pool.stop();
    await server.close();
  });
  const core = pooledKubeConfig(server.kubeConfig(), pool).makeApiClient(CoreV1Api);
  for (let i = 0; i < 5; i++) {
    const got = await core.readNamespacedPod({ name: 'p', namespace: 'ns' });
    t.equal(got.metadata?.name, 'p');
  }
  t.equal(server.tlsHandshakes, 1);
  t.same(pool.stats(), { agentsCreated: 1, requestsPooled: 5, requestsUnpooled: 0 });
  t.equal(server.requests.at(-1)?.headers.authorization, 'Bearer secret-token', 'auth still applied per request');
});

t.test('pooled: watches go through the same pool', async (t) => {
  const server = await podServer();
  server.route((r) => (r.url.searchParams.get('watch') === 'true' ? 'watch' : undefined));
  const pool = new ConnectionPool();
  const kc = pooledKubeConfig(server.kubeConfig(), pool);
  const controller = await new Watch(kc).watch('/api/v1/pods', {}, () => undefined, () => undefined);
  t.teardown(async () => {
    controller.abort();
    await pool.stop();
    await server.close();
  });
  await until('the watch to connect', () => server.watches.length === 1);
  const core = kc.makeApiClient(CoreV1Api);
  await core.readNamespacedPod({ name: 'p', namespace: 'ns' });
  await core.readNamespacedPod({ name: 'p', namespace: 'ns' });
  t.equal(pool.stats().agentsCreated, 1, 'one agent for watch and requests');
  t.equal(server.tlsHandshakes, 2, 'one connection held by the watch, one reused by the requests');
});

t.test('KubeClients pools by default and can opt out', async (t) => {
  const server = await podServer();
  t.teardown(() => server.close());
  const pooled = createKubeClients(server.kubeConfig(), { nodeName: 'vk-1' });
  for (let i = 0; i < 4; i++) await pooled.pods.getPod('ns', 'p');
  await pooled.stop();
  t.equal(server.tlsHandshakes, 1);
  const plain = createKubeClients(server.kubeConfig(), { nodeName: 'vk-1', connectionPool: false });
  for (let i = 0; i < 3; i++) await plain.pods.getPod('ns', 'p');
  await plain.stop();
  t.equal(server.tlsHandshakes, 4);
});

t.test('a different TLS identity gets its own agent; old idle agents are retired', async (t) => {
  const server = await podServer();
  const pool = new ConnectionPool({ maxAgents: 1 });
  t.teardown(async () => {
    await pool.stop();
    await server.close();
  });
  const kc1 = pooledKubeConfig(server.kubeConfig(), pool);
  await kc1.makeApiClient(CoreV1Api).readNamespacedPod({ name: 'p', namespace: 'ns' });
  const other = server.kubeConfig();
  const cluster = other.getCurrentCluster();
  if (cluster) Object.assign(cluster, { tlsServerName: 'localhost' });
  const kc2 = pooledKubeConfig(other, pool);
  await kc2.makeApiClient(CoreV1Api).readNamespacedPod({ name: 'p', namespace: 'ns' });
  t.equal(pool.stats().agentsCreated, 2);
  await kc1.makeApiClient(CoreV1Api).readNamespacedPod({ name: 'p', namespace: 'ns' });
  t.equal(pool.stats().agentsCreated, 3, 'maxAgents 1: the first identity was retired and is recreated');
});

t.test('each TLS identity keeps its agent when requests alternate between them, whatever Buffers carry it', async (t) => {
  const pool = new ConnectionPool();
  t.teardown(() => pool.stop());
  // client-node builds a new agent, with new Buffers, for every request.
  const template = (ca: string, cert = 'cert'): https.Agent => new https.Agent({ ca: [Buffer.from(ca)], cert: Buffer.from(cert), servername: 'api' });
  const a = pool.agentFor(template('ca-a'));
  const b = pool.agentFor(template('ca-b'));
  t.not(a, b);
  t.equal(pool.agentFor(template('ca-a')), a);
  t.equal(pool.agentFor(template('ca-a')), a, 'the same identity twice running');
  t.equal(pool.agentFor(template('ca-b')), b);
  t.not(pool.agentFor(template('ca-a', 'rotated cert')), a, 'a rotated certificate is another identity');
  t.equal(pool.stats().agentsCreated, 3);
});
