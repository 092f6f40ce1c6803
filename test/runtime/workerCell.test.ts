/**
 * Effects report back into the incarnation that ran them, and never into a later one: the runtime
 * fences every report, so an effect that forgets to look at its abort signal cannot deliver a
 * stale answer into a restarted actor.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import type { ActorBehavior, ActorRef } from '../../src/runtime/behavior.js';
import type { WorkerCell } from '../../src/runtime/workerCell.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import type { RestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { ManualClock } from '../support/manualClock.js';
import { drain, until } from '../support/until.js';

type Msg = { type: 'ask-later' } | { type: 'ask-now' } | { type: 'boom' } | { type: 'report' };
type Effect = { type: 'later' } | { type: 'now' };
interface State { reports: number; starts: number }

const policy: RestartPolicy = { strategy: 'one-for-one', restart: 'permanent', backoff: { minMs: 1_000, maxMs: 1_000, factor: 1, jitter: 0, resetAfterMs: 60_000 } };

function careless(gate: Promise<void>): ActorBehavior<State, Msg, Effect> {
  return {
    kind: 'careless',
    initialState: () => ({ reports: 0, starts: 0 }),
    onStart: (s) => ({ state: { ...s, starts: s.starts + 1 } }),
    decide(s, msg) {
      switch (msg.type) {
        case 'ask-later':
          return { state: s, effects: [{ type: 'later' }] };
        case 'ask-now':
          return { state: s, effects: [{ type: 'now' }] };
        case 'boom':
          throw new Error('kaboom');
        case 'report':
          return { state: { ...s, reports: s.reports + 1 } };
      }
    },
    // Deliberately never looks at ctx.signal: the runtime must fence it.
    async perform(effect, ctx) {
      if (effect.type === 'later') await gate;
      ctx.self.tell({ type: 'report' });
    },
  };
}

function setup(t: { teardown(fn: () => void): void }, gate: Promise<void>): { clock: ManualClock; sys: ActorSystem; ref: ActorRef<Msg> } {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  t.teardown(() => sys.stop());
  const ref = sys.root.spawnSupervisor('group', { policy }).spawn('a', careless(gate));
  return { clock, sys, ref };
}
const state = (ref: ActorRef<Msg>): State | undefined => (ref as WorkerCell<State, Msg, Effect>).state;

t.test('an effect finishing after a restart does not report into the new incarnation', async (t) => {
  let open = (): void => {};
  const { clock, ref } = setup(t, new Promise((resolve) => { open = resolve; }));
  ref.tell({ type: 'ask-later' });
  await drain();
  ref.tell({ type: 'boom' });
  await drain();
  clock.advance(1_000);
  await until('restarted', () => state(ref)?.starts === 1 && (ref as WorkerCell<State, Msg, Effect>).status === 'running');
  open();
  await drain();
  t.equal(state(ref)?.reports, 0, 'the stale report was dropped');
  ref.tell({ type: 'ask-now' });
  await until('the new incarnation gets its own reports', () => state(ref)?.reports === 1);
});

t.test('a report already queued when the actor crashed is not handled by the next incarnation', async (t) => {
  const { clock, ref } = setup(t, Promise.resolve());
  ref.tell({ type: 'ask-now' }); // its effect tells 'report' at once, queued behind 'boom'
  ref.tell({ type: 'boom' });
  await drain();
  clock.advance(1_000);
  await until('restarted', () => (ref as WorkerCell<State, Msg, Effect>).status === 'running' && (ref as WorkerCell<State, Msg, Effect>).restarts === 1);
  await drain();
  t.equal(state(ref)?.reports, 0);
});

t.test('messages from outside are not fenced', async (t) => {
  const { ref } = setup(t, Promise.resolve());
  ref.tell({ type: 'report' });
  await until('delivered', () => state(ref)?.reports === 1);
  t.pass();
});
