/**
 * `/actors` filters and cursors, and `/actors/summary`, specified against a fake tree: state,
 * role, text, restarted and error filters; counts node → role → state that agree with the lists;
 * every answer under 100 KiB at 10,000 pods.
 */
import t, { type Test } from 'tap';
import { startIntrospectionServer, type IntrospectionServer } from '../../src/observability/introspectionServer.js';
import type { TreeSummary } from '../../src/observability/actorSummary.js';
import type { ActorSnapshot } from '../../src/runtime/actorRegistry.js';
import { FakeTree, type FakeCell } from './fakeTree.js';

interface ActorPage { items: ActorSnapshot[]; count: number; cursor?: string; continue?: string }

async function serve(t: Test, tree: FakeTree): Promise<IntrospectionServer> {
  const server = await startIntrospectionServer({ agent: tree.agent(), port: 0 });
  t.teardown(() => server.stop());
  return server;
}

async function get(server: IntrospectionServer, path: string): Promise<{ bytes: number; body: unknown }> {
  const res = await fetch(`${server.url}${path}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${res.status}: ${text}`);
  return { bytes: Buffer.byteLength(text), body: JSON.parse(text) as unknown };
}

const page = async (server: IntrospectionServer, query: string): Promise<ActorPage> => (await get(server, `/actors${query}`)).body as ActorPage;
const summary = async (server: IntrospectionServer, query = ''): Promise<TreeSummary> => (await get(server, `/actors/summary${query}`)).body as TreeSummary;

function troubledTree(): { tree: FakeTree; crashed: FakeCell; retrying: FakeCell } {
  const tree = new FakeTree();
  const a = tree.addNode('vk-a');
  tree.addPod(a.shards[0]!, 'uid-1', 'shop', 'web-1');
  tree.addPod(a.shards[1]!, 'uid-2', 'shop', 'web-2', 'Pending');
  const crashed = tree.addPod(a.shards[0]!, 'uid-3', 'blog', 'db-0');
  crashed.status = 'restarting';
  crashed.restarts = 2;
  crashed.lastError = { message: 'provider exploded', at: '2026-01-01T00:00:00.000Z' };
  const retrying = tree.addPod(a.shards[1]!, 'uid-4', 'blog', 'cache-0', null);
  retrying.summary = { ...retrying.summary, lastError: 'quota exceeded' };
  return { tree, crashed, retrying };
}

const names = (p: ActorPage): unknown[] => p.items.map((i) => i.summary?.['name'] ?? i.name);

t.test('/actors filters by state, role, text, restarted and error', async (t) => {
  const server = await serve(t, troubledTree().tree);
  t.same(names(await page(server, '?state=running&role=pod')), ['web-1']);
  t.same(names(await page(server, '?state=pending,restarting')), ['db-0', 'web-2']);
  t.same(names(await page(server, '?state=erroring')), ['cache-0']);
  t.same(names(await page(server, '?q=BLOG/')), ['db-0', 'cache-0'], 'namespace/name, case-insensitive');
  t.same(names(await page(server, '?q=web-2')), ['web-2']);
  t.same(names(await page(server, '?restarted=true')), ['db-0']);
  t.same(names(await page(server, '?error=quota')), ['cache-0'], 'the error a pod reports it is retrying');
  t.same(names(await page(server, '?error=*')), ['db-0', 'cache-0'], 'any error');
  t.same(names(await page(server, '?role=lease')), ['lease']);
  for (const bad of ['?state=sleepy', '?restarted=yes']) t.equal((await fetch(`${server.url}/actors${bad}`)).status, 400, bad);
});

t.test('/actors pages with cursor, and continue still works as its alias', async (t) => {
  const server = await serve(t, troubledTree().tree);
  const first = await page(server, '?role=pod&limit=2');
  t.equal(first.cursor, first.continue);
  const byCursor = await page(server, `?role=pod&limit=2&cursor=${first.cursor}`);
  const byContinue = await page(server, `?role=pod&limit=2&continue=${first.continue}`);
  t.same(byCursor.items, byContinue.items);
  t.same([...names(first), ...names(byCursor)], ['web-1', 'db-0', 'web-2', 'cache-0']);
  t.notOk(byCursor.cursor, 'the last page has no cursor');
});

t.test('/actors/summary groups node → role → state with counts and restarts at every level', async (t) => {
  const { tree } = troubledTree();
  tree.addNode('vk-b');
  const server = await serve(t, tree);
  const all = await summary(server);
  t.same(all.nodes.map((n) => n.node), ['', 'vk-a', 'vk-b'], 'the root outside any node, then the nodes');
  const a = all.nodes.find((n) => n.node === 'vk-a')!;
  t.equal(a.restarts, 2);
  const pods = a.roles.find((r) => r.role === 'pod')!;
  t.same({ count: pods.count, restarts: pods.restarts }, { count: 4, restarts: 2 });
  t.same(pods.states.map((s) => [s.state, s.count, s.restarts]), [['erroring', 1, 0], ['pending', 1, 0], ['restarting', 1, 2], ['running', 1, 0]]);
  const filtered = await summary(server, '?node=vk-a&q=blog');
  t.same(filtered.nodes.map((n) => [n.node, n.count]), [['vk-a', 2]], 'the same filters as /actors');
});

t.test('at 10,000 pods every answer stays under 100 KiB, and the counts match the lists', async (t) => {
  const tree = new FakeTree();
  const { shards } = tree.addNode('big', 16);
  for (let i = 0; i < 10_000; i++) {
    const pod = tree.addPod(shards[i % 16]!, `uid-${String(i).padStart(5, '0')}`, `ns-${i % 7}`, `pod-${i}`, i % 10 === 0 ? 'Pending' : 'Running');
    if (i % 100 === 0) {
      pod.restarts = 1;
      pod.lastError = { message: `crash ${'x'.repeat(200)}`, at: '2026-01-01T00:00:00.000Z' };
    }
  }
  const server = await serve(t, tree);
  const whole = await get(server, '/actors');
  t.ok(whole.bytes < 100 * 1024, `/actors without a limit: ${whole.bytes} bytes`);
  t.ok((whole.body as ActorPage).cursor, 'and a cursor to the rest');
  const sum = await get(server, '/actors/summary');
  t.ok(sum.bytes < 100 * 1024, `/actors/summary: ${sum.bytes} bytes`);
  const pods = (sum.body as TreeSummary).nodes.find((n) => n.node === 'big')!.roles.find((r) => r.role === 'pod')!;
  t.equal(pods.count, 10_000);
  t.equal(pods.restarts, 100);
  const pending = pods.states.find((s) => s.state === 'pending')!;
  let listed = 0;
  let cursor: string | undefined;
  do {
    const p = await get(server, `/actors?node=big&role=pod&state=pending&limit=5000${cursor ? `&cursor=${cursor}` : ''}`);
    t.ok(p.bytes < 100 * 1024, `a page of ${p.bytes} bytes`);
    listed += (p.body as ActorPage).count;
    cursor = (p.body as ActorPage).cursor;
  } while (cursor);
  t.equal(listed, pending.count, 'the pending list is as long as the pending count');
});
