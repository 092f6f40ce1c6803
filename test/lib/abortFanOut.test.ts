import { getEventListeners } from 'node:events';
import t from 'tap';
import { onAbort } from '../../src/lib/abortFanOut.js';

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

t.test('waiters share one listener, which goes with the last of them', async (t) => {
  const controller = new AbortController();
  const leaves = Array.from({ length: 50 }, () => onAbort(controller.signal, () => t.fail('not aborted')));
  t.equal(listeners(controller.signal), 1);
  for (const leave of leaves.slice(1)) leave();
  t.equal(listeners(controller.signal), 1, 'one waiter left: its listener stays');
  leaves[0]?.();
  t.equal(listeners(controller.signal), 0);
  leaves[0]?.();
  t.equal(listeners(controller.signal), 0, 'leaving twice is harmless');
  onAbort(controller.signal, () => undefined);
  t.equal(listeners(controller.signal), 1, 'a new waiter after all left gets a fresh listener');
});

t.test('an abort calls every waiter still subscribed, once, and none that left', async (t) => {
  const controller = new AbortController();
  const called: number[] = [];
  const leaves = [0, 1, 2, 3].map((i) => onAbort(controller.signal, () => called.push(i)));
  leaves[2]?.();
  controller.abort();
  controller.abort();
  t.same(called, [0, 1, 3]);
  t.equal(listeners(controller.signal), 0);
  leaves[0]?.();
});

t.test('a signal already aborted calls the handler at once and subscribes nothing', async (t) => {
  const signal = AbortSignal.abort();
  let called = 0;
  const leave = onAbort(signal, () => (called += 1));
  t.equal(called, 1);
  t.equal(listeners(signal), 0);
  leave();
});

t.test('a waiter that subscribes during the abort of another is called too (the signal has aborted)', async (t) => {
  const controller = new AbortController();
  let late = 0;
  onAbort(controller.signal, () => onAbort(controller.signal, () => (late += 1)));
  controller.abort();
  t.equal(late, 1);
});
