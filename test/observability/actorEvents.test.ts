/**
 * `/actors/events`: changes coalesced per interval into one event per client, restricted to the
 * client's node; too many at once is a resync; a reader that stops reading is skipped and then
 * dropped, and what its socket holds never grows past the bound.
 */
import t, { type Test } from 'tap';
import { request } from 'node:http';
import { startIntrospectionServer, type IntrospectionServer } from '../../src/observability/introspectionServer.js';
import { until } from '../support/until.js';
import { FakeTree } from './fakeTree.js';

interface SseEvent { event: string; data: unknown }

/** Reads an event stream into `events` until the test ends. */
async function subscribe(t: Test, server: IntrospectionServer, query: string): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const controller = new AbortController();
  t.teardown(() => controller.abort());
  const res = await fetch(`${server.url}/actors/events${query}`, { signal: controller.signal });
  t.equal(res.headers.get('content-type'), 'text/event-stream');
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data !== undefined) events.push({ event, data: JSON.parse(data) as unknown });
        }
      }
    } catch {
      // aborted at teardown
    }
  })();
  await until('hello', () => events.some((e) => e.event === 'hello'));
  return events;
}

t.test('changes within an interval come as one event, only for the subscribed node', async (t) => {
  const tree = new FakeTree();
  const a = tree.addNode('vk-a');
  const b = tree.addNode('vk-b');
  const pod = tree.addPod(a.shards[0]!, 'uid-1', 'shop', 'web-1');
  const server = await startIntrospectionServer({ agent: tree.agent(), port: 0, events: { intervalMs: 50 } });
  t.teardown(() => server.stop());
  const events = await subscribe(t, server, '?node=vk-a');
  for (let i = 0; i < 10; i++) {
    pod.restarts = i + 1;
    tree.registry.changes.touched(pod.path);
    tree.registry.changes.touched(b.lease.path);
  }
  await until('a change event', () => events.some((e) => e.event === 'changes'));
  const first = events.find((e) => e.event === 'changes')!.data as { changed: Array<{ path: string; restarts: number }>; removed: string[] };
  t.same(first.changed.map((c) => [c.path, c.restarts]), [[pod.path, 10]], 'ten changes of one pod coalesced into its latest snapshot; nothing of vk-b');
  tree.remove(pod);
  await until('the removal', () => events.some((e) => e.event === 'changes' && (e.data as { removed: string[] }).removed.includes(pod.path)));
  for (let i = 0; i < 500; i++) tree.addPod(a.shards[1]!, `uid-new-${i}`, 'shop', `new-${i}`);
  await until('too many at once is a resync', () => events.some((e) => e.event === 'resync'));
});

t.test('a reader that stops reading is skipped, then dropped; its socket never holds more than the bound and one event', async (t) => {
  const tree = new FakeTree();
  const { shards } = tree.addNode('vk', 4);
  const pods = Array.from({ length: 150 }, (_, i) => tree.addPod(shards[i % 4]!, `uid-${i}`, 'ns', `p-${i}-${'x'.repeat(300)}`));
  const maxQueuedBytes = 64 * 1024;
  const server = await startIntrospectionServer({ agent: tree.agent(), port: 0, events: { intervalMs: 10, maxQueuedBytes, dropAfterTicks: 5 } });
  t.teardown(() => server.stop());
  const slow = request(`${server.url}/actors/events`);
  const responded = new Promise<void>((resolve) => slow.on('response', (res) => {
    res.pause(); // reads nothing more, ever
    resolve();
  }));
  slow.on('error', () => undefined);
  slow.end();
  await responded;
  let round = 0;
  await until('the stalled reader is dropped', () => {
    for (const pod of pods) {
      pod.restarts = ++round;
      tree.registry.changes.touched(pod.path);
    }
    return server.eventStats().dropped === 1;
  }, 60_000);
  const stats = server.eventStats();
  t.equal(stats.clients, 0);
  t.ok(stats.maxQueuedBytes <= maxQueuedBytes + 100 * 1024, `at most ${stats.maxQueuedBytes} bytes held for it`);
  slow.destroy();
});
