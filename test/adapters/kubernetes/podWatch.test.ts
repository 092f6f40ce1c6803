import t from 'tap';
import { until } from '../../support/until.js';
import type { Test } from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import type { KubeClients } from '../../../src/adapters/kubernetes/kubeClients.js';
import { createKubeClients } from '../../../src/adapters/kubernetes/kubeClients.js';
import type { PodWatch, PodWatchEvent } from '../../../src/adapters/kubernetes/watch.js';
import {MockApiServer, pod, status} from './mockApiServer.js';

interface Fixture {
  server: MockApiServer;
  clock: ManualClock;
  clients: KubeClients;
  watch: PodWatch;
  events: PodWatchEvent[];
  completed: () => boolean;
  /** What the mock apiserver lists and how it answers watch and list requests. */
  state: { items: unknown[]; rv: string; watch: 'hold' | 'fail'; list: 'ok' | 'fail' };
  /** List requests the watch has scheduled so far (counted synchronously at the rate limiter). */
  listsScheduled: () => number;
}

async function setup(t: Test, timing: { watchdogMs?: number; resyncMs?: number } = {}): Promise<Fixture> {
  const server = await MockApiServer.start();
  const state: Fixture['state'] = { items: [pod('a', '5'), pod('b', '6')], rv: '10', watch: 'hold', list: 'ok' };
  server.route((r) => {
    if (r.method !== 'GET' || r.url.pathname !== '/api/v1/pods') return undefined;
    if (r.url.searchParams.get('watch') === 'true') {
      return state.watch === 'hold' ? 'watch' : { status: 500, body: status(500, 'InternalError', 'etcd is sad') };
    }
    if (state.list === 'fail') return { status: 503, body: status(503, 'ServiceUnavailable', 'not ready') };
    return { body: { kind: 'PodList', metadata: { resourceVersion: state.rv }, items: state.items } };
  });
  const clock = new ManualClock();
  const clients = createKubeClients(server.kubeConfig(), {
    nodeName: 'vk-1',
    clock,
    watch: { jitter: 0, watchdogMs: timing.watchdogMs ?? 3_600_000, resyncMs: timing.resyncMs ?? 7_200_000 },
    // Deadlines run on the manual clock too: long ones, so advancing it to the watchdog or resync does not time out a connected watch.
    deadlines: { watchConnect: 3_600_000, list: 3_600_000 },
  });
  const watch = clients.watchPods();
  const events: PodWatchEvent[] = [];
  let done = false;
  watch.events.subscribe({ next: (e) => events.push(e), complete: () => (done = true) });
  t.teardown(async () => {
    void watch.stop();
    await clients.stop();
    await server.close();
  });
  return {
    server, clock, clients, watch, events, state,
    completed: () => done,
    listsScheduled: () => clients.rateLimiterStats().other.started,
  };
}

const summary = (events: PodWatchEvent[]): string[] =>
  events.map((e) => ('pod' in e ? `${e.type} ${e.pod.metadata?.name ?? ''}@${e.pod.metadata?.resourceVersion ?? ''}` : e.type));
const count = (events: PodWatchEvent[], type: PodWatchEvent['type']): number => events.filter((e) => e.type === type).length;

t.test('initial list fills the cache, then "synced"; both requests carry the node field selector', async (t) => {
  const f = await setup(t);
  f.watch.start();
  await until('the watch to open', () => f.server.watches.length === 1);
  t.same(summary(f.events), ['added a@5', 'added b@6', 'synced']);
  t.ok(f.watch.hasSynced());
  t.same(f.watch.list().map((p) => p.metadata?.name).sort(), ['a', 'b']);
  t.equal(f.watch.get('default', 'a')?.metadata?.uid, 'uid-a');
  for (const r of f.server.matching('GET', '/api/v1/pods')) t.equal(r.url.searchParams.get('fieldSelector'), 'spec.nodeName=vk-1');
  t.equal(f.server.watches[0]?.url.searchParams.get('resourceVersion'), '10', 'watch starts at the list resourceVersion');
});

t.test('watch events: duplicates suppressed, a recreated pod is delete + add', async (t) => {
  const f = await setup(t);
  f.watch.start();
  await until('the watch to open', () => f.server.watches.length === 1);
  const stream = f.server.watches[0];
  stream?.send('ADDED', pod('c', '11'));
  stream?.send('MODIFIED', pod('c', '12'));
  stream?.send('MODIFIED', pod('c', '12'));
  stream?.send('ADDED', pod('a', '13', { uid: 'uid-a2' }));
  stream?.send('DELETED', pod('c', '14'));
  await until('the events', () => f.events.length >= 8);
  t.same(summary(f.events).slice(3), ['added c@11', 'updated c@12', 'deleted a@5', 'added a@13', 'deleted c@14']);
  t.equal(f.watch.get('default', 'a')?.metadata?.uid, 'uid-a2');
});

t.test('after a non-410 error the watch restarts with exponential backoff, and never after stop()', async (t) => {
  const f = await setup(t);
  f.state.watch = 'fail';
  f.watch.start();
  await until('the first watch failure', () => count(f.events, 'error') === 1);
  t.equal(f.listsScheduled(), 1);
  f.clock.advance(999);
  t.equal(f.listsScheduled(), 1, 'no restart before the 1 s backoff');
  f.clock.advance(1);
  t.equal(f.listsScheduled(), 2, 'restarted (full re-list) after 1 s');
  await until('the second watch failure', () => count(f.events, 'error') === 2);
  f.clock.advance(1999);
  t.equal(f.listsScheduled(), 2, 'second backoff is 2 s');
  f.clock.advance(1);
  t.equal(f.listsScheduled(), 3);
  await until('the third watch failure', () => count(f.events, 'error') === 3);
  f.state.watch = 'hold';
  f.clock.advance(4000);
  await until('the watch to recover', () => f.server.watches.length === 1);
  t.equal(count(f.events, 'synced'), 4, 'every successful list reports synced');
  t.same(summary(f.events).filter((s) => s.startsWith('added')), ['added a@5', 'added b@6'], 'no duplicate adds across restarts');
  const errorsBefore = count(f.events, 'error');
  void f.watch.stop();
  t.ok(f.completed(), 'events complete on stop');
  f.clock.advance(3_600_000);
  t.equal(f.listsScheduled(), 4, 'stop() (which makes ListWatch emit an abort error) does not restart');
  t.equal(count(f.events, 'error'), errorsBefore);
});

t.test('stop() while a restart is pending cancels it', async (t) => {
  const f = await setup(t);
  f.state.watch = 'fail';
  f.watch.start();
  await until('the watch failure', () => count(f.events, 'error') === 1);
  void f.watch.stop();
  f.clock.advance(60_000);
  t.equal(f.listsScheduled(), 1);
});

t.test('a failed list is an error, never "no pods"; synced comes only after a list succeeds', async (t) => {
  const f = await setup(t);
  f.state.list = 'fail';
  f.watch.start();
  await until('the list failure', () => count(f.events, 'error') === 1);
  t.notOk(f.watch.hasSynced());
  t.equal(count(f.events, 'synced'), 0);
  const err = f.events.find((e) => e.type === 'error');
  t.match(err && 'error' in err ? err.error.message : '', /not ready/);
  f.state.list = 'ok';
  f.clock.advance(1000);
  await until('the retried list', () => f.watch.hasSynced());
  t.same(summary(f.events).slice(1), ['added a@5', 'added b@6', 'synced']);
});

t.test('410 Gone: ListWatch re-lists by itself and vanished pods are reported deleted', async (t) => {
  const f = await setup(t);
  f.watch.start();
  await until('the watch to open', () => f.server.watches.length === 1);
  f.state.items = [pod('a', '5')];
  f.state.rv = '30';
  f.server.watches[0]?.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' });
  f.server.watches[0]?.end();
  await until('the re-list', () => count(f.events, 'synced') === 2);
  t.same(summary(f.events), ['added a@5', 'added b@6', 'synced', 'deleted b@6', 'synced']);
  t.equal(count(f.events, 'error'), 0, 'no backoff or error for 410');
  await until('the new watch', () => f.server.watches.length === 2);
  t.equal(f.server.watches[1]?.url.searchParams.get('resourceVersion'), '30');
});

t.test('periodic resync emits what a silent watch missed', async (t) => {
  const f = await setup(t, { resyncMs: 600_000 });
  f.watch.start();
  await until('the watch to open', () => f.server.watches.length === 1);
  f.state.items = [pod('b', '21'), pod('d', '22')];
  f.state.rv = '22';
  f.clock.advance(600_000);
  await until('the resync', () => count(f.events, 'synced') === 2);
  t.same(summary(f.events).slice(3), ['updated b@21', 'added d@22', 'deleted a@5', 'synced']);
  t.equal(f.server.watches.length, 1, 'the watch itself was not restarted');
});

t.test('a stalled watch is restarted by the watchdog', async (t) => {
  const f = await setup(t, { watchdogMs: 300_000 });
  f.watch.start();
  await until('the watch to open', () => f.server.watches.length === 1);
  f.clock.advance(299_999);
  t.equal(f.listsScheduled(), 1);
  f.clock.advance(1);
  t.equal(f.listsScheduled(), 2, 'restarted with a full list');
  await until('the new watch', () => f.server.watches.length === 2);
  t.same(summary(f.events), ['added a@5', 'added b@6', 'synced', 'synced'], 'an unchanged re-list emits no changes');
});

t.test('the cache holds no managedFields, listed or watched (as client-go\'s TransformStripManagedFields)', async (t) => {
  const f = await setup(t);
  const managed = (name: string, rv: string): Record<string, unknown> => {
    const p = pod(name, rv) as { metadata: Record<string, unknown> };
    p.metadata['managedFields'] = [{ manager: 'kube-scheduler', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': {} } }];
    return p;
  };
  f.state.items = [managed('a', '5')];
  f.watch.start();
  await until('the watch to open', () => f.server.watches.length === 1);
  f.server.watches[0]?.send('ADDED', managed('c', '11'));
  await until('the watched pod', () => f.watch.get('default', 'c') !== undefined);
  for (const name of ['a', 'c']) {
    const cached = f.watch.get('default', name);
    t.equal(cached?.metadata?.uid, `uid-${name}`, `${name} is cached`);
    t.equal(cached?.metadata?.managedFields, undefined, `${name} without its managedFields`);
  }
  const delivered = f.events.flatMap((e) => ('pod' in e ? [e.pod] : []));
  t.ok(delivered.length >= 2 && delivered.every((p) => p.metadata?.managedFields === undefined), 'nor do the events carry them');
});
