import t from 'tap';
import { ManualClock } from '../support/manualClock.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { walkActors } from '../../src/observability/actorQuery.js';
import { partView } from '../../src/runtime/partView.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import type { ActorBehavior, ActorRef } from '../../src/runtime/behavior.js';
import type { WorkerCell } from '../../src/runtime/workerCell.js';
import type { RestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { drain, until } from '../support/until.js';

type CounterMsg = { type: 'inc' } | { type: 'boom' } | { type: 'finish' } | { type: 'fail-effect' } | { type: 'tick-later'; ms: number };
type CounterEffect = { type: 'reject' } | { type: 'schedule'; ms: number };
interface Counter {
  n: number;
  starts: number;
}

let incarnations = 0;
const counter: ActorBehavior<Counter, CounterMsg, CounterEffect> = {
  kind: 'counter',
  initialState: () => ({ n: 0, starts: 0 }),
  onStart: (s) => {
    incarnations++;
    return { state: { ...s, starts: s.starts + 1 } };
  },
  decide(s, msg) {
    switch (msg.type) {
      case 'inc':
        return { state: { ...s, n: s.n + 1 } };
      case 'boom':
        throw new Error('kaboom');
      case 'finish':
        return { state: s, stop: true };
      case 'fail-effect':
        return { state: s, effects: [{ type: 'reject' }] };
      case 'tick-later':
        return { state: s, effects: [{ type: 'schedule', ms: msg.ms }] };
    }
  },
  async perform(effect, ctx) {
    switch (effect.type) {
      case 'reject':
        throw new Error('effect failed');
      case 'schedule':
        ctx.schedule(effect.ms, { type: 'inc' });
        return;
    }
  },
  summarize: (s) => ({ n: s.n }),
};

const backoff = { minMs: 1_000, maxMs: 8_000, factor: 2, jitter: 0, resetAfterMs: 60_000 };
const oneForOne: RestartPolicy = { strategy: 'one-for-one', restart: 'permanent', backoff };

function system(t: { teardown(fn: () => void): void }, onFatal: (e: unknown) => void = () => {}): { sys: ActorSystem; clock: ManualClock } {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal, random: () => 0.5 });
  t.teardown(() => sys.stop());
  return { sys, clock };
}
const n = (ref: ActorRef<CounterMsg>): number | undefined => (ref as WorkerCell<Counter, CounterMsg, CounterEffect>).state?.n;
const status = (sys: ActorSystem, path: string): string | undefined => sys.registry.get(path)?.snapshot().status;

t.test('one-for-one restarts only the crashed child, after its backoff', async (t) => {
  const { sys, clock } = system(t);
  const sup = sys.root.spawnSupervisor('group', { policy: oneForOne });
  const a = sup.spawn('a', counter);
  const b = sup.spawn('b', counter);
  a.tell({ type: 'inc' });
  b.tell({ type: 'inc' });
  b.tell({ type: 'inc' });
  await until('both counted', () => n(a) === 1 && n(b) === 2);

  a.tell({ type: 'boom' });
  await until('a waits to restart', () => status(sys, a.path) === 'restarting');
  a.tell({ type: 'inc' });
  await drain();
  t.equal(status(sys, a.path), 'restarting', 'not restarted before the backoff has passed');
  clock.advance(999);
  await drain();
  t.equal(status(sys, a.path), 'restarting');
  clock.advance(1);
  await until('a runs again', () => status(sys, a.path) === 'running');
  await until('the message queued during backoff is handled by the new incarnation', () => n(a) === 1);
  t.equal(n(b), 2, 'sibling kept its state');
  t.equal(sys.registry.get(a.path)?.snapshot().restarts, 1);
  t.match(sys.registry.get(a.path)?.snapshot().lastError, { message: 'kaboom' });
});

t.test('all-for-one restarts the siblings of a crashed child', async (t) => {
  const { sys, clock } = system(t);
  const sup = sys.root.spawnSupervisor('group', { policy: { ...oneForOne, strategy: 'all-for-one' } });
  const a = sup.spawn('a', counter);
  const b = sup.spawn('b', counter);
  b.tell({ type: 'inc' });
  await until('b counted', () => n(b) === 1);
  a.tell({ type: 'boom' });
  await until('b restarted with a', () => n(b) === 0);
  clock.advance(1_000);
  await until('a back', () => status(sys, a.path) === 'running' && status(sys, b.path) === 'running');
  t.equal(sys.registry.get(b.path)?.snapshot().restarts, 0, 'a sibling restart is not counted as its failure');
});

t.test('a supervisor over its intensity stops its children and fails to its parent', async (t) => {
  const { sys } = system(t);
  let starts = 0;
  const parent = sys.root.spawnSupervisor('parent', { policy: { ...oneForOne, backoff: { ...backoff, minMs: 0 } } });
  parent.spawnSupervisor('child-sup', {
    policy: { ...oneForOne, intensity: { maxRestarts: 1, withinMs: 10_000 }, backoff: { ...backoff, minMs: 0 } },
    onStart: (self) => {
      starts++;
      self.spawn('worker', counter);
      self.spawn('bystander', counter);
    },
  });
  const worker = (): ActorRef<CounterMsg> => (sys.registry.get('tether/parent/child-sup/worker') as unknown as ActorRef<CounterMsg>);
  worker().tell({ type: 'boom' });
  await until('first crash restarted in place', () => sys.registry.get('tether/parent/child-sup/worker')?.snapshot().restarts === 1);
  t.equal(starts, 1);
  worker().tell({ type: 'boom' });
  await until('the child supervisor restarted by its parent', () => starts === 2);
  t.equal(sys.registry.get('tether/parent/child-sup')?.snapshot().restarts, 1);
  t.equal(sys.supervisionEvents.escalations, 1, 'the escalation is counted for /metrics');
  await until('standing children spawned afresh', () => status(sys, 'tether/parent/child-sup/bystander') === 'running');
  t.equal(sys.registry.get('tether/parent/child-sup/bystander')?.snapshot().processed, 1, 'the bystander is a new incarnation');
});

t.test('escalation up to the root is fatal, and only then', async (t) => {
  let fatal: unknown;
  const { sys } = system(t, (e) => (fatal = e));
  const sup = sys.root.spawnSupervisor('fragile', {
    policy: { ...oneForOne, intensity: { maxRestarts: 0, withinMs: 10_000 } },
    onStart: (self) => void self.spawn('w', counter),
  });
  t.equal(fatal, undefined);
  (sys.registry.get(`${sup.path}/w`) as unknown as ActorRef<CounterMsg>).tell({ type: 'boom' });
  // the root's own policy restarts `fragile` (default root policy): not fatal
  await until('fragile restarted', () => sys.registry.get(sup.path)?.snapshot().restarts === 1);
  t.equal(fatal, undefined, 'a restartable subtree is not fatal');

  const { sys: other } = system(t);
  const strictRoot = new ActorSystem({ logger: silentLogger, onFatal: (e) => (fatal = e), rootPolicy: { ...oneForOne, intensity: { maxRestarts: 0, withinMs: 10_000 } } });
  t.teardown(() => strictRoot.stop());
  const w = strictRoot.root.spawn('w', counter);
  w.tell({ type: 'boom' });
  await until('the root failed', () => fatal !== undefined);
  t.match(String(fatal), /more than 0 restarts/);
  t.equal(strictRoot.root.snapshot().status, 'failed');
  t.equal(other.root.snapshot().status, 'running', 'other systems are untouched');
});

t.test('a transient child that finishes normally is not restarted; a permanent one is', async (t) => {
  const { sys } = system(t);
  const sup = sys.root.spawnSupervisor('group', { policy: oneForOne });
  const transient = sup.spawn('t', counter, { restart: 'transient' });
  const permanent = sup.spawn('p', counter, { restart: 'permanent' });
  permanent.tell({ type: 'inc' });
  transient.tell({ type: 'finish' });
  permanent.tell({ type: 'finish' });
  await until('transient gone', () => sup.child('t') === undefined && sys.registry.get(transient.path) === undefined);
  await until('permanent back, fresh', () => status(sys, permanent.path) === 'running' && (sup.child('p') as unknown) !== permanent);
  transient.tell({ type: 'inc' });
  t.equal(sys.deadLetters, 1, 'a message to the finished actor is a dead letter');
});

t.test('a child over its own budget is given up alone and stays visible as failed', async (t) => {
  const { sys, clock } = system(t);
  const gaveUp: string[] = [];
  const sup = sys.root.spawnSupervisor('shard', { policy: { ...oneForOne, restart: 'transient', childIntensity: { maxRestarts: 1, withinMs: 60_000 } } });
  const poison = sup.spawn('poison', counter, { onGiveUp: (reason) => gaveUp.push(reason) });
  const healthy = sup.spawn('healthy', counter);
  poison.tell({ type: 'boom' });
  await until('restarting', () => status(sys, poison.path) === 'restarting');
  clock.advance(1_000);
  await until('running', () => status(sys, poison.path) === 'running');
  poison.tell({ type: 'boom' });
  await until('given up', () => status(sys, poison.path) === 'failed');
  t.same(gaveUp, ['more than 1 restarts within 60000 ms']);
  t.same(sys.supervisionEvents, { escalations: 0, givenUp: 1 }, 'counted for /metrics');
  healthy.tell({ type: 'inc' });
  await until('sibling unaffected', () => n(healthy) === 1);
  t.equal(status(sys, sup.path), 'running');
  t.ok(sys.snapshot().some((s) => s.path === poison.path && s.status === 'failed'), 'failed actor shown in the tree');
  sup.release('poison');
  t.notOk(sys.snapshot().some((s) => s.path === poison.path), 'released when its owner lets go');
});

t.test('a crash handler that throws does not kill the process', async (t) => {
  const { sys } = system(t);
  const rejections: unknown[] = [];
  const onRejection = (e: unknown): void => void rejections.push(e);
  process.on('unhandledRejection', onRejection);
  t.teardown(() => process.off('unhandledRejection', onRejection));
  const broken = {
    strategy: 'one-for-one',
    restart: 'permanent',
    get backoff(): never {
      throw new Error('policy exploded while deciding');
    },
  } as unknown as RestartPolicy;
  const sup = sys.root.spawnSupervisor('broken', { policy: broken });
  const w = sup.spawn('w', counter);
  const other = sys.root.spawnSupervisor('other', { policy: oneForOne }).spawn('x', counter);
  w.tell({ type: 'boom' });
  await until('the crashed child is stopped instead', () => sys.registry.get(w.path) === undefined);
  other.tell({ type: 'inc' });
  await until('the rest still works', () => n(other) === 1);
  await drain();
  t.same(rejections, [], 'no unhandled rejection');
});

t.test('a rejected effect crashes the actor; timers die with the incarnation', async (t) => {
  const { sys, clock } = system(t);
  const sup = sys.root.spawnSupervisor('g', { policy: { ...oneForOne, backoff: { ...backoff, minMs: 0 } } });
  const a = sup.spawn('a', counter);
  a.tell({ type: 'tick-later', ms: 5_000 });
  a.tell({ type: 'fail-effect' });
  await until('restarted after the effect failed', () => sys.registry.get(a.path)?.snapshot().restarts === 1 && status(sys, a.path) === 'running');
  t.match(sys.registry.get(a.path)?.snapshot().lastError, { message: 'effect failed' });
  clock.advance(5_000);
  await drain();
  t.equal(n(a), 0, 'the timer of the previous incarnation did not fire into the new one');
  a.tell({ type: 'tick-later', ms: 100 });
  await drain();
  clock.advance(100);
  await until('a live timer delivers', () => n(a) === 1);
});

t.test('every incarnation runs onStart first', async (t) => {
  const { sys } = system(t);
  const before = incarnations;
  const sup = sys.root.spawnSupervisor('g', { policy: { ...oneForOne, backoff: { ...backoff, minMs: 0 } } });
  const a = sup.spawn('a', counter);
  a.tell({ type: 'boom' });
  a.tell({ type: 'inc' });
  await until('restarted and counted', () => n(a) === 1);
  t.equal(incarnations - before, 2);
});

t.test('a supervisor\'s views (parts that are not actors) are drawn below its children, fresh on every walk', async (t) => {
  const { sys } = system(t);
  let copies = 1;
  const sup = sys.root.spawnSupervisor('node-a', {
    policy: oneForOne,
    views: (self) => [partView(self.path, { name: 'services-shop', kind: 'service-reflector', summary: { copies } })],
  });
  sup.spawn('worker', counter);
  const walk = (): Array<[string, string, unknown]> =>
    sys.registry.snapshot({ root: sup.path }).map((a) => [a.path.slice(sup.path.length), a.kind, a.summary?.['copies']]);
  t.same(walk().map(([path]) => path), ['', '/worker', '/services-shop'], 'children first, then the views');
  t.match(walk()[2], ['/services-shop', 'service-reflector', 1]);
  copies = 3;
  t.match(walk()[2], ['/services-shop', 'service-reflector', 3], 'recomputed, not cached');
  t.same([...walkActors(sys.registry, { node: 'a' })].map((a) => a.name), ['node-a', 'services-shop', 'worker'], 'the paged /actors walk shows them too, in path order');
});
