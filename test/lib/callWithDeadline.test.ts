import t from 'tap';
import { drain } from '../support/until.js';
import { ManualClock } from '../support/manualClock.js';
import { callWithDeadline } from '../../src/lib/callWithDeadline.js';
import { kindOf } from '../../src/lib/errorKind.js';
import { forEachBounded } from '../../src/lib/boundedConcurrency.js';


void t.test('a call that answers in time resolves, and its timer is cancelled', async (t) => {
  const clock = new ManualClock();
  t.equal(await callWithDeadline(clock, 1000, undefined, async () => 42), 42);
  t.equal(clock.pendingTimers, 0);
});

void t.test('a call that ignores its signal is abandoned at the deadline with a transient error', async (t) => {
  const clock = new ManualClock();
  let signalled: AbortSignal | undefined;
  const result = callWithDeadline(clock, 1000, undefined, (signal) => {
    signalled = signal;
    return new Promise<never>(() => undefined);
  });
  clock.advance(1000);
  const err: unknown = await result.catch((e: unknown) => e);
  t.equal(kindOf(err), 'transient');
  t.equal(signalled?.aborted, true, 'the call was told to stop');
});

void t.test('the parent signal aborts the call with its reason', async (t) => {
  const clock = new ManualClock();
  const parent = new AbortController();
  const result = callWithDeadline(clock, 1000, parent.signal, () => new Promise<never>(() => undefined));
  parent.abort(new Error('stopping'));
  await t.rejects(result, { message: 'stopping' });
  await t.rejects(callWithDeadline(clock, 1000, parent.signal, async () => 1), { message: 'stopping' }, 'already aborted');
  t.equal(clock.pendingTimers, 0);
});

void t.test('a call that rejects passes its error through', async (t) => {
  const clock = new ManualClock();
  await t.rejects(callWithDeadline(clock, 1000, undefined, async () => { throw new Error('own'); }), { message: 'own' });
});

void t.test('forEachBounded keeps at most `limit` calls in flight and survives failures', async (t) => {
  let inFlight = 0;
  let peak = 0;
  const done: number[] = [];
  await forEachBounded([1, 2, 3, 4, 5], 2, async (n) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await drain(1);
    inFlight--;
    if (n === 2) throw new Error('one fails');
    done.push(n);
  });
  t.equal(peak, 2);
  t.same(done.sort(), [1, 3, 4, 5]);
});
