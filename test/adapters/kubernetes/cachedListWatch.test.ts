/**
 * Watch resync and connection are bounded (issue 13, item 7): a resync list that never returns
 * fails at the list deadline and the resyncs go on; a watch request the server never answers
 * fails at the connect deadline and the watch restarts.
 */
import t from 'tap';
import { until, drain } from '../../support/until.js';
import { ManualClock } from '../../support/manualClock.js';
import { CachedListWatch, type EngineEvent, type ListResult } from '../../../src/adapters/kubernetes/cachedListWatch.js';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { MockApiServer, pod } from './mockApiServer.js';

const quiet = { debug: () => undefined, warn: () => undefined };

t.test('a resync list that hangs fails at the list deadline, and the next resync still runs', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.url.searchParams.get('watch') === 'true' ? 'watch' : undefined));
  const clock = new ManualClock();
  let lists = 0;
  const list = (): Promise<ListResult<Pod>> => {
    lists += 1;
    // The first resync (the second list) hangs forever, as a list to a frozen API server would.
    if (lists === 2) return new Promise(() => undefined);
    return Promise.resolve({ items: [pod('a', String(lists)) as Pod], resourceVersion: String(lists) });
  };
  const events: EngineEvent<Pod>[] = [];
  const watch = new CachedListWatch<Pod>({
    kubeConfig: server.kubeConfig(), path: '/api/v1/pods', list, clock, log: quiet, description: 'test pods',
    resyncMs: 1_000, listTimeoutMs: 500, watchdogMs: 3_600_000, jitter: 0,
  });
  watch.events.subscribe((e) => events.push(e));
  t.teardown(() => watch.stop());
  watch.start();
  await until('the initial list', () => watch.hasSynced());
  clock.advance(1_000);
  t.equal(lists, 2, 'the resync listed, and that list hangs');
  for (let i = 0; i < 5; i++) {
    clock.advance(500);
    await drain(1);
  }
  t.ok(events.some((e) => e.type === 'error' && /timed out after 500 ms/.test(e.error.message)), 'the hung resync failed at its deadline');
  t.ok(lists >= 3, `resyncs went on after the hung one (${lists} lists)`);
});

t.test('a watch request that is never answered fails at the connect deadline and the watch restarts', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.url.searchParams.get('watch') === 'true' ? 'hang' : undefined));
  const clock = new ManualClock();
  const list = (): Promise<ListResult<Pod>> => Promise.resolve({ items: [], resourceVersion: '1' });
  const events: EngineEvent<Pod>[] = [];
  const watch = new CachedListWatch<Pod>({
    kubeConfig: server.kubeConfig(), path: '/api/v1/pods', list, clock, log: quiet, description: 'test pods',
    connectTimeoutMs: 200, initialBackoffMs: 100, jitter: 0, watchdogMs: 3_600_000, resyncMs: 3_600_000,
  });
  watch.events.subscribe((e) => events.push(e));
  t.teardown(() => watch.stop());
  watch.start();
  const watchRequests = (): number => server.requests.filter((r) => r.url.searchParams.get('watch') === 'true').length;
  await until('the first watch request', () => watchRequests() === 1);
  clock.advance(200);
  await drain(1);
  t.ok(events.some((e) => e.type === 'error' && /timed out after 200 ms/.test(e.error.message)), 'the silent watch failed at its connect deadline');
  clock.advance(100);
  await until('a new watch after the backoff', () => watchRequests() === 2);
  t.pass('restarted');
});

t.test('the watch has the one lifecycle: ready at its first full list; stop answers clean, ends the events and settles done', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.url.searchParams.get('watch') === 'true' ? 'watch' : undefined));
  const clock = new ManualClock();
  let lists = 0;
  const list = (): Promise<ListResult<Pod>> => {
    lists += 1;
    return Promise.resolve({ items: [], resourceVersion: '1' });
  };
  const watch = new CachedListWatch<Pod>({
    kubeConfig: server.kubeConfig(), path: '/api/v1/pods', list, clock, log: quiet, description: 'test pods',
    watchdogMs: 3_600_000, resyncMs: 3_600_000,
  });
  let completed = false;
  watch.events.subscribe({ complete: () => (completed = true) });
  watch.start();
  await watch.ready;
  t.ok(watch.hasSynced(), 'ready once listed');
  t.equal(await watch.stop(), 'clean');
  t.equal(await watch.stop(), 'clean', 'stop is idempotent');
  await watch.done;
  t.ok(completed, 'the events completed');
  watch.start();
  t.equal(lists, 1, 'a stopped watch does not start again');
});
