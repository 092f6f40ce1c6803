/**
 * Supervision over time: each actor's and supervisor's bounded history (crashes with the
 * classified error, scheduled restarts, restarts, give-ups, escalations), the restart budgets
 * left, the last messages and effects, and the restarts counted by kind for /metrics.
 */
import t from 'tap';
import { ManualClock } from '../support/manualClock.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { KindedError } from '../../src/lib/errorKind.js';
import { Ring } from '../../src/lib/ring.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import type { ActorDetail } from '../../src/runtime/actorRegistry.js';
import type { ActorBehavior } from '../../src/runtime/behavior.js';
import type { RestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { WORKER_HISTORY } from '../../src/runtime/supervisionHistory.js';
import { until } from '../support/until.js';

type Msg = { type: 'boom'; transient?: boolean } | { type: 'work' };
const worker: ActorBehavior<null, Msg, { type: 'write' }> = {
  kind: 'pod',
  initialState: () => null,
  decide(s, msg) {
    if (msg.type === 'work') return { state: s, effects: [{ type: 'write' }] };
    throw msg.transient ? new KindedError('transient', 'the API timed out') : new Error('a bug');
  },
  perform: () => undefined,
};

const policy: RestartPolicy = {
  strategy: 'one-for-one', restart: 'transient',
  childIntensity: { maxRestarts: 2, withinMs: 60_000 }, intensity: { maxRestarts: 10, withinMs: 60_000 },
  backoff: { minMs: 1_000, maxMs: 8_000, factor: 2, jitter: 0, resetAfterMs: 60_000 },
};

function system(t: { teardown(fn: () => void): void }): { sys: ActorSystem; clock: ManualClock } {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  t.teardown(() => sys.stop());
  return { sys, clock };
}

t.test('a ring keeps the last items, oldest first, and counts them all', async (t) => {
  const ring = new Ring<number>(3);
  for (let i = 1; i <= 5; i++) ring.push(i);
  t.same(ring.list(), [3, 4, 5]);
  t.equal(ring.total, 5);
  t.throws(() => new Ring(0));
});

t.test("a crash, its restart and the give-up are in the actor's history and its supervisor's, with the error's class", async (t) => {
  const { sys, clock } = system(t);
  const shard = sys.root.spawnSupervisor('shard', { policy, kind: 'shard' });
  const pod = shard.spawn('pod-1', worker);
  const detail = (): ActorDetail => sys.registry.get(pod.path)!.detail!();
  t.same(detail().history, [], 'a pod actor that never crashed carries no history');
  t.same(detail().giveUp, { crashesLeft: 2, withinMs: 60_000 });

  pod.tell({ type: 'boom', transient: true });
  await until('restart scheduled', () => detail().history.length === 2);
  t.match(detail().history, [
    { type: 'crashed', error: { message: 'the API timed out', kind: 'transient' } },
    { type: 'restart-scheduled', delayMs: 1_000 },
  ]);
  t.same(detail().giveUp, { crashesLeft: 1, withinMs: 60_000 }, 'one crash of the budget used');
  clock.advance(1_000);
  await until('restarted', () => detail().history.length === 3);
  t.match(detail().history[2], { type: 'restarted', incarnation: 2 });

  pod.tell({ type: 'boom' });
  await until('second restart scheduled', () => detail().history.length === 5);
  clock.advance(2_000);
  await until('running again', () => sys.registry.get(pod.path)?.snapshot().status === 'running');
  pod.tell({ type: 'boom' });
  await until('given up', () => sys.registry.get(pod.path)?.snapshot().status === 'failed');
  t.match(detail().history.at(-2), { type: 'crashed', error: { kind: 'defect', message: 'a bug' } }, 'an unclassified error is a defect');
  t.match(detail().history.at(-1), { type: 'given-up', reason: /more than 2 restarts/ });

  const own = sys.registry.get(shard.path)!.detail!();
  t.match(own.history.map((e) => e.type), ['started', 'child-crashed', 'child-crashed', 'child-crashed']);
  t.match(own.history[1], { child: 'pod-1', decision: 'restart', error: { kind: 'transient' } });
  t.match(own.history[3], { decision: 'give-up' });
  t.same(own.escalation, { crashesLeft: 7, withinMs: 60_000 }, 'three crashes of the ten before it escalates');
  t.same(sys.restartsByKind, new Map([['pod', 2]]), 'restarts counted by kind for /metrics');
});

t.test("a supervisor's escalation is in its own history, and its budget shows none left", async (t) => {
  const { sys } = system(t);
  const fragile = sys.root.spawnSupervisor('fragile', { policy: { ...policy, childIntensity: undefined, intensity: { maxRestarts: 0, withinMs: 1_000 } } });
  const pod = fragile.spawn('p', worker);
  t.same(fragile.detail().escalation, { crashesLeft: 0, withinMs: 1_000 }, 'the next crash escalates');
  pod.tell({ type: 'boom' });
  await until('escalated', () => fragile.detail().history.some((e) => e.type === 'escalated'));
  t.match(fragile.detail().history.filter((e) => e.type !== 'started').map((e) => e.type), ['child-crashed', 'escalated']);
});

t.test('the history is bounded, and messages and effects are traced by type only', async (t) => {
  const { sys, clock } = system(t);
  const shard = sys.root.spawnSupervisor('shard', { policy: { ...policy, childIntensity: undefined } });
  const pod = shard.spawn('pod-1', worker);
  for (let i = 0; i < 20; i++) {
    pod.tell({ type: 'boom' });
    await until(`crash ${i} restarted`, () => {
      clock.advance(10_000);
      return sys.registry.get(pod.path)!.detail!().historyTotal === 3 * (i + 1);
    });
  }
  const detail = sys.registry.get(pod.path)!.detail!();
  t.equal(detail.history.length, WORKER_HISTORY, 'the ring holds only the last events');
  t.equal(detail.historyTotal, 60, 'and counts them all');
  pod.tell({ type: 'work' });
  await until('traced', () => sys.registry.trace.of(pod.path).some((e) => e.what === 'effect'));
  t.match(sys.registry.trace.of(pod.path).slice(-2), [{ what: 'message', type: 'work' }, { what: 'effect', type: 'write' }]);
});
