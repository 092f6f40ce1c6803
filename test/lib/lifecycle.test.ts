import t from 'tap';
import { LifecycleControl, stopParts, subscribedWatchParts } from '../../src/lib/lifecycle.js';
import { ManualClock } from '../support/manualClock.js';

void t.test('ready settles when the part says so; done settles after stop, which answers clean', async (t) => {
  const clock = new ManualClock();
  let releases = 0;
  const life = new LifecycleControl({ clock, release: () => { releases += 1; } });
  life.markReady();
  await life.ready;
  t.equal(await life.stop(), 'clean');
  await life.done;
  t.equal(await life.stop(), 'clean', 'a second stop answers the same');
  t.equal(releases, 1, 'released once');
  t.equal(clock.pendingTimers, 0, 'the deadline timer is gone');
});

void t.test('a release slower than the deadline answers timeout, and done still settles when it ends', async (t) => {
  const clock = new ManualClock();
  let finish: () => void = () => undefined;
  const life = new LifecycleControl({ clock, release: () => new Promise<void>((resolve) => { finish = resolve; }) });
  const outcome = life.stop({ deadlineMs: 1_000 });
  await Promise.resolve();
  clock.advance(1_000);
  t.equal(await outcome, 'timeout');
  let done = false;
  void life.done.then(() => { done = true; });
  await Promise.resolve();
  t.equal(done, false, 'not done while the release runs');
  finish();
  await life.done;
});

void t.test('a part that fails on its own rejects done (and ready, if it never got there) with the error', async (t) => {
  const life = new LifecycleControl({ clock: new ManualClock(), release: () => undefined });
  const boom = new Error('watch gave up');
  life.fail(boom);
  await t.rejects(life.ready, boom);
  await t.rejects(life.done, boom);
  t.equal(await life.stop(), 'clean', 'stopping a failed part is still fine');
});

void t.test('stop before ready rejects ready, and a throwing release still counts as stopped', async (t) => {
  const life = new LifecycleControl({ clock: new ManualClock(), release: () => { throw new Error('socket already gone'); } });
  t.equal(await life.stop(), 'clean');
  await t.rejects(life.ready, /stopped before it was ready/);
  await life.done;
});

void t.test('a failure reported after stop() (a watch stopped before it listed) leaves done resolved', async (t) => {
  const life = new LifecycleControl({ clock: new ManualClock(), release: async () => undefined });
  const outcome = life.stop();
  life.fail(new Error('stopped before it was ready'));
  t.equal(await outcome, 'clean');
  await life.done;
});

void t.test('an error while releasing is reported, whether the release throws or rejects, and the part still stops', async (t) => {
  for (const release of [() => { throw new Error('socket already gone'); }, () => Promise.reject(new Error('socket already gone'))]) {
    const reported: unknown[] = [];
    const life = new LifecycleControl({ clock: new ManualClock(), release, onReleaseFailed: (error) => reported.push(error) });
    t.equal(await life.stop(), 'clean');
    await life.done;
    t.match(reported, [{ message: 'socket already gone' }]);
  }
});

void t.test('stopParts stops every part though one throws, then names each part that failed', async (t) => {
  const stopped: string[] = [];
  const part = (name: string, fails: boolean): { stop(): void } => ({
    stop: () => {
      stopped.push(name);
      if (fails) throw new Error(`${name} broke`);
    },
  });
  const async = { stop: (): Promise<string> => Promise.reject(new Error('pool broke')) };
  const error: unknown = await stopParts({ pods: part('pods', true), events: part('events', false), pool: async, services: part('services', true) }).catch((e: unknown) => e);
  t.same(stopped, ['pods', 'events', 'services'], 'all stopped, in order');
  t.ok(error instanceof AggregateError);
  t.match(error, { message: 'stopping failed: pods (pods broke), pool (pool broke), services (services broke)' });
  await stopParts({ events: part('events', false) });
});

t.test('a subscribed watch part ends its subscription before it stops the watch, named after its key', async (t) => {
  const order: string[] = [];
  const parts = subscribedWatchParts({
    ConfigMap: { watch: { stop: () => order.push('ConfigMap watch stopped') }, subscription: { unsubscribe: () => order.push('ConfigMap unsubscribed') } },
  }, 'copies watch');
  t.same(Object.keys(parts), ['ConfigMap copies watch']);
  await stopParts(parts);
  t.same(order, ['ConfigMap unsubscribed', 'ConfigMap watch stopped']);
});
