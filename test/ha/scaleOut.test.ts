/**
 * Virtual nodes spread over replicas (src/ha/membership.ts, lockGroup.ts): with N replicas and M
 * nodes each holds at most ⌈M/N⌉ while its peers are healthy, a dead peer's nodes are taken
 * within the lock duration, and a replica that joins is given nodes back one at a time, each
 * hand-over fenced (the giver stops driving before the lock is released). In memory, on one clock.
 */
import t from 'tap';
import { ManualClock } from '../support/manualClock.js';
import { FakeLeaseApi } from '../actors/fakes/fakeLeaseApi.js';
import { kubeError } from '../support/kubeErrors.js';
import { memberName } from '../../src/ha/membership.js';
import { advanceUntil, NS, replica, run, type Replica } from './replicas.js';

const NODES = Array.from({ length: 9 }, (_, i) => `vk-${i + 1}`);
const counts = (rs: readonly Replica[]): number[] => rs.map((r) => r.driving.size);
/** When `r` gave a node back, from its log (`<at> -<node>`). */
const giveBacks = (r: Replica): number[] => r.log.filter((l) => l.includes(' -')).map((l) => Number(l.split(' ')[0]));

/** Replica a alone, driving the first `n` nodes; `api` wraps the shared store for a's own calls. */
async function soleReplica(t: { teardown(fn: () => unknown): void }, n: number, api: (store: FakeLeaseApi) => FakeLeaseApi = (store) => store) {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const nodes = NODES.slice(0, n);
  const a = replica('a', nodes, api(store), clock);
  t.teardown(() => a.locks.stop());
  await advanceUntil(clock, () => a.driving.size === n, 120_000);
  return { clock, store, nodes, a };
}

/** Advances the clock like `advanceUntil`, noting the first moment any node is driven by two replicas. */
function watched(clock: ManualClock, rs: () => readonly Replica[]): { until(what: () => boolean, limitMs: number): Promise<number>; overlap(): string | undefined } {
  let overlap: string | undefined;
  const check = (): void => {
    for (const node of NODES) {
      const by = rs().filter((r) => r.driving.has(node)).length;
      if (by > 1) overlap ??= `${node} driven by ${by} replicas at ${clock.now()}`;
    }
  };
  return { until: (what, limitMs) => advanceUntil(clock, () => (check(), what()), limitMs), overlap: () => overlap };
}

t.test('three replicas, nine nodes: 3/3/3; one dies: the others drive all nine within the lock duration and settle 5/4; it comes back: 3/3/3 again, one give-back at a time', async (t) => {
  const clock = new ManualClock();
  const store = new FakeLeaseApi();
  const start = (id: string): Replica => replica(id, NODES, store, clock);
  let rs = [start('a'), start('b'), start('c')];
  t.teardown(() => Promise.all(rs.map((r) => r.locks.stop())));
  const { until, overlap } = watched(clock, () => rs);
  await until(() => counts(rs).join() === '3,3,3', 120_000);
  await run(clock, 30_000);
  t.same(counts(rs), [3, 3, 3], 'stays 3/3/3 while every replica is healthy');

  const [a, b, c] = rs as [Replica, Replica, Replica];
  const cHeld = [...c.driving];
  await c.locks.stop({ release: false }); // as kill -9: its locks and its membership Lease are left to expire
  rs = [a, b];
  const took = await until(() => cHeld.every((n) => a.driving.has(n) || b.driving.has(n)), 30_000);
  t.ok(took <= 15_000 + 2 * 2_000, `c's nodes driven again ${took} ms after it died (lock duration 15 s, retry 2 s)`);
  await until(() => counts(rs).sort().join() === '4,5', 120_000);
  await run(clock, 60_000);
  t.same(counts(rs).sort(), [4, 5], 'two replicas settle at ⌈9/2⌉ and the rest, never above');

  const gaveBack = (r: Replica): number => giveBacks(r).length;
  const before = { a: gaveBack(a), b: gaveBack(b) };
  const c2 = start('c');
  rs = [a, b, c2];
  const back = await until(() => counts(rs).join() === '3,3,3', 120_000);
  t.ok(back > 0, `3/3/3 again ${back} ms after c came back`);
  t.equal(gaveBack(a) - before.a + gaveBack(b) - before.b, 3, 'exactly the three nodes c needs were given up, no more');
  await run(clock, 60_000);
  t.same(counts(rs), [3, 3, 3], 'and it stays there');
  t.equal(store.get(NS, memberName('c'))?.spec?.holderIdentity, 'c', 'c keeps its membership Lease');
  t.equal(overlap(), undefined, 'no node was ever driven by two replicas');
});

t.test('a replica gives back at most one node per lock duration', async (t) => {
  const { clock, store, nodes, a } = await soleReplica(t, 6);
  const b = replica('b', nodes, store, clock);
  t.teardown(() => b.locks.stop());
  await advanceUntil(clock, () => b.driving.size === 3, 120_000);
  const losses = giveBacks(a);
  t.equal(losses.length, 3);
  for (let i = 1; i < losses.length; i += 1) t.ok(losses[i]! - losses[i - 1]! >= 15_000, `give-back ${i + 1} came ${losses[i]! - losses[i - 1]!} ms after the one before`);
});

t.test('a replica whose listings stop gives nothing back: the last listing is not trusted for long', async (t) => {
  let listing = true;
  const { clock, store, nodes, a } = await soleReplica(t, 4, (store) => Object.assign(Object.create(store) as FakeLeaseApi, {
    listLeases: (ns: string, selector: string) => (listing ? store.listLeases(ns, selector) : Promise.reject(kubeError('transient', 'list leases'))),
  }));
  listing = false; // a's view of its peers ends here, before b joins
  const b = replica('b', nodes, store, clock);
  t.teardown(() => b.locks.stop());
  await run(clock, 60_000);
  t.equal(a.driving.size, 4, 'a keeps its nodes: no listing since says b is live');
  t.equal(b.driving.size, 0);
  listing = true;
  await advanceUntil(clock, () => b.driving.size === 2, 60_000);
  t.equal(a.driving.size, 2, 'listing again: it gives back to 2/2');
});

t.test('a peer configured with other nodes is never given one (a config rollout half done)', async (t) => {
  const { clock, store, a } = await soleReplica(t, 4);
  const b = replica('b', [], store, clock);
  t.teardown(() => b.locks.stop());
  let undriven = 0;
  for (let i = 0; i < 1_200; i += 1) {
    await run(clock, 100);
    if (a.driving.size < 4) undriven += 100;
  }
  t.equal(undriven, 0, 'every node driven all the while');
  t.same(giveBacks(a), [], 'nothing given back');
});

t.test('a peer that renews but cannot take the node: the node comes back, and each time the wait before the next give-back doubles', async (t) => {
  const { clock, store, nodes, a } = await soleReplica(t, 4);
  // b's node-lock writes are refused (its lock actors cannot take), its membership Lease is fine.
  const refused = (lease: { metadata?: { name?: string } }) => lease.metadata?.name?.startsWith('tether-node-') ?? false;
  const bApi = Object.assign(Object.create(store) as FakeLeaseApi, {
    createLease: (l: Parameters<FakeLeaseApi['createLease']>[0]) => (refused(l) ? Promise.reject(kubeError('forbidden', 'create lease')) : store.createLease(l)),
    updateLease: (l: Parameters<FakeLeaseApi['updateLease']>[0]) => (refused(l) ? Promise.reject(kubeError('forbidden', 'update lease')) : store.updateLease(l)),
  });
  const b = replica('b', nodes, bApi, clock);
  t.teardown(() => b.locks.stop());
  await run(clock, 240_000);
  t.equal(b.driving.size, 0);
  const gives = giveBacks(a);
  t.ok(gives.length >= 2 && gives.length <= 4, `${gives.length} give-backs in 240 s (a lock duration apart each time, they would be about ten)`);
  const gaps = gives.slice(1).map((g, i) => g - gives[i]!);
  t.ok(gaps.every((g, i) => i === 0 || g > gaps[i - 1]!), `the waits grow: ${gaps.join(', ')} ms`);
  await advanceUntil(clock, () => a.driving.size === 4, 30_000);
  t.pass('and every node given back comes back to a');
});
