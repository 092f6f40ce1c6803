/**
 * The lock actors in the supervision tree: shown in the live tree, restarted by the `ha`
 * supervisor, and never leaving a node driven by two replicas when one crashes while holding.
 */
import t from 'tap';
import { ManualClock } from '../support/manualClock.js';
import type { LeaseListApi } from '../../src/adapters/kubernetes/leaseApi.js';
import { FakeLeaseApi } from '../actors/fakes/fakeLeaseApi.js';
import { toKubeApiError } from '../../src/adapters/kubernetes/errors.js';
import { advanceUntil, holderAndStandby, NS, replica, run } from './replicas.js';

/** The shared store, with a defect in this replica's reads while `broken()` says so (not an API failure). */
function buggy(store: FakeLeaseApi, broken: () => boolean, bug: () => unknown = () => new TypeError('lock bug')): LeaseListApi {
  const api = Object.create(store) as FakeLeaseApi;
  api.getLease = (ns, name) => (broken() ? Promise.reject(bug()) : store.getLease(ns, name));
  return api;
}

t.test('the lock actors and the membership actor show in the live tree: tether/ha/lock-<node> with what each holds and saw, tether/ha/members with the live replicas and the takers', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const a = replica('a', ['vk-1', 'vk-2'], store, clock);
  t.teardown(() => a.locks.stop());
  await advanceUntil(clock, () => a.driving.size === 2, 60_000);
  const b = replica('b', ['vk-1', 'vk-2'], store, clock);
  t.teardown(() => b.locks.stop());
  await run(clock, 3_000);
  const shown = (r: typeof a, path: string) => r.system.snapshot().find((s) => s.path === path);
  t.match(shown(a, 'tether/ha'), { kind: 'ha', parent: 'tether', status: 'running', children: 3, summary: { identity: 'a', nodes: 2, holding: 2, replicas: 'a,b', spread: 'vk-1=a,vk-2=a' } });
  t.match(shown(b, 'tether/ha/members'), { kind: 'ha-members', status: 'running', summary: { identity: 'b', live: 'a,b', takers: 'a,b' } });
  t.match(shown(a, 'tether/ha/lock-vk-1'), {
    kind: 'node-lock', status: 'running', restarts: 0,
    summary: { lock: `${NS}/tether-node-vk-1`, node: 'vk-1', holding: true, phase: 'running' },
  });
  t.match(shown(b, 'tether/ha/lock-vk-2'), { kind: 'node-lock', summary: { holding: false, holder: 'a' } }, 'a standby shows who holds the lock');
  t.same(a.system.snapshot({ root: 'tether/ha', depth: 1 }).map((s) => s.path).sort(), ['tether/ha', 'tether/ha/lock-vk-1', 'tether/ha/lock-vk-2', 'tether/ha/members']);
});

t.test('a crash of the lock actor while holding gives the node up at once; its restart takes the lock back, and the standby never drives it meanwhile', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  let bug = false;
  const { a, b } = await holderAndStandby(t, clock, store, 3_000, buggy(store, () => bug && !(bug = false)));
  let overlap = false;
  const watch = (): boolean => (overlap ||= a.driving.has('vk-1') && b.driving.has('vk-1'));
  const lockOfA = () => a.system.snapshot().find((s) => s.path === 'tether/ha/lock-vk-1');
  bug = true; // the next look of a's lock actor meets a defect
  await advanceUntil(clock, () => watch() || !a.driving.has('vk-1'), 3_000);
  t.match(lockOfA(), { status: 'restarting', restarts: 1, lastError: { message: /lock bug/ } }, 'given up when the actor crashed, before its restart');
  t.notOk(a.locks.isHolding('vk-1'));
  const back = await advanceUntil(clock, () => watch() || a.driving.has('vk-1'), 10_000);
  t.ok(back < 3_000, `the restarted actor took its own lock back (${back} ms)`);
  await run(clock, 20_000);
  watch();
  t.notOk(overlap, 'never driven by both replicas');
  t.ok(a.driving.has('vk-1') && !b.driving.has('vk-1'));
  t.match(lockOfA(), { status: 'running', restarts: 1, summary: { holding: true } });
  t.equal(store.get(NS, 'tether-node-vk-1')?.spec?.holderIdentity, 'a');
});

t.test('a lock actor that keeps crashing is given up alone: its node goes to the other replica, never driven by two', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  let broken = false;
  const { a, b } = await holderAndStandby(t, clock, store, 3_000, buggy(store, () => broken));
  let overlap = false;
  broken = true;
  const took = await advanceUntil(clock, () => (overlap ||= a.driving.has('vk-1') && b.driving.has('vk-1')) || b.driving.has('vk-1'), 60_000);
  t.notOk(overlap, 'never driven by both replicas');
  t.ok(b.driving.has('vk-1') && !a.driving.has('vk-1'), `b took the node ${took} ms after a's defect`);
  const lockOfA = () => a.system.snapshot().find((s) => s.path === 'tether/ha/lock-vk-1');
  await advanceUntil(clock, () => (overlap ||= a.driving.has('vk-1') && b.driving.has('vk-1')) || lockOfA()?.status === 'failed', 60_000);
  t.notOk(overlap, 'still never driven by both');
  t.match(lockOfA(), { status: 'failed', restarts: 5 }, 'a\'s lock actor given up after its restart budget (5 a minute)');
  t.match(a.system.snapshot().find((s) => s.path === 'tether/ha'), { status: 'running' }, 'the ha supervisor itself keeps running');
});

t.test('a defect the adapter wrapped (a KubeApiError without a kind) crashes the lock actor like the defect itself: no failed call to retry', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  let bug = false;
  const wrapped = () => toKubeApiError(new TypeError('lock bug'), 'get lease');
  const { a } = await holderAndStandby(t, clock, store, 3_000, buggy(store, () => bug && !(bug = false), wrapped));
  const lockOfA = () => a.system.snapshot().find((s) => s.path === 'tether/ha/lock-vk-1');
  bug = true;
  await advanceUntil(clock, () => lockOfA()?.status === 'restarting', 3_000);
  t.match(lockOfA(), { restarts: 1, lastError: { message: /lock bug/ } });
  await advanceUntil(clock, () => lockOfA()?.status === 'running' && a.driving.has('vk-1'), 10_000);
});
