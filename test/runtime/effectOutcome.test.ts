/**
 * One helper turns an effect's async work into the actor's own messages: resolved is the done
 * message, a classified failure the failed message (kind and message), anything else a crash of
 * the actor. Outcomes and timers belong to the incarnation that started them.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import type { ActorBehavior, ActorRef } from '../../src/runtime/behavior.js';
import { reportTo, schedule, withSchedule, type Classifier, type Schedule } from '../../src/runtime/effectOutcome.js';
import type { WorkerCell } from '../../src/runtime/workerCell.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import type { RestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { ManualClock } from '../support/manualClock.js';
import { drain, until } from '../support/until.js';

class Expected extends Error {}

type Msg =
  | { type: 'call'; deadlineMs?: number }
  | { type: 'later'; ms: number }
  | { type: 'boom' }
  | { type: 'done'; value: number }
  | { type: 'failed'; kind: string; message: string }
  | { type: 'tick' };
type Effect = { type: 'call'; deadlineMs?: number } | Schedule<Msg>;
interface State { readonly seen: readonly Msg[] }

/** Only `Expected` is an answer; everything else is a bug. */
const classify: Classifier<'expected'> = (error) => (error instanceof Expected ? { kind: 'expected', message: error.message, error } : undefined);

function caller(work: (signal: AbortSignal) => Promise<number>): ActorBehavior<State, Msg, Effect> {
  return {
    kind: 'caller',
    initialState: () => ({ seen: [] }),
    decide(state, msg) {
      switch (msg.type) {
        case 'call':
          return { state, effects: [msg.deadlineMs === undefined ? { type: 'call' } : { type: 'call', deadlineMs: msg.deadlineMs }] };
        case 'later':
          return { state, effects: [schedule(msg.ms, { type: 'tick' })] };
        case 'boom':
          throw new Error('kaboom');
        case 'done':
        case 'failed':
        case 'tick':
          return { state: { seen: [...state.seen, msg] } };
      }
    },
    perform: withSchedule<Msg, Effect>((effect, ctx) =>
      reportTo(ctx)((signal) => work(signal), {
        classify,
        done: (value) => ({ type: 'done', value }),
        failed: ({ kind, message }) => ({ type: 'failed', kind, message }),
      }, effect.deadlineMs === undefined ? {} : { deadlineMs: effect.deadlineMs }),
    ),
  };
}

const policy: RestartPolicy = { strategy: 'one-for-one', restart: 'permanent', backoff: { minMs: 1_000, maxMs: 1_000, factor: 1, jitter: 0, resetAfterMs: 60_000 } };

type Cell = WorkerCell<State, Msg, Effect>;
function spawn(t: { teardown(fn: () => void): void }, work: (signal: AbortSignal) => Promise<number>): { clock: ManualClock; cell: Cell; ref: ActorRef<Msg> } {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  t.teardown(() => sys.stop());
  const ref = sys.root.spawnSupervisor('group', { policy }).spawn('a', caller(work));
  return { clock, cell: ref as Cell, ref };
}

async function restart(clock: ManualClock, cell: Cell, ref: ActorRef<Msg>): Promise<void> {
  const before = cell.restarts;
  ref.tell({ type: 'boom' });
  await until('crashed', () => cell.status === 'restarting');
  clock.advance(1_000);
  await until('restarted', () => cell.restarts === before + 1 && cell.status === 'running');
}

t.test('a resolved call becomes the done message', async (t) => {
  const { cell, ref } = spawn(t, () => Promise.resolve(42));
  ref.tell({ type: 'call' });
  await until('reported', () => (cell.state?.seen.length ?? 0) > 0);
  t.same(cell.state?.seen, [{ type: 'done', value: 42 }]);
});

t.test('a classified failure becomes the failed message, with its kind and message', async (t) => {
  const { cell, ref } = spawn(t, () => Promise.reject(new Expected('quota exceeded')));
  ref.tell({ type: 'call' });
  await until('reported', () => (cell.state?.seen.length ?? 0) > 0);
  t.same(cell.state?.seen, [{ type: 'failed', kind: 'expected', message: 'quota exceeded' }]);
  t.equal(cell.restarts, 0, 'an answer, not a crash');
});

t.test('an unclassified failure crashes the actor and is no message', async (t) => {
  const { clock, cell, ref } = spawn(t, () => Promise.reject(new TypeError('a bug')));
  ref.tell({ type: 'call' });
  await until('crashed', () => cell.status === 'restarting');
  t.match(cell.lastError, { message: 'a bug' });
  clock.advance(1_000);
  await until('restarted', () => cell.status === 'running' && cell.restarts === 1);
  t.same(cell.state?.seen, [], 'the new incarnation was told nothing');
});

t.test('an outcome that settles after a restart never reaches the new incarnation', async (t) => {
  for (const settle of ['resolve', 'reject'] as const) {
    let open = (): void => {};
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const { clock, cell, ref } = spawn(t, async () => {
      await gate;
      if (settle === 'reject') throw new Expected('late');
      return 1;
    });
    ref.tell({ type: 'call' });
    await drain();
    await restart(clock, cell, ref);
    open();
    await drain();
    t.same(cell.state?.seen, [], `a late ${settle} is dropped`);
    t.equal(cell.restarts, 1, 'and is no crash either');
  }
});

t.test('work given a deadline has its signal aborted then, and its answer after that is no message (the actor\'s own deadline decides)', async (t) => {
  let signal: AbortSignal | undefined;
  let open = (): void => {};
  const gate = new Promise<void>((resolve) => { open = resolve; });
  const { clock, cell, ref } = spawn(t, async (s) => {
    signal = s;
    await gate;
    throw new Expected('abandoned');
  });
  ref.tell({ type: 'call', deadlineMs: 60_000 });
  await until('called', () => signal !== undefined);
  clock.advance(59_999);
  await drain();
  t.equal(signal?.aborted, false, 'not before the deadline');
  clock.advance(1);
  await until('aborted at the deadline', () => signal?.aborted === true);
  open();
  await drain();
  t.same(cell.state?.seen, [], 'the late failure is dropped');
  t.equal(cell.restarts, 0, 'and is no crash');
});

t.test('work that answers before its deadline is reported, and its deadline timer is gone', async (t) => {
  let signal: AbortSignal | undefined;
  const { clock, cell, ref } = spawn(t, (s) => {
    signal = s;
    return Promise.resolve(7);
  });
  await drain();
  const before = clock.pendingTimers;
  ref.tell({ type: 'call', deadlineMs: 1_000 });
  await until('reported', () => (cell.state?.seen.length ?? 0) > 0);
  t.same(cell.state?.seen, [{ type: 'done', value: 7 }]);
  t.equal(clock.pendingTimers, before, 'no timer left behind');
  t.equal(signal?.aborted, false);
});

t.test('a scheduled message fires once, after its delay, and dies with the incarnation', async (t) => {
  const { clock, cell, ref } = spawn(t, () => Promise.resolve(0));
  ref.tell({ type: 'later', ms: 500 });
  await drain();
  clock.advance(499);
  await drain();
  t.same(cell.state?.seen, [], 'not before its delay');
  clock.advance(1);
  await until('fired', () => (cell.state?.seen.length ?? 0) === 1);
  clock.advance(10_000);
  await drain();
  t.same(cell.state?.seen, [{ type: 'tick' }], 'once');

  ref.tell({ type: 'later', ms: 5_000 });
  await drain();
  await restart(clock, cell, ref); // advances 1 s of the 5
  clock.advance(10_000);
  await drain();
  t.same(cell.state?.seen, [], 'the timer of the ended incarnation never fires into the new one');
  t.equal(clock.pendingTimers, 0, 'and it was cancelled, not left waiting');
});
