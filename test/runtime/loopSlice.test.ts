/**
 * The loop slice: a stretch of back-to-back actor messages longer than its budget yields a loop
 * turn, so a timer that falls due (a Lease renewal) waits for about one budget of actor work, not
 * for one message of every busy actor. Work is counted on an injected clock (each message "takes"
 * 1 ms of it), so nothing here depends on how fast the machine is.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import type { ActorBehavior, ActorRef } from '../../src/runtime/behavior.js';
import { LoopSlice, type LoopSliceOptions } from '../../src/runtime/loopSlice.js';
import type { WorkerCell } from '../../src/runtime/workerCell.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import { ManualClock } from '../support/manualClock.js';
import { until } from '../support/until.js';

type Msg = { type: 'work'; seq: number };
interface State { readonly seen: readonly number[] }

const ACTORS = 200;

/** Each message costs 1 ms of the slice's clock. */
function busy(work: { ms: number }, handled: { n: number }): ActorBehavior<State, Msg, never> {
  return {
    kind: 'busy',
    initialState: () => ({ seen: [] }),
    decide(s, msg) {
      work.ms += 1;
      handled.n++;
      return { state: { seen: [...s.seen, msg.seq] } };
    },
    perform() {},
  };
}


interface Busy { readonly refs: ActorRef<Msg>[]; readonly handled: { n: number } }

/** 200 busy actors; `slice` is given the clock their work advances. */
function spawnBusy(t: { teardown(fn: () => void): void }, slice: (work: { ms: number }) => LoopSliceOptions | false): Busy {
  const work = { ms: 0 };
  const handled = { n: 0 };
  const sys = new ActorSystem({ clock: new ManualClock(), logger: silentLogger, onFatal: () => {}, loopSlice: slice(work) });
  t.teardown(() => sys.stop());
  const group = sys.root.spawnSupervisor('group', { policy: { strategy: 'one-for-one', restart: 'permanent', backoff: { minMs: 1_000, maxMs: 1_000, factor: 1, jitter: 0, resetAfterMs: 60_000 } } });
  const refs: ActorRef<Msg>[] = [];
  for (let i = 0; i < ACTORS; i++) refs.push(group.spawn(`a${i}`, busy(work, handled)));
  return { refs, handled };
}

const seen = (ref: ActorRef<Msg>): readonly number[] => (ref as WorkerCell<State, Msg, never>).state?.seen ?? [];

/**
 * One message to each of 200 actors, told from a timer callback (so the 200 handlers are queued
 * for this loop turn's immediates), and a timer due at once: how many handlers ran before it fired.
 */
async function handledBeforeTheTimer(refs: readonly ActorRef<Msg>[], handled: { n: number }): Promise<number> {
  await until('every actor started', () => refs.every((r) => (r as WorkerCell<State, Msg, never>).state !== undefined));
  const before = handled.n;
  return new Promise((resolve) => {
    setTimeout(() => {
      for (const ref of refs) ref.tell({ type: 'work', seq: 1 });
      setTimeout(() => resolve(handled.n - before), 0);
    }, 0);
  });
}

t.test('a timer due while 200 actors are busy waits for one budget of their work, not for all of it', async (t) => {
  const { refs, handled } = spawnBusy(t, (work) => ({ budgetMs: 10, now: () => work.ms }));
  const ran = await handledBeforeTheTimer(refs, handled);
  t.ok(ran < ACTORS, `the timer fired after ${ran} of ${ACTORS} handlers`);
  await until('every message handled', () => refs.every((r) => seen(r).length === 1));
});

t.test('without a slice, the same timer waits for every busy actor (what the slice prevents)', async (t) => {
  const { refs, handled } = spawnBusy(t, () => false);
  t.equal(await handledBeforeTheTimer(refs, handled), ACTORS);
});

t.test('messages of one actor are handled in order across the yielded turns', async (t) => {
  const { refs } = spawnBusy(t, (work) => ({ budgetMs: 10, now: () => work.ms }));
  await until('every actor started', () => refs.every((r) => (r as WorkerCell<State, Msg, never>).state !== undefined));
  for (let seq = 1; seq <= 5; seq++) for (const ref of refs) ref.tell({ type: 'work', seq });
  await until('every message handled', () => refs.every((r) => seen(r).length === 5));
  t.ok(refs.every((r) => seen(r).join() === '1,2,3,4,5'));
});

t.test('LoopSlice: past the budget, handlers wait for one loop turn, where a new stretch starts', async (t) => {
  let now = 0;
  const slice = new LoopSlice({ budgetMs: 10, now: () => now });
  t.equal(slice.enter(), undefined, 'the first handler runs');
  now = 10;
  slice.end();
  const turn = slice.enter();
  t.ok(turn instanceof Promise, 'a stretch of 10 ms is at its budget: the next waits');
  t.equal(slice.enter(), turn, 'every later handler waits for the same turn');
  await turn;
  t.equal(slice.enter(), undefined, 'the new turn starts a new stretch');
  t.equal(slice.yields, 1);
});

t.test('LoopSlice: a loop that went idle between two handlers starts a new stretch', (t) => {
  let now = 0;
  const slice = new LoopSlice({ budgetMs: 10, now: () => now });
  t.equal(slice.enter(), undefined);
  now = 9;
  slice.end();
  now = 20; // more than 1 ms with no handler: the loop was idle, timers had their turn
  t.equal(slice.enter(), undefined);
  t.equal(slice.yields, 0);
  t.end();
});
