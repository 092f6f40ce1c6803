/**
 * The kubelet API's routes and access decisions, with a fake reviewer (the real TokenReview and
 * SubjectAccessReview path is in test/e2e/kubectlLogs.test.ts) and the simulated provider.
 */
import { request } from 'node:https';
import t, { type Test } from 'tap';
import { FakeAccessReviewer } from '../support/fakeAccessReviewer.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { requestAttributes, subresourceOf } from '../../src/kubelet/access.js';
import { startKubeletServer, type KubeletServer } from '../../src/kubelet/kubeletServer.js';
import { parseLogOptions } from '../../src/kubelet/logQuery.js';
import { waitFor } from '../harness/waitFor.js';

const pod = { metadata: { name: 'web', namespace: 'shop', uid: 'u1' }, spec: { containers: [{ name: 'app', image: 'x' }] } };

function get(server: KubeletServer, path: string, token?: string, onData?: (text: string, destroy: () => void) => void): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`https://127.0.0.1:${server.port}${path}`, { rejectUnauthorized: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
        onData?.(body, () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function setup(t: Test): Promise<{ server: KubeletServer; provider: SimulatedProvider; reviewer: FakeAccessReviewer }> {
  const provider = new SimulatedProvider({ startLatencyMs: 0, logIntervalMs: 20 });
  provider.notifyPods(() => undefined);
  await provider.createPod(structuredClone(pod));
  await waitFor('running', async () => (await provider.getPodStatus('shop', 'web'))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  const reviewer = new FakeAccessReviewer();
  const server = await startKubeletServer({ nodeName: 'vk-1', provider, reviewer, address: '127.0.0.1', port: 0 });
  t.teardown(async () => {
    await server.stop();
    void provider.stop();
  });
  return { server, provider, reviewer };
}

t.test('anonymous and unknown tokens get 401; a user without the right gets 403 naming the attributes', async (t) => {
  const { server, reviewer } = await setup(t);
  t.equal((await get(server, '/pods')).status, 401);
  t.equal((await get(server, '/pods', 'nope')).status, 401);
  const denied = await get(server, '/containerLogs/shop/web/app', 'weak');
  t.equal(denied.status, 403);
  t.match(denied.body, 'Forbidden (user=bob, verb=get, resource=nodes, subresource=proxy): no RBAC rule');
  t.same(reviewer.asked.at(-1), { verb: 'get', resource: 'nodes', subresource: 'proxy', name: 'vk-1' });
});

t.test('logs: tailLines, timestamps, limitBytes; unknown pod 404, unknown container 400, bad query 400', async (t) => {
  const { server } = await setup(t);
  await waitFor('three lines', async () => (await get(server, '/containerLogs/shop/web/app', 'good')).body.split('\n').length > 3, { timeoutMs: 5_000, intervalMs: 20 });
  const tail = await get(server, '/containerLogs/shop/web/app?tailLines=2', 'good');
  t.equal(tail.status, 200);
  t.match(tail.body, /^web\/app line \d+\nweb\/app line \d+\n$/);
  t.match((await get(server, '/containerLogs/shop/web/app?tailLines=1&timestamps=true', 'good')).body, /^\d{4}-\d\d-\d\dT[\d:.]+Z web\/app line \d+\n$/);
  t.equal((await get(server, '/containerLogs/shop/web/app?limitBytes=5', 'good')).body, 'web/a');
  t.equal((await get(server, '/containerLogs/shop/nope/app', 'good')).status, 404);
  t.equal((await get(server, '/containerLogs/shop/web/other', 'good')).status, 400);
  const bad = await get(server, '/containerLogs/shop/web/app?tailLines=-3', 'good');
  t.equal(bad.status, 400);
  t.match(bad.body, /tailLines/);
});

t.test('logs: follow streams new lines until the client goes away', async (t) => {
  const { server } = await setup(t);
  const followed = await get(server, '/containerLogs/shop/web/app?follow=true&tailLines=1', 'good', (text, stop) => {
    if (text.split('\n').length > 4) stop();
  });
  const numbers = followed.body.trim().split('\n').map((l) => Number(/line (\d+)$/.exec(l)?.[1]));
  t.ok(numbers.length >= 4, `${numbers.length} lines`);
  t.ok(numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1), 'consecutive');
});

t.test('/pods, /healthz; exec/attach/portForward without an upgrade get 400, /run 501, unknown paths 404', async (t) => {
  const { server } = await setup(t);
  const pods = await get(server, '/pods', 'good');
  t.match(JSON.parse(pods.body), { kind: 'PodList', items: [{ metadata: { name: 'web' } }] });
  t.equal((await get(server, '/healthz', 'good')).body, 'ok\n');
  for (const path of ['/exec/shop/web/app?command=sh', '/attach/shop/web/app', '/portForward/shop/web']) {
    const res = await get(server, path, 'good');
    t.equal(res.status, 400, path);
    t.match(res.body, /needs a WebSocket upgrade request/);
  }
  t.equal((await get(server, '/run/shop/web/app', 'good')).status, 501);
  t.equal((await get(server, '/nope', 'good')).status, 404);
});

t.test('request attributes as the kubelet maps them', async (t) => {
  t.equal(subresourceOf('/containerLogs/a/b/c'), 'proxy');
  t.equal(subresourceOf('/stats/summary'), 'stats');
  t.equal(subresourceOf('/logs/'), 'log');
  t.equal(subresourceOf('/metrics'), 'metrics');
  t.same(requestAttributes('n', 'POST', '/exec/a/b/c'), { verb: 'create', resource: 'nodes', subresource: 'proxy', name: 'n' });
});

t.test('log query parsing', async (t) => {
  const q = (s: string): ReturnType<typeof parseLogOptions> => parseLogOptions(new URLSearchParams(s), Date.parse('2026-01-01T00:01:00Z'));
  t.same(q('follow=true&tailLines=2&timestamps=1&limitBytes=10&previous=false'), { follow: true, previous: false, timestamps: true, tailLines: 2, limitBytes: 10 });
  t.same(q('sinceTime=2026-01-01T00:00:00Z'), { sinceSeconds: 60 });
  t.same(q('sinceSeconds=5'), { sinceSeconds: 5 });
  t.throws(() => q('follow=maybe'), /follow/);
  t.throws(() => q('sinceSeconds=1&sinceTime=2026-01-01T00:00:00Z'), /at most one/);
  t.throws(() => q('sinceTime=yesterday'), /sinceTime/);
});
