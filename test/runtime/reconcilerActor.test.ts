/**
 * The reconcile primitive as an actor: coalescing, one reconcile in flight per key and a bounded
 * number overall, per-key backoff on a fake clock, requeue-after, resync from the level source,
 * the deadline, and a crash whose restart reconciles every key again; shown in the live tree.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { done, reconcileError, reconcileTrigger, requeueAfter, type ReconcileContext, type ReconcileResult, type Reconciler, type ReconcilerSettings } from '../../src/lib/reconcile.js';
import { spawnReconcilers } from '../../src/actors/reconcilers.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import type { RestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { ManualClock } from '../support/manualClock.js';
import { drain, until } from '../support/until.js';

interface Call {
  readonly key: string;
  readonly at: number;
  readonly failures: number;
  readonly signal: AbortSignal;
  answer(result: ReconcileResult | Error): void;
}

const quickRestarts: RestartPolicy = { strategy: 'one-for-one', restart: 'permanent', backoff: { minMs: 100, maxMs: 100, factor: 1, jitter: 0, resetAfterMs: 60_000 } };

/** A reconciler whose every reconcile waits for the test to answer it (or answers at once with `auto`). */
function harness(t: { teardown(fn: () => void): void }, options: { keys?: string[]; settings?: Partial<ReconcilerSettings>; auto?: (key: string) => ReconcileResult | Error | undefined } = {}) {
  const clock = new ManualClock(0);
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  t.teardown(() => sys.stop());
  const trigger = reconcileTrigger();
  const calls: Call[] = [];
  const active = new Map<string, number>();
  let maxActive = 0;
  const keys = options.keys ?? [];
  const reconciler: Reconciler = {
    name: 'copies',
    settings: { backoff: { minMs: 1_000, maxMs: 4_000, factor: 2, jitter: 0 }, ...options.settings },
    keys: () => keys,
    connect: trigger.connect,
    reconcile: (key: string, ctx: ReconcileContext) =>
      new Promise<ReconcileResult>((resolve, reject) => {
        active.set(key, (active.get(key) ?? 0) + 1);
        const total = [...active.values()].reduce((a, b) => a + b, 0);
        maxActive = Math.max(maxActive, total);
        const settle = (r: ReconcileResult | Error): void => {
          active.set(key, (active.get(key) ?? 1) - 1);
          if (r instanceof Error) reject(r);
          else resolve(r);
        };
        const auto = options.auto?.(key);
        calls.push({ key, at: clock.now(), failures: ctx.failures, signal: ctx.signal, answer: settle });
        if (auto !== undefined) settle(auto);
      }),
  };
  const node = sys.root.spawnSupervisor('node-a', { kind: 'virtual-node', policy: quickRestarts });
  spawnReconcilers(node, [reconciler], quickRestarts);
  const path = 'tether/node-a/reconcilers/copies';
  const summary = () => sys.registry.get(path)?.snapshot().summary ?? {};
  return {
    clock, sys, trigger, calls, keys, path, summary,
    callsOf: (key: string) => calls.filter((c) => c.key === key),
    open: (key: string) => calls.filter((c) => c.key === key).at(-1) as Call,
    get maxActive() { return maxActive; },
    perKeyMax: () => Math.max(0, ...[...active.values()]),
    /** Every reconcile started has reported back to the actor. */
    settled: () => until('no reconcile in flight', () => summary()['inFlight'] === 0),
  };
}

void t.test('a key enqueued many times while it waits for a slot is reconciled once', async (t) => {
  const h = harness(t, { settings: { maxInFlight: 1 } });
  await drain();
  h.trigger.enqueue('busy');
  await until('busy runs', () => h.calls.length === 1);
  for (let i = 0; i < 5; i++) h.trigger.enqueue('a');
  await drain();
  t.equal(h.summary()['queued'], 1, 'queued once');
  h.open('busy').answer(done);
  await until('a runs', () => h.callsOf('a').length === 1);
  h.open('a').answer(done);
  await drain();
  t.equal(h.callsOf('a').length, 1, 'once');
});

void t.test('a key enqueued while its reconcile is in flight runs once more after it, never alongside it', async (t) => {
  const h = harness(t);
  await drain();
  h.trigger.enqueue('a');
  await until('a runs', () => h.calls.length === 1);
  h.trigger.enqueue('a');
  h.trigger.enqueue('a');
  await drain();
  t.equal(h.callsOf('a').length, 1, 'not started again while in flight');
  h.open('a').answer(done);
  await until('runs once more', () => h.callsOf('a').length === 2);
  h.open('a').answer(done);
  await drain();
  t.equal(h.callsOf('a').length, 2, 'exactly once more');
  t.equal(h.perKeyMax(), 0);
});

void t.test('no more than maxInFlight reconciles run at once', async (t) => {
  const h = harness(t, { settings: { maxInFlight: 2 } });
  await drain();
  for (const k of ['a', 'b', 'c', 'd', 'e']) h.trigger.enqueue(k);
  await until('two run', () => h.calls.length === 2);
  await drain();
  t.equal(h.calls.length, 2, 'the others wait');
  let answered = 0;
  while (answered < 5) {
    const open = h.calls.slice(answered);
    answered = h.calls.length;
    for (const c of open) c.answer(done);
    await until('the next ones start', () => h.calls.length > answered || answered === 5);
  }
  t.same(h.calls.map((c) => c.key).sort(), ['a', 'b', 'c', 'd', 'e'], 'every key reconciled');
  t.equal(h.maxActive, 2, 'never more than two at once');
});

void t.test('transient failures are retried after a growing backoff; events meanwhile do not cut it short; success resets it', async (t) => {
  const h = harness(t, { auto: () => reconcileError('transient', 'remote down') });
  await drain();
  h.trigger.enqueue('a');
  await until('first try', () => h.calls.length === 1);
  await h.settled();
  h.trigger.enqueue('a');
  h.clock.advance(999);
  await drain();
  t.equal(h.calls.length, 1, 'not before the first backoff step, event or not');
  h.clock.advance(1);
  await until('second try at 1 s', () => h.calls.length === 2);
  await h.settled();
  h.clock.advance(1_999);
  await drain();
  t.equal(h.calls.length, 2, 'not before 2 s more');
  h.clock.advance(1);
  await until('third try', () => h.calls.length === 3);
  t.same(h.calls.map((c) => [c.at, c.failures]), [[0, 0], [1_000, 1], [3_000, 2]], 'each told how often it failed');
  t.match(h.summary(), { failing: 1, failingKeys: 'a', lastError: 'a: remote down' });
});

void t.test('a success forgets the failures: the next failure waits the shortest step again', async (t) => {
  let fail = true;
  const h = harness(t, { auto: () => (fail ? reconcileError('transient', 'x') : done) });
  await drain();
  h.trigger.enqueue('a');
  await until('first try', () => h.calls.length === 1);
  await h.settled();
  h.clock.advance(1_000);
  await until('second try', () => h.calls.length === 2);
  await h.settled();
  fail = false;
  h.clock.advance(2_000);
  await until('third try succeeds', () => h.calls.length === 3);
  await drain();
  t.equal(h.summary()['failing'], 0);
  fail = true;
  h.trigger.enqueue('a');
  await until('fails again', () => h.calls.length === 4);
  await h.settled();
  h.clock.advance(1_000);
  await until('retried after 1 s, not 4 s', () => h.calls.length === 5);
  t.equal(h.calls[4]?.failures, 1);
});

void t.test('requeue-after runs the key again after that long, not before', async (t) => {
  const h = harness(t, { auto: () => requeueAfter(5_000) });
  await drain();
  h.trigger.enqueue('a');
  await until('first', () => h.calls.length === 1);
  await h.settled();
  h.clock.advance(4_999);
  await drain();
  t.equal(h.calls.length, 1);
  h.clock.advance(1);
  await until('again at 5 s', () => h.calls.length === 2);
});

void t.test('every key of the level source is reconciled at start and again at each resync', async (t) => {
  const h = harness(t, { keys: ['a', 'b'], settings: { resyncMs: 60_000 }, auto: () => done });
  await until('listed at start', () => h.calls.length === 2);
  h.keys.push('c');
  h.clock.advance(59_999);
  await drain();
  t.equal(h.calls.length, 2, 'not before the resync');
  h.clock.advance(1);
  await until('resynced', () => h.calls.length === 5);
  t.same(h.calls.map((c) => c.key), ['a', 'b', 'a', 'b', 'c']);
  t.match(h.summary(), { keys: 3, resyncs: 1 });
});

void t.test('a reconcile past its deadline has its signal aborted and counts as a transient failure', async (t) => {
  const h = harness(t, { settings: { deadlineMs: 10_000, abandonAfterMs: 5_000 } });
  await drain();
  h.trigger.enqueue('a');
  await until('runs', () => h.calls.length === 1);
  h.clock.advance(10_000);
  await drain();
  t.ok(h.open('a').signal.aborted, 'aborted at the deadline');
  h.open('a').answer(done); // answers late: too late
  await until('recorded as failing', () => h.summary()['failing'] === 1);
  t.match(h.summary()['lastError'], /deadline of 10000 ms exceeded/);
  h.clock.advance(1_000);
  await until('retried after its backoff', () => h.calls.length === 2);
});

void t.test('a reconcile that ignores its deadline crashes the reconciler, whose restart reconciles every key again', async (t) => {
  const h = harness(t, { keys: ['a', 'b'], settings: { deadlineMs: 1_000, abandonAfterMs: 1_000 } });
  await until('both listed', () => h.calls.length === 2);
  h.open('b').answer(done);
  await drain();
  h.clock.advance(2_000); // 'a' never settles
  await until('crashed', () => h.sys.registry.get(h.path)?.snapshot().status === 'restarting');
  h.clock.advance(100);
  await until('restarted and relisted', () => h.calls.length === 4);
  t.same(h.calls.slice(2).map((c) => c.key), ['a', 'b']);
  t.match(h.sys.registry.get(h.path)?.snapshot(), { restarts: 1, lastError: { message: /reconcile of a did not settle within 1000 ms after its 1000 ms deadline/ } });
});

void t.test('a reconcile that throws crashes the reconciler; the restart loses its queue but re-enqueues every key from the level source', async (t) => {
  let broken = true;
  const h = harness(t, { keys: ['a', 'b', 'c'], settings: { maxInFlight: 1 }, auto: (key) => (key === 'a' && broken ? new Error('bug') : undefined) });
  await until('a ran and crashed', () => h.sys.registry.get(h.path)?.snapshot().status === 'restarting');
  t.same(h.calls.map((c) => c.key), ['a'], 'b and c were still queued');
  h.trigger.enqueue('d'); // between the crash and the restart: dropped, and not in the level source either
  broken = false;
  h.keys.push('d');
  h.clock.advance(100);
  await until('restarted', () => h.calls.length === 2);
  for (let i = 0; i < 4 && h.calls.length < 5; i++) {
    h.open(h.calls.at(-1)?.key as string).answer(done);
    await until('next', () => h.calls.length >= 2 + i + 1);
  }
  h.open(h.calls.at(-1)?.key as string).answer(done);
  await drain();
  t.same(h.calls.slice(1).map((c) => c.key), ['a', 'b', 'c', 'd'], 'every key of the level source, the lost ones included');
});

void t.test('the reconciler is an actor of the node subtree: visible in the tree with its summary', async (t) => {
  const h = harness(t, { keys: ['a'] });
  await until('running', () => h.calls.length === 1);
  const tree = h.sys.snapshot({ root: 'tether/node-a' });
  t.same(tree.map((s) => `${s.path} ${s.kind}`), ['tether/node-a virtual-node', 'tether/node-a/reconcilers reconcilers', 'tether/node-a/reconcilers/copies reconciler']);
  t.match(tree[2], { status: 'running', summary: { keys: 1, queued: 0, inFlight: 1, waiting: 0, failing: 0, lastError: null } });
});
