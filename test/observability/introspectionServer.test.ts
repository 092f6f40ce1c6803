/**
 * The introspection port, specified against a fake tree: selection, depth and pagination of
 * /actors (JSON and NDJSON), the probes, the page, and the metrics derived from the tree.
 */
import t, { type Test } from 'tap';
import { request as httpRequest } from 'node:http';
import { hostAllowed, hostOf, startIntrospectionServer, type IntrospectionServer } from '../../src/observability/introspectionServer.js';
import { TetherMetrics } from '../../src/observability/metrics.js';
import type { ActorSnapshot } from '../../src/runtime/actorRegistry.js';
import { ManualClock } from '../support/manualClock.js';
import { FakeTree } from './fakeTree.js';

interface ActorPage {
  items: ActorSnapshot[];
  count: number;
  continue?: string;
}

async function serve(t: Test, tree: FakeTree, metrics?: TetherMetrics): Promise<IntrospectionServer> {
  const server = await startIntrospectionServer({ agent: tree.agent(), port: 0, ...(metrics ? { metrics } : {}) });
  t.teardown(() => server.stop());
  return server;
}

async function page(server: IntrospectionServer, query: string): Promise<ActorPage> {
  const res = await fetch(`${server.url}/actors${query}`);
  if (res.status !== 200) throw new Error(`${res.status}: ${await res.text()}`);
  return (await res.json()) as ActorPage;
}

function sampleTree(): FakeTree {
  const tree = new FakeTree();
  const a = tree.addNode('vk-a');
  const b = tree.addNode('vk-b');
  tree.addPod(a.shards[0]!, 'uid-1', 'shop', 'web-1');
  tree.addPod(a.shards[1]!, 'uid-2', 'shop', 'web-2', 'Pending');
  tree.addPod(b.shards[0]!, 'uid-3', 'blog', 'db-0', 'Failed');
  return tree;
}

t.test('GET /actors: the whole tree in pre-order, children in path order', async (t) => {
  const server = await serve(t, sampleTree());
  const all = await page(server, '');
  t.equal(all.count, all.items.length);
  t.equal(all.items[0]?.path, 'tether');
  t.equal(all.items[1]?.path, 'tether/node-vk-a');
  t.notOk(all.continue, 'no continue without a limit');
  const paths = all.items.map((i) => i.path);
  t.same(paths, [...paths].sort(), 'pre-order with sorted children is path order here');
  t.equal(all.items.filter((i) => i.kind === 'pod').length, 3);
});

t.test('GET /actors: node, namespace, pod, path and depth select a part', async (t) => {
  const server = await serve(t, sampleTree());
  const node = await page(server, '?node=vk-b');
  t.equal(node.items.length, 8, "vk-b's subtree: the node, its lease, node actor, pod controller, shard group, two shards and one pod");
  t.ok(node.items.every((i) => i.path.startsWith('tether/node-vk-b')), 'nothing of vk-a');
  t.same((await page(server, '?namespace=shop')).items.map((i) => i.summary?.['name']), ['web-1', 'web-2']);
  t.same((await page(server, '?pod=blog/db-0')).items.map((i) => i.path), ['tether/node-vk-b/pods/shard-00/uid-3']);
  t.same((await page(server, '?namespace=shop&pod=web-2')).items.map((i) => i.summary?.['name']), ['web-2']);
  t.same((await page(server, '?node=vk-a&depth=1')).items.map((i) => i.name), ['node-vk-a', 'lease', 'node', 'pod-controller', 'pods']);
  t.same((await page(server, '?path=tether/node-vk-a/pods/shard-01')).items.map((i) => i.name), ['shard-01', 'uid-2']);
  t.same((await page(server, '?node=nope')).items, [], 'an unknown node selects nothing');
});

t.test('GET /actors: bad parameters are a 400 naming the parameter', async (t) => {
  const server = await serve(t, sampleTree());
  for (const [query, pattern] of [['?depth=-1', /depth/], ['?limit=x', /limit/], ['?limit=0', /limit/], ['?continue=%%%', /continue/]] as const) {
    const res = await fetch(`${server.url}/actors${query}`);
    t.equal(res.status, 400, query);
    t.match(await res.text(), pattern);
  }
  const outside = Buffer.from('elsewhere/x').toString('base64url');
  t.equal((await fetch(`${server.url}/actors?node=vk-a&continue=${outside}`)).status, 400, 'a token outside the subtree');
});

t.test('GET /actors: 20k pods page through exactly once each, each actor snapshotted about once, even when pods go between pages', async (t) => {
  // Linear time is shown by the work counted (snapshots taken over all pages), not by a clock: a
  // walk that restarted from the top on every page would take pages × pods / 2 of them.
  const total = 20_000;
  const tree = new FakeTree();
  const { shards } = tree.addNode('big', 32);
  const cells = [];
  for (let i = 0; i < total; i++) cells.push(tree.addPod(shards[i % 32]!, `uid-${String(i).padStart(6, '0')}`, `ns-${i % 10}`, `pod-${i}`));
  const server = await serve(t, tree);
  const seen = new Set<string>();
  let token: string | undefined;
  let pages = 0;
  let duplicates = 0;
  const before = tree.counts.snapshots;
  do {
    const p = await page(server, `?limit=1000${token ? `&continue=${token}` : ''}`);
    for (const item of p.items) {
      if (seen.has(item.path)) duplicates++;
      seen.add(item.path);
    }
    token = p.continue;
    pages++;
    // A pod just returned, and one not yet returned, disappear between pages.
    if (pages === 3) {
      const last = p.items.at(-1)!.path;
      tree.remove(cells.find((c) => c.path === last)!);
      tree.remove(cells.find((c) => !seen.has(c.path))!);
    }
  } while (token);
  const snapshots = tree.counts.snapshots - before;
  t.equal(duplicates, 0, 'no actor on two pages');
  const pods = [...seen].filter((p) => p.includes('/uid-')).length;
  t.equal(pods, total - 1, 'every pod still present once; the one removed ahead is not shown');
  t.ok(pages >= 20, `${pages} pages`);
  t.ok(snapshots <= seen.size + pages * 2, `${snapshots} snapshots for ${seen.size} actors over ${pages} pages`);
  // Without a limit the tree still comes in bounded pages: NDJSON pages end with a cursor line.
  let ndjsonItems = 0;
  let cursor: string | undefined;
  do {
    const res = await fetch(`${server.url}/actors?format=ndjson${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(res.headers.get('content-type'), 'application/x-ndjson');
    const body = await res.text();
    if (Buffer.byteLength(body) >= 100 * 1024) t.fail(`an NDJSON page of ${Buffer.byteLength(body)} bytes`);
    const lines = body.trim().split('\n').map((l) => JSON.parse(l) as { path?: string; cursor?: string });
    cursor = lines.at(-1)?.cursor;
    ndjsonItems += lines.filter((l) => l.path !== undefined).length;
  } while (cursor);
  t.equal(ndjsonItems, seen.size - 1, 'the whole tree pages through as NDJSON');
});

t.test('NDJSON pages end with a continue line', async (t) => {
  const server = await serve(t, sampleTree());
  const res = await fetch(`${server.url}/actors?limit=2`, { headers: { accept: 'application/x-ndjson' } });
  const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { path?: string; continue?: string });
  t.equal(lines.length, 3);
  t.ok(lines[2]?.continue);
  const next = await fetch(`${server.url}/actors?format=ndjson&limit=1&continue=${lines[2]?.continue}`);
  t.equal((JSON.parse((await next.text()).split('\n')[0]!) as { path: string }).path, 'tether/node-vk-a/lease');
});

t.test('probes: /healthz follows the root, /readyz every node registered and synced', async (t) => {
  const tree = sampleTree();
  const server = await serve(t, tree);
  t.equal((await fetch(`${server.url}/healthz`)).status, 200);
  t.equal(await (await fetch(`${server.url}/readyz`)).text(), 'ok\n');
  tree.synced.set('vk-a', false);
  const unsynced = await fetch(`${server.url}/readyz`);
  t.equal(unsynced.status, 503);
  t.match(await unsynced.text(), /\[-\]node\/vk-a\/watches failed/);
  tree.synced.set('vk-a', true);
  tree.registry.get('tether/node-vk-b/node')!.snapshot = () => ({ ...tree.root.snapshot(), summary: { registered: false } });
  t.match(await (await fetch(`${server.url}/readyz?verbose`)).text(), /\[\+\]node\/vk-a\/registered ok[\s\S]*\[-\]node\/vk-b\/registered failed/);
  tree.root.status = 'stopped';
  t.equal((await fetch(`${server.url}/healthz`)).status, 503);
  t.equal((await fetch(`${server.url}/nope`)).status, 404);
  t.equal((await fetch(`${server.url}/actors`, { method: 'POST' })).status, 405);
});

t.test('GET / is a self-contained page: no external URL, data inserted as text only', async (t) => {
  const server = await serve(t, sampleTree());
  const res = await fetch(`${server.url}/`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/html/);
  t.match(res.headers.get('content-security-policy'), /default-src 'none'/);
  const html = await res.text();
  t.notMatch(html, /https?:\/\//, 'no CDN, no external request');
  t.notMatch(html, /innerHTML/, 'actor data never becomes markup');
  t.match(html, /actors\/summary/);
  t.match(html, /actors\/events/);
});

t.test('the server binds to 127.0.0.1 unless told otherwise', async (t) => {
  const server = await serve(t, sampleTree());
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
});

t.test('/metrics: tree gauges computed at scrape time move with the tree', async (t) => {
  const tree = sampleTree();
  const clock = new ManualClock();
  const metrics = new TetherMetrics({ processMetrics: false, clock }).observe(tree.agent());
  const server = await serve(t, tree, metrics);
  const scrape = async (): Promise<string> => {
    clock.advance(1_100); // past the one-second figure cache
    return (await fetch(`${server.url}/metrics`)).text();
  };
  let body = await scrape();
  t.match(body, /tether_pods\{node="vk-a",phase="Running"\} 1/);
  t.match(body, /tether_pods\{node="vk-b",phase="Failed"\} 1/);
  t.match(body, /tether_actors\{kind="pod",status="running"\} 3/);
  t.match(body, /tether_lease_renew_lag_seconds\{node="vk-a"\} 0.12/);
  t.match(body, /tether_node_ready\{node="vk-a"\} 1/);
  t.match(body, /tether_api_rate_limiter_wait_seconds_total\{node="vk-a",priority="status"\} 0.25/);
  t.match(body, /tether_api_rate_limiter_dropped_total\{node="vk-a",priority="event"\} 7/, 'the Events dropped past their queue bound are counted');
  const shard = tree.registry.get('tether/node-vk-a/pods/shard-00') as Parameters<FakeTree['addPod']>[0];
  const crashing = tree.addPod(shard, 'uid-9', 'shop', 'web-9');
  crashing.status = 'restarting';
  crashing.restarts = 4;
  crashing.mailboxDepth = 7;
  body = await scrape();
  t.match(body, /tether_pods\{node="vk-a",phase="Running"\} 2/);
  t.match(body, /tether_actors\{kind="pod",status="restarting"\} 1/);
  t.match(body, /tether_actor_restarts\{kind="pod"\} 4/);
  t.match(body, /tether_actor_mailbox_depth_max\{kind="pod"\} 7/);
  tree.remove(crashing);
  body = await scrape();
  t.match(body, /tether_pods\{node="vk-a",phase="Running"\} 1/);
  t.notMatch(body, /status="restarting"/);
});

function getWithHost(server: IntrospectionServer, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('the metrics port serves /metrics, /healthz and /readyz, and never the actor tree', async (t) => {
  const tree = sampleTree();
  const server = await startIntrospectionServer({ agent: tree.agent(), port: 0, metrics: new TetherMetrics({ processMetrics: false }), routes: 'probes' });
  t.teardown(() => server.stop());
  for (const path of ['/metrics', '/healthz', '/readyz']) t.equal((await fetch(`${server.url}${path}`)).status, 200, path);
  for (const path of ['/', '/actors', '/actors?format=ndjson']) {
    const res = await fetch(`${server.url}${path}`);
    t.equal(res.status, 404, path);
    t.notMatch(await res.text(), /tether\/node-vk-a/, `${path} shows no actor`);
  }
});

t.test('bound to loopback, only requests addressed to a loopback name are answered (DNS rebinding)', async (t) => {
  const server = await serve(t, sampleTree());
  const port = server.port;
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost', `app.localhost:${port}`]) {
    t.equal((await getWithHost(server, '/actors', host)).status, 200, `Host: ${host}`);
  }
  for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, '127.evil.example']) {
    const res = await getWithHost(server, '/actors', host);
    t.equal(res.status, 421, `Host: ${host}`);
    t.notMatch(res.body, /tether/, 'nothing of the tree');
  }
  const named = await startIntrospectionServer({ agent: sampleTree().agent(), port: 0, allowedHosts: ['tether.internal'] });
  t.teardown(() => named.stop());
  t.equal((await getWithHost(named, '/healthz', `tether.internal:${named.port}`)).status, 200, 'a listed name is answered');
});

t.test('hostOf reads names, IPv4 and IPv6 hosts with or without a port', async (t) => {
  t.equal(hostOf('LocalHost:8080'), 'localhost');
  t.equal(hostOf('[::1]:10256'), '::1');
  t.equal(hostOf('::1'), '::1');
  t.equal(hostOf('10.0.0.1'), '10.0.0.1');
  t.ok(hostAllowed('127.0.0.2:1'));
  t.notOk(hostAllowed(undefined));
});

t.test('a guard decides every request for the actor tree, and never the probes', async (t) => {
  const seen: string[] = [];
  const server = await startIntrospectionServer({
    agent: sampleTree().agent(), port: 0,
    guard: async (req) => {
      seen.push(req.url ?? '');
      return req.headers.authorization === 'Bearer ok' ? { allowed: true } : { allowed: false, code: 401, message: 'Unauthorized' };
    },
  });
  t.teardown(() => server.stop());
  t.equal((await fetch(`${server.url}/actors`)).status, 401);
  t.equal((await fetch(`${server.url}/`)).status, 401);
  t.equal((await fetch(`${server.url}/actors`, { headers: { authorization: 'Bearer ok' } })).status, 200);
  t.equal((await fetch(`${server.url}/healthz`)).status, 200);
  t.same(seen, ['/actors', '/', '/actors']);
});
