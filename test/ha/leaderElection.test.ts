/**
 * Per-node Lease locks (src/ha): the pure decisions as tables, then replicas (each its own actor
 * system with a lock actor per node under `tether/ha`) sharing one in-memory Lease store on a
 * manual clock: acquire, renew, spread, fail over, give up.
 */
import t from 'tap';
import { ManualClock } from '../support/manualClock.js';
import type { Lease } from '../../src/adapters/kubernetes/model.js';
import { acquireDelayMs, decideStep, fairShare, isExpired, lockLease, observe, type StepInput } from '../../src/ha/lockDecisions.js';
import { electionSettings, lockName } from '../../src/ha/settings.js';
import { FakeLeaseApi } from '../actors/fakes/fakeLeaseApi.js';
import { kubeError } from '../actors/fakes/kubeErrors.js';
import { advanceUntil, freezable, holderAndStandby, NS, replica, run } from './replicas.js';

const lease = (holder: string, renew: string, transitions = 0): Lease => ({ metadata: { name: 'x', namespace: NS }, spec: { holderIdentity: holder, renewTime: renew as unknown as Date, leaseTransitions: transitions } });

t.test('electionSettings: defaults, and the timing problems', async (t) => {
  const { settings: s, problems } = electionSettings({ namespace: NS, identity: 'a' });
  t.same(s, { namespace: NS, identity: 'a', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  t.same(problems, []);
  t.same(electionSettings({ namespace: NS, identity: 'a', leaseDurationMs: 5_000, renewDeadlineMs: 5_000 }).problems, ['leaderElection.renewDeadlineMs: must be below leaseDurationMs']);
  t.same(electionSettings({ namespace: '', identity: '', retryPeriodMs: 20_000 }).problems, [
    'leaderElection.namespace: must not be empty',
    'leaderElection.identity: must not be empty',
    'leaderElection.retryPeriodMs: must be below renewDeadlineMs',
  ]);
});

t.test('observe and isExpired: expiry is judged from when this replica first saw the record', async (t) => {
  const first = observe(undefined, lease('b', '2024-01-01T00:00:00.000000Z'), 1_000);
  t.same(first, { holder: 'b', record: 'b@2024-01-01T00:00:00.000000Z#0', observedAt: 1_000 });
  t.equal(observe(first, lease('b', '2024-01-01T00:00:00.000000Z'), 9_000), first, 'an unchanged record keeps its first sighting');
  t.equal(observe(first, lease('b', '2024-01-01T00:00:02.000000Z'), 9_000)?.observedAt, 9_000, 'a renewal is a new record');
  t.equal(observe(first, undefined, 9_000), undefined);
  t.notOk(isExpired(first!, 15_999, 15_000), 'not yet: 14.999 s unchanged');
  t.ok(isExpired(first!, 16_000, 15_000), '15 s unchanged: expired, whatever renewTime says');
  t.ok(isExpired({ holder: '', record: '', observedAt: 1_000 }, 1_000, 15_000), 'a released lock is free at once');
});

t.test('decideStep: given the lock and the clock, what to do', async (t) => {
  const base: StepInput = {
    identity: 'a', holding: false, lastRenewAt: 0, exists: true, observation: undefined, freeSince: undefined,
    delayMs: 0, now: 100_000, leaseDurationMs: 15_000, renewDeadlineMs: 10_000,
  };
  const seen = (holder: string, observedAt: number): StepInput['observation'] => ({ holder, record: holder, observedAt });
  const table: Array<[string, Partial<StepInput>, string]> = [
    ['no lock yet: create it', { exists: false }, 'create'],
    ['held by another, fresh: wait', { observation: seen('b', 95_000) }, 'wait:held-by-other'],
    ['held by another, unchanged for the duration: take it', { observation: seen('b', 85_000) }, 'take'],
    ['released: take it', { observation: seen('', 99_000) }, 'take'],
    ['our own record (a restart with the same identity): take it back', { observation: seen('a', 99_000) }, 'take'],
    ['free, but within the preference delay: wait', { exists: false, freeSince: 99_000, delayMs: 2_000 }, 'wait:preference-delay'],
    ['free, and the preference delay is over: create', { exists: false, freeSince: 98_000, delayMs: 2_000 }, 'create'],
    ['holding, renewed recently: renew', { holding: true, lastRenewAt: 98_000, observation: seen('a', 98_000) }, 'renew'],
    ['holding, but another holder wrote the lock: lost', { holding: true, lastRenewAt: 98_000, observation: seen('b', 99_000) }, 'lost'],
    ['holding, no renewal for the renew deadline: lost', { holding: true, lastRenewAt: 90_000, observation: seen('a', 90_000) }, 'lost'],
  ];
  for (const [name, input, expected] of table) {
    const step = decideStep({ ...base, ...input });
    t.equal(step.type === 'wait' ? `wait:${step.reason}` : step.type, expected, name);
  }
});

t.test('fairShare and acquireDelayMs: spread vacant locks, take expired ones fast', async (t) => {
  t.equal(fairShare(5, 2), 3);
  t.equal(fairShare(4, 0), 4, 'no replica seen counts as one');
  const delay = (o: Partial<Parameters<typeof acquireDelayMs>[0]>): number =>
    acquireDelayMs({ identity: 'a', nodeName: 'vk-1', held: 0, share: 2, vacant: true, retryPeriodMs: 2_000, leaseDurationMs: 15_000, ...o });
  const order = delay({});
  t.ok(order >= 0 && order < 2_000, 'the hash order lies within one retry period');
  t.equal(delay({}), order, 'deterministic');
  t.not(delay({ identity: 'b' }), order, 'another replica has another order');
  t.equal(delay({ held: 1 }), order + 2_000, 'one retry period per node held');
  t.equal(delay({ held: 2 }), order + 4_000 + 15_000, 'at the fair share: a lock duration more');
  t.equal(delay({ held: 2, vacant: false }), order, 'an expired lock: only the order');
});

t.test('lockLease: taking counts a transition and stamps acquireTime; renewing keeps them', async (t) => {
  const stored: Lease = { metadata: { name: 'tether-node-x', namespace: NS, resourceVersion: '7' }, spec: { holderIdentity: 'b', leaseTransitions: 2, acquireTime: new Date(1) as never } };
  const taken = lockLease(stored, { namespace: NS, name: 'tether-node-x', identity: 'a', leaseDurationMs: 15_500, now: 5_000, taking: true });
  t.match(taken, { metadata: { resourceVersion: '7' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 16, leaseTransitions: 3 } });
  t.equal((taken.spec?.acquireTime as unknown as Date).getTime(), 5_000);
  const renewed = lockLease(taken, { namespace: NS, name: 'tether-node-x', identity: 'a', leaseDurationMs: 15_500, now: 7_000, taking: false });
  t.equal(renewed.spec?.leaseTransitions, 3);
  t.equal((renewed.spec?.renewTime as unknown as Date).getTime(), 7_000);
  t.equal(lockName('vk-1'), 'tether-node-vk-1');
});

t.test('one replica: creates the lock, drives the node, renews every retry period', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const a = replica('a', ['vk-1'], store, clock);
  t.teardown(() => a.locks.stop());
  await advanceUntil(clock, () => a.driving.has('vk-1'), 3_000);
  t.equal(store.get(NS, 'tether-node-vk-1')?.spec?.holderIdentity, 'a');
  const updates = store.count('updateLease');
  await run(clock, 10_000);
  t.ok(store.count('updateLease') - updates >= 4, 'renewed about every 2 s');
  t.ok(a.driving.has('vk-1'));
});

t.test('two replicas, four nodes: every node driven by exactly one, two each', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const nodes = ['vk-1', 'vk-2', 'vk-3', 'vk-4'];
  const a = replica('a', nodes, store, clock);
  const b = replica('b', nodes, store, clock);
  t.teardown(() => Promise.all([a.locks.stop(), b.locks.stop()]));
  await advanceUntil(clock, () => a.driving.size + b.driving.size === 4, 60_000);
  await run(clock, 30_000);
  t.equal(a.driving.size + b.driving.size, 4);
  t.same([...a.driving].filter((n) => b.driving.has(n)), [], 'no node driven twice');
  t.same([a.driving.size, b.driving.size], [2, 2], 'spread evenly');
});

t.test('the holder dies: the other replica takes over once the lock has gone unrenewed for its duration', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const { a, b } = await holderAndStandby(t, clock, store, 10_000);
  t.notOk(b.driving.has('vk-1'), 'a standby while the holder renews');
  await a.locks.stop({ release: false }); // as a crash: the lock is left to expire
  const died = clock.now();
  const took = await advanceUntil(clock, () => b.driving.has('vk-1'), 30_000);
  t.ok(took >= 15_000 - 2_000 && took <= 15_000 + 2 * 2_000, `took over ${took} ms after the last renewal (duration 15 s, retry 2 s)`);
  t.equal(store.get(NS, 'tether-node-vk-1')?.spec?.leaseTransitions, 1);
  t.ok(clock.now() - died > 0);
});

t.test('a clean stop releases the lock: the other replica takes over within a retry period or so', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const { a, b } = await holderAndStandby(t, clock, store, 4_000);
  await a.locks.stop();
  t.same(a.log.at(-1)?.endsWith('-vk-1'), true, 'the stopping replica gave the node up');
  t.equal(store.get(NS, 'tether-node-vk-1')?.spec?.holderIdentity, '', 'released');
  const took = await advanceUntil(clock, () => b.driving.has('vk-1'), 10_000);
  t.ok(took <= 2 * 2_000 + 100, `took ${took} ms`);
});

t.test('a holder that cannot renew gives the node up before anyone else could take it', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const a = replica('a', ['vk-1'], store, clock);
  t.teardown(() => a.locks.stop());
  await advanceUntil(clock, () => a.driving.has('vk-1'), 3_000);
  const lastRenew = clock.now();
  store.failNext('getLease', ...Array.from({ length: 20 }, () => kubeError('transient')));
  const lost = await advanceUntil(clock, () => !a.driving.has('vk-1'), 20_000);
  t.ok(lost >= 10_000 - 2_000 && clock.now() - lastRenew < 15_000, `gave up ${clock.now() - lastRenew} ms after the last renewal: past the renew deadline, before the lock expires`);
});

t.test('another replica wrote the lock: the holder stops the node at its next look', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const a = replica('a', ['vk-1'], store, clock);
  t.teardown(() => a.locks.stop());
  await advanceUntil(clock, () => a.driving.has('vk-1'), 3_000);
  const stored = store.get(NS, 'tether-node-vk-1')!;
  await store.updateLease({ ...stored, spec: { ...stored.spec, holderIdentity: 'intruder' } });
  const lost = await advanceUntil(clock, () => !a.driving.has('vk-1'), 5_000);
  t.ok(lost <= 2_100, `stopped within one retry period (${lost} ms)`);
});

t.test('a holder whose lock calls hang loses the lock by its timer at the renew deadline, before the standby takes it', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const link = freezable(store);
  const { a, b } = await holderAndStandby(t, clock, store, 3_000, link.api);
  const renewals = store.count('updateLease');
  link.freeze();
  const frozenAt = clock.now();
  let lostAt: number | undefined;
  let takenAt: number | undefined;
  await advanceUntil(clock, () => {
    if (lostAt === undefined && !a.driving.has('vk-1')) lostAt = clock.now();
    if (takenAt === undefined && b.driving.has('vk-1')) takenAt = clock.now();
    return lostAt !== undefined && takenAt !== undefined;
  }, 30_000).catch(() => undefined);
  t.ok(store.count('updateLease') >= renewals, 'a renewed until it froze');
  t.not(lostAt, undefined, 'the frozen holder gave the node up although no call ever returned');
  t.not(takenAt, undefined, 'the standby took the node');
  t.ok(lostAt !== undefined && takenAt !== undefined && lostAt < takenAt, `a stopped (${(lostAt ?? 0) - frozenAt} ms after freezing) before b started (${(takenAt ?? 0) - frozenAt} ms)`);
  void a.locks.stop({ release: false });
});
