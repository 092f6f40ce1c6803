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

t.test('a waiter that throws costs no other waiter its abort, and its error still surfaces', async (t) => {
  const controller = new AbortController();
  const called: string[] = [];
  onAbort(controller.signal, () => {
    throw new Error('handler bug');
  });
  onAbort(controller.signal, () => called.push('second'));
  // The runner's own handler would count the error as this test's failure: set aside while it surfaces.
  const runners = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  const surfaced = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
  try {
    controller.abort();
    t.same(called, ['second']);
    t.match(await surfaced, { message: 'handler bug' });
  } finally {
    for (const listener of runners) process.on('uncaughtException', listener);
  }
});

t.test('a waiter unsubscribed by another during the abort is not called', async (t) => {
  const controller = new AbortController();
  const called: string[] = [];
  let leaveSecond = (): void => undefined;
  onAbort(controller.signal, () => {
    called.push('first');
    leaveSecond();
  });
  leaveSecond = onAbort(controller.signal, () => called.push('second'));
  controller.abort();
  t.same(called, ['first']);
});
