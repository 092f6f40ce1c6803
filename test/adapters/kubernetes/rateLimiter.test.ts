import t from 'tap';
import { drain } from '../../support/until.js';
import { ManualClock } from '../../support/manualClock.js';
import { deferred } from '../../support/deferred.js';
import type { Priority } from '../../../src/adapters/kubernetes/rateLimiter.js';
import { RateLimiter } from '../../../src/adapters/kubernetes/rateLimiter.js';

/** Lets resolved promise callbacks run. */

t.test('a burst starts at once; beyond it, requests wait for tokens at qps', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ qps: 2, burst: 3, clock });
  const started: number[] = [];
  const all = [0, 1, 2, 3, 4].map((i) =>
    rl.schedule('other', () => {
      started.push(i);
      return Promise.resolve(i);
    }),
  );
  t.same(started, [0, 1, 2], 'burst of 3');
  clock.advance(499);
  t.same(started, [0, 1, 2], 'no token before 500 ms at 2 qps');
  clock.advance(1);
  t.same(started, [0, 1, 2, 3]);
  clock.advance(500);
  t.same(await Promise.all(all), [0, 1, 2, 3, 4], 'each promise resolves with its fn result');
  t.equal(rl.stats().other.waitMs, 500 + 1000);
});

t.test('lease > delete > status > other, FIFO within a class', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ qps: 1, burst: 1, clock });
  const order: string[] = [];
  const run = (p: Priority, label: string): Promise<void> =>
    rl.schedule(p, () => {
      order.push(label);
      return Promise.resolve();
    });
  const done = [run('other', 'o0')]; // takes the only token
  for (let i = 1; i <= 3; i++) done.push(run('status', `s${i}`));
  done.push(run('other', 'o1'), run('delete', 'd1'), run('lease', 'l1'), run('delete', 'd2'));
  t.same(rl.queueDepth(), { lease: 1, delete: 2, status: 3, other: 1 });
  for (let i = 0; i < 7; i++) clock.advance(1000);
  await Promise.all(done);
  t.same(order, ['o0', 'l1', 'd1', 'd2', 's1', 's2', 's3', 'o1']);
  const stats = rl.stats();
  t.equal(stats.lease.waitMs, 1000, 'the lease waited only for the next token');
  t.equal(stats.status.started, 3);
  t.equal(stats.other.queued, 0);
});

t.test('a lease renewal scheduled behind a status backlog waits at most one token', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ qps: 10, burst: 1, clock });
  const statuses = Array.from({ length: 50 }, () => rl.schedule('status', () => Promise.resolve('s')));
  let leaseDone = false;
  const lease = rl.schedule('lease', () => Promise.resolve('l')).then(() => (leaseDone = true));
  clock.advance(100);
  await drain(1);
  t.ok(leaseDone, 'lease ran at the first refill');
  t.equal(rl.queueDepth().status, 49, 'one status took the burst token; the lease took the next');
  clock.advance(5_000);
  await Promise.all([...statuses, lease]);
});

t.test('a throwing or rejecting fn rejects its own promise only', async (t) => {
  const rl = new RateLimiter({ qps: 100, burst: 10, clock: new ManualClock() });
  await t.rejects(rl.schedule('other', () => { throw new Error('sync boom'); }), /sync boom/);
  await t.rejects(rl.schedule('other', () => Promise.reject(new Error('async boom'))), /async boom/);
  t.equal(await rl.schedule('other', () => Promise.resolve(3)), 3);
});

t.test('invalid options are rejected', async (t) => {
  t.throws(() => new RateLimiter({ qps: 0, burst: 1 }), /qps must be > 0/);
  t.throws(() => new RateLimiter({ qps: 1, burst: 0 }), /burst must be >= 1/);
  const unlimited = new RateLimiter({ qps: Infinity, burst: 1, clock: new ManualClock() });
  const results = await Promise.all(Array.from({ length: 5 }, (_, i) => unlimited.schedule('other', () => Promise.resolve(i))));
  t.same(results, [0, 1, 2, 3, 4], 'Infinity qps never waits');
});

t.test('a waiting request superseded by a newer one with the same key is never sent; the newer takes its place', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ qps: 1, burst: 1, clock });
  const sent: string[] = [];
  const run = (label: string, key?: string): Promise<string> =>
    rl.schedule('status', () => {
      sent.push(label);
      return Promise.resolve(label);
    }, key === undefined ? {} : { key });
  const first = run('other-pod'); // takes the only token
  const notReady = run('web-1 NotReady', 'status pod shop/web-1');
  const unrelated = run('web-2', 'status pod shop/web-2');
  const current = run('web-1 Ready', 'status pod shop/web-1');
  t.same(rl.queueDepth().status, 2, 'one entry per key');
  await t.rejects(notReady, { name: 'SupersededError' }, 'the older write is dropped, rejected');
  for (let i = 0; i < 3; i++) clock.advance(1000);
  t.same(await Promise.all([first, unrelated, current]), ['other-pod', 'web-2', 'web-1 Ready']);
  t.same(sent, ['other-pod', 'web-1 Ready', 'web-2'], 'the newer went out in the older one\'s place');
});

t.test('requests with one key run one at a time, in order, without holding up other keys', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ qps: Infinity, burst: 10, clock });
  const started: string[] = [];
  let finishFirst: () => void = () => undefined;
  const first = rl.schedule('status', () => {
    started.push('a1');
    return new Promise<void>((resolve) => (finishFirst = resolve));
  }, { key: 'a' });
  const second = rl.schedule('status', () => {
    started.push('a2');
    return Promise.resolve();
  }, { key: 'a' });
  const other = rl.schedule('status', () => {
    started.push('b1');
    return Promise.resolve();
  }, { key: 'b' });
  await other;
  t.same(started, ['a1', 'b1'], 'a2 waits for a1 although tokens are free; b is not held up');
  finishFirst();
  await Promise.all([first, second]);
  t.same(started, ['a1', 'b1', 'a2']);
});

t.test('a request whose signal aborts while it waits for a token is dropped, never started', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ qps: 1, burst: 1, clock });
  const started: string[] = [];
  const run = (label: string, signal?: AbortSignal): Promise<string> =>
    rl.schedule('status', () => {
      started.push(label);
      return Promise.resolve(label);
    }, signal ? { signal } : {});
  const fence = new AbortController();
  const a = run('a', fence.signal);
  const b = run('b', fence.signal);
  const c = run('c');
  fence.abort(new Error('lock lost'));
  await t.rejects(b, /lock lost/, 'the queued request rejects with the reason');
  t.same(rl.queueDepth().status, 1, 'and leaves the queue at once');
  clock.advance(1000);
  t.equal(await a, 'a');
  t.equal(await c, 'c');
  t.same(started, ['a', 'c'], 'b never ran, and did not use a token');
  await t.rejects(run('d', fence.signal), /lock lost/, 'an already-aborted signal is refused at once');
});


t.test('no more than maxInFlight requests run at once; the next starts when one settles', async (t) => {
  const rl = new RateLimiter({ qps: Infinity, burst: 100, maxInFlight: 2 });
  const calls = [deferred(), deferred(), deferred(), deferred()];
  const started: number[] = [];
  const all = calls.map((c, i) => rl.schedule('status', () => (started.push(i), c.promise)));
  t.same(started, [0, 1], 'two slots, two requests started, tokens to spare');
  t.equal(rl.inFlight(), 2);
  t.equal(rl.queueDepth().status, 2, 'the rest wait in the queue');
  calls[1]!.resolve();
  await drain(1);
  t.same(started, [0, 1, 2], 'a settled request frees its slot for the next');
  calls[0]!.resolve();
  calls[2]!.resolve();
  await drain(1);
  calls[3]!.resolve();
  await Promise.all(all);
  t.same(started, [0, 1, 2, 3]);
  t.equal(rl.inFlight(), 0, 'every slot given back');
});

t.test('a failed request gives its slot back too', async (t) => {
  const rl = new RateLimiter({ qps: Infinity, burst: 100, maxInFlight: 1 });
  const first = rl.schedule('other', () => Promise.reject(new Error('refused')));
  const second = rl.schedule('other', () => Promise.resolve('ran'));
  await t.rejects(first, /refused/);
  t.equal(await second, 'ran');
  const thrown = rl.schedule('other', () => {
    throw new Error('thrown');
  });
  await t.rejects(thrown, /thrown/);
  t.equal(await rl.schedule('other', () => Promise.resolve('after a throw')), 'after a throw');
  t.equal(rl.inFlight(), 0);
});

t.test('a lease request starts while every slot is held by slow writes', async (t) => {
  const rl = new RateLimiter({ qps: Infinity, burst: 100, maxInFlight: 2 });
  const slow = [deferred(), deferred()];
  const writes = slow.map((c) => rl.schedule('status', () => c.promise));
  let leaseRan = false;
  await rl.schedule('lease', () => ((leaseRan = true), Promise.resolve()));
  t.ok(leaseRan, 'the renewal did not wait for a slot');
  let deleteRan = false;
  const deletion = rl.schedule('delete', () => ((deleteRan = true), Promise.resolve()));
  await drain(1);
  t.notOk(deleteRan, 'other classes wait for a slot');
  slow[0]!.resolve();
  await deletion;
  t.ok(deleteRan);
  slow[1]!.resolve();
  await Promise.all(writes);
});

t.test('status writes of one pod waiting for a slot coalesce: only the newest is sent', async (t) => {
  const rl = new RateLimiter({ qps: Infinity, burst: 100, maxInFlight: 1 });
  const blocker = deferred();
  const held = rl.schedule('other', () => blocker.promise);
  const sent: string[] = [];
  const older = rl.schedule('status', () => (sent.push('older'), Promise.resolve()), { key: 'status pod u1' });
  const newer = rl.schedule('status', () => (sent.push('newer'), Promise.resolve()), { key: 'status pod u1' });
  await t.rejects(older, { name: 'SupersededError' }, 'the older write is dropped unsent');
  blocker.resolve();
  await Promise.all([held, newer]);
  t.same(sent, ['newer']);
});

t.test('maxInFlight below 1 is refused', async (t) => {
  t.throws(() => new RateLimiter({ qps: 1, burst: 1, maxInFlight: 0 }), RangeError);
});

t.test('past maxQueued, a new request is refused unsent and counted; one taking a waiting request\'s place is not', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ qps: 1, burst: 1, maxQueued: 2, clock });
  const sent: string[] = [];
  const send = (name: string) => (): Promise<string> => (sent.push(name), Promise.resolve(name));
  const first = rl.schedule('other', send('first'));
  const waiting = [rl.schedule('other', send('a')), rl.schedule('status', send('b'), { key: 'status pod u1' })];
  await t.rejects(rl.schedule('other', send('c')), { name: 'QueueFullError', kind: 'transient' }, 'the queue holds two: the third is refused');
  const newer = rl.schedule('status', send('b2'), { key: 'status pod u1' });
  await t.rejects(waiting[1]!, { name: 'SupersededError' }, 'a keyed request still takes its older twin\'s place');
  t.same(rl.stats().other, { queued: 1, started: 1, waitMs: 0, dropped: 1 });
  clock.advance(2_000);
  t.same(await Promise.all([first, waiting[0]!, newer]), ['first', 'a', 'b2']);
  t.same(sent, ['first', 'b2', 'a'], 'c was never sent');
});

t.test('refuses says whether a request scheduled now would be refused, and counts it as dropped', async (t) => {
  const clock = new ManualClock();
  const rl = new RateLimiter({ qps: 1, burst: 1, maxQueued: 1, clock });
  const first = rl.schedule('other', () => Promise.resolve('first'));
  t.equal(rl.refuses('other'), false, 'room in the queue');
  const waiting = rl.schedule('other', () => Promise.resolve('queued'));
  t.equal(rl.refuses('other'), true, 'the queue is full');
  t.same(rl.stats().other, { queued: 1, started: 1, waitMs: 0, dropped: 1 });
  t.equal(new RateLimiter({ qps: 1, burst: 1 }).refuses('other'), false, 'no bound, never');
  clock.advance(1_000);
  t.same(await Promise.all([first, waiting]), ['first', 'queued']);
});

t.test('maxQueued below 0 is refused', async (t) => {
  t.throws(() => new RateLimiter({ qps: 1, burst: 1, maxQueued: -1 }), RangeError);
});
