/**
 * The reconcile queue's rules, event by event and as properties: a key is never started while it
 * runs, no more than maxInFlight run, and the last enqueue of every key is followed by a start.
 */
import fc from 'fast-check';
import t from 'tap';
import { done, reconcileError, requeueAfter, type ReconcileResult } from '../../src/lib/reconcile.js';
import { ReconcileQueue } from '../../src/runtime/reconcileQueue.js';

const backoff = { minMs: 1_000, maxMs: 8_000, factor: 2, jitter: 0 };
const keysOf = (started: { key: string }[]): string[] => started.map((s) => s.key);

void t.test('a key enqueued while queued is queued once', async (t) => {
  const q = new ReconcileQueue(backoff);
  q.enqueue('a', 0);
  q.enqueue('b', 0);
  q.enqueue('a', 0);
  t.same(keysOf(q.start(10)), ['a', 'b'], 'each once, in the order they became ready');
  t.same(q.start(10), [], 'nothing left');
});

void t.test('a key enqueued while running runs once more after it completes, however often it was enqueued', async (t) => {
  const q = new ReconcileQueue(backoff);
  q.enqueue('a', 0);
  t.same(keysOf(q.start(10)), ['a']);
  q.enqueue('a', 1);
  q.enqueue('a', 2);
  t.same(q.start(10), [], 'not started again while it runs');
  q.complete('a', done, 3);
  t.same(keysOf(q.start(10)), ['a'], 'once more');
  q.complete('a', done, 4);
  t.same(q.start(10), []);
});

void t.test('no more than maxInFlight keys start', async (t) => {
  const q = new ReconcileQueue(backoff);
  for (const k of ['a', 'b', 'c']) q.enqueue(k, 0);
  t.same(keysOf(q.start(2)), ['a', 'b']);
  t.same(q.start(2), []);
  q.complete('a', done, 1);
  t.same(keysOf(q.start(2)), ['c']);
});

void t.test('transient failures back off exponentially to the cap; enqueues do not cut the wait; success resets', async (t) => {
  const q = new ReconcileQueue(backoff);
  const fail = reconcileError('transient', 'remote down');
  q.enqueue('a', 0);
  const delays: number[] = [];
  let now = 0;
  for (let i = 0; i < 5; i++) {
    q.start(1);
    q.complete('a', fail, now);
    const due = q.nextDue() ?? Number.NaN;
    delays.push(due - now);
    q.enqueue('a', now); // an event while waiting
    t.same(q.start(1), [], 'the event does not bypass the backoff');
    now = due;
    q.due(now);
  }
  t.same(delays, [1_000, 2_000, 4_000, 8_000, 8_000], 'doubling, capped at maxMs');
  t.same(keysOf(q.start(1)), ['a']);
  q.complete('a', done, now);
  t.equal(q.counts.failing, 0, 'success forgets the failures');
  q.enqueue('a', now);
  q.start(1);
  q.complete('a', fail, now);
  t.equal((q.nextDue() ?? 0) - now, 1_000, 'the next failure starts from minMs again');
});

void t.test('a permanent failure is not retried until the key is enqueued again', async (t) => {
  const q = new ReconcileQueue(backoff);
  q.enqueue('a', 0);
  q.start(1);
  q.complete('a', reconcileError('permanent', 'invalid'), 0);
  t.equal(q.nextDue(), undefined, 'no retry scheduled');
  t.same(q.failingKeys(5), ['a'], 'shown as failing');
  q.enqueue('a', 1);
  t.same(keysOf(q.start(1)), ['a'], 'its input changed: tried again');
});

void t.test('requeue-after waits, and an enqueue meanwhile runs it at once', async (t) => {
  const q = new ReconcileQueue(backoff);
  q.enqueue('a', 0);
  q.start(1);
  q.complete('a', requeueAfter(5_000), 0);
  t.equal(q.nextDue(), 5_000);
  q.due(4_999);
  t.same(q.start(1), []);
  q.enqueue('a', 4_999);
  t.same(keysOf(q.start(1)), ['a'], 'new information is not held back');
});

void t.test('resync enqueues every known key and drops failure records of keys no longer known', async (t) => {
  const q = new ReconcileQueue(backoff);
  q.enqueue('gone', 0);
  q.start(1);
  q.complete('gone', reconcileError('permanent', 'x'), 0);
  q.resync(['a', 'b'], 1);
  t.same(keysOf(q.start(10)), ['a', 'b']);
  t.equal(q.counts.failing, 0);
});

type Command =
  | { readonly c: 'enqueue'; readonly key: string; readonly afterMs: number }
  | { readonly c: 'complete'; readonly pick: number; readonly result: ReconcileResult }
  | { readonly c: 'advance'; readonly ms: number };

const keyArb = fc.constantFrom('a', 'b', 'c', 'd');
const resultArb: fc.Arbitrary<ReconcileResult> = fc.oneof(
  fc.constant(done),
  fc.integer({ min: 0, max: 3_000 }).map(requeueAfter),
  fc.constant(reconcileError('transient', 't')),
  fc.constant(reconcileError('permanent', 'p')),
);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ c: fc.constant('enqueue' as const), key: keyArb, afterMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000 })) }),
  fc.record({ c: fc.constant('complete' as const), pick: fc.nat(), result: resultArb }),
  fc.record({ c: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 10_000 }) }),
);

void t.test('for any interleaving of enqueues and completions, no key runs twice at once and every last enqueue is followed by a start', async (t) => {
  fc.assert(
    fc.property(fc.array(commandArb, { maxLength: 60 }), fc.integer({ min: 1, max: 3 }), (commands, maxInFlight) => {
      const q = new ReconcileQueue(backoff);
      const running: string[] = [];
      const lastEnqueue = new Map<string, number>();
      const lastStart = new Map<string, number>();
      let now = 0;
      let seq = 0;
      const startAll = (): void => {
        for (const { key } of q.start(maxInFlight)) {
          if (running.includes(key)) throw new Error(`${key} started while running`);
          running.push(key);
          lastStart.set(key, ++seq);
        }
        if (running.length > maxInFlight) throw new Error(`${running.length} running, max ${maxInFlight}`);
      };
      for (const command of commands) {
        if (command.c === 'enqueue') {
          q.enqueue(command.key, now, command.afterMs);
          lastEnqueue.set(command.key, ++seq);
        } else if (command.c === 'complete' && running.length > 0) {
          const [key] = running.splice(command.pick % running.length, 1);
          q.complete(key as string, command.result, now);
        } else if (command.c === 'advance') {
          now += command.ms;
          q.due(now);
        }
        startAll();
      }
      // Let everything settle: complete each run successfully and let every wait pass.
      for (let round = 0; round < 50 && (running.length > 0 || q.nextDue() !== undefined || q.counts.ready > 0); round++) {
        while (running.length > 0) q.complete(running.shift() as string, done, now);
        now = Math.max(now, q.nextDue() ?? now);
        q.due(now);
        startAll();
      }
      for (const [key, at] of lastEnqueue) {
        if ((lastStart.get(key) ?? 0) < at) throw new Error(`${key}: last enqueued at #${at}, last started at #${lastStart.get(key) ?? 'never'}`);
      }
    }),
    { numRuns: 500 },
  );
  t.pass('held for every interleaving');
});
