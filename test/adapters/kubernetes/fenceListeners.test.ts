/**
 * Issue 22: a node under a 1,000-pod storm printed `MaxListenersExceededWarning: Possible
 * EventTarget memory leak detected. 11 abort listeners added to [AbortSignal]`. The signal is a
 * cluster's write fence (kubeClients.ts, clusterClient.ts): one long-lived signal handed to every
 * call, which added a listener per call queued in the rate limiter and another per call in flight
 * (callWithDeadline). The fence now holds one listener however many calls wait on it, none once
 * they have settled, and still drops every one of them when it aborts.
 */
import { getEventListeners } from 'node:events';
import t from 'tap';
import { call } from '../../../src/adapters/kubernetes/call.js';
import { RateLimiter } from '../../../src/adapters/kubernetes/rateLimiter.js';
import { callWithDeadline } from '../../../src/lib/callWithDeadline.js';
import { sleep } from '../../../src/lib/clock.js';
import { ManualClock } from '../../support/manualClock.js';
import { drain } from '../../support/until.js';
import { operation } from '../../../src/adapters/kubernetes/operation.js';

const N = 100;
const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

t.test(`${N} calls queued behind the rate limiter under one fence hold one abort listener on it, none once settled`, async (t) => {
  const clock = new ManualClock();
  const limiter = new RateLimiter({ qps: 1, burst: 1, clock });
  const fence = new AbortController();
  const baseline = listeners(fence.signal);
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.message);
  process.on('warning', onWarning);
  t.teardown(() => process.off('warning', onWarning));
  const ctx = { limiter, clock, signal: () => fence.signal };
  const calls = Array.from({ length: N }, (_, i) => call(ctx, 'other', operation('get', `pod ns/p${i}`), () => Promise.resolve(i)));
  await drain();
  t.equal(limiter.stats().other.queued, N - 1, 'all but the first wait for a token');
  t.ok(listeners(fence.signal) <= baseline + 1, `at most one listener on the fence (${listeners(fence.signal)})`);
  for (let i = 1; i < N; i++) {
    clock.advance(1000);
    await drain(2);
  }
  t.same(await Promise.all(calls), Array.from({ length: N }, (_, i) => i), 'every call ran');
  t.equal(listeners(fence.signal), baseline, 'back to the baseline once every call has settled');
  t.same(warnings.filter((w) => /abort listeners/.test(w)), [], 'no MaxListenersExceededWarning');
});

t.test(`the fence still drops all ${N} queued calls when it aborts`, async (t) => {
  const clock = new ManualClock();
  const limiter = new RateLimiter({ qps: 1, burst: 1, clock });
  const fence = new AbortController();
  const ctx = { limiter, clock, signal: () => fence.signal };
  let ran = 0;
  const calls = Array.from({ length: N }, () => call(ctx, 'other', operation('get', 'pod ns/p'), () => Promise.resolve(++ran)).then(() => 'ran', (e: unknown) => String(e)));
  await drain();
  fence.abort(new Error('node lock lost'));
  const results = await Promise.all(calls);
  t.equal(ran, 1, 'only the call that had a token ran');
  t.equal(results.filter((r) => /node lock lost/.test(r)).length, N - 1, 'every queued call rejected with the fence reason');
  t.equal(listeners(fence.signal), 0);
});

t.test(`${N} calls in flight under one parent signal hold one listener on it; an abort reaches each`, async (t) => {
  const clock = new ManualClock();
  const parent = new AbortController();
  const seen: AbortSignal[] = [];
  const calls = Array.from({ length: N }, () =>
    callWithDeadline(clock, 10_000, parent.signal, (signal) => {
      seen.push(signal);
      return new Promise<never>(() => undefined);
    }).catch((e: unknown) => e),
  );
  t.ok(listeners(parent.signal) <= 1, `at most one listener on the parent (${listeners(parent.signal)})`);
  parent.abort(new Error('stopping'));
  const errors = await Promise.all(calls);
  t.ok(errors.every((e) => e instanceof Error && e.message === 'stopping'), 'each call rejects with the parent reason');
  t.equal(seen.filter((s) => s.aborted).length, N, 'each call was told to stop');
  t.equal(listeners(parent.signal), 0);
});

t.test(`${N} calls that answer before the parent aborts leave no listener on it`, async (t) => {
  const clock = new ManualClock();
  const parent = new AbortController();
  await Promise.all(Array.from({ length: N }, (_, i) => callWithDeadline(clock, 10_000, parent.signal, () => Promise.resolve(i))));
  t.equal(listeners(parent.signal), 0);
  t.equal(clock.pendingTimers, 0, 'every deadline timer cancelled');
});

t.test(`${N} sleeps on one stop signal hold one listener on it, none once they have woken`, async (t) => {
  const clock = new ManualClock();
  const stop = new AbortController();
  const sleeps = Array.from({ length: N }, (_, i) => sleep(clock, 10 + i, stop.signal));
  t.ok(listeners(stop.signal) <= 1, `at most one listener (${listeners(stop.signal)})`);
  clock.advance(10 + N);
  await Promise.all(sleeps);
  t.equal(listeners(stop.signal), 0);
  const aborted = Array.from({ length: N }, () => sleep(clock, 1_000, stop.signal).catch((e: unknown) => e));
  stop.abort(new Error('stopping'));
  t.ok((await Promise.all(aborted)).every((e) => e instanceof Error && e.message === 'stopping'), 'an abort wakes every sleep');
});
