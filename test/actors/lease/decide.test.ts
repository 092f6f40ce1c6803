/** The lease actor's decisions, message by message: the cadence, the backoff, the lag, the owner, stop. */
import t from 'tap';
import { withLeaseDefaults } from '../../../src/actors/lease/config.js';
import { decideLease, initialLeaseState, nextRenewalMs, startLease } from '../../../src/actors/lease/decide.js';
import type { LeaseEffect, LeaseMsg, LeaseState } from '../../../src/actors/lease/protocol.js';

const config = withLeaseDefaults({ nodeName: 'vn-1' });
const T0 = 5_000_000;
const stored = { metadata: { name: 'vn-1', resourceVersion: '7' } };
const renewed = (at: number): LeaseMsg => ({ type: 'lease.renewed', lease: stored, at });
const failed = (at: number, jitter = 0.5): LeaseMsg => ({ type: 'lease.renew-failed', error: '503 ServiceUnavailable: etcd leader changed', at, jitter });

function step(state: LeaseState, msg: LeaseMsg, now: number): { state: LeaseState; effects: readonly LeaseEffect[] } {
  const next = decideLease(config, state, msg, now);
  return { state: next.state, effects: next.effects ?? [] };
}

t.test('every incarnation renews at once, with the node uid it knows', async (t) => {
  const r = startLease(initialLeaseState(), T0);
  t.same(r.effects, [{ type: 'renew', attempt: 0, startAt: T0, nodeUid: undefined, known: undefined }]);
  t.match(r.state, { dueAt: T0, nextAt: T0 });
});

t.test('the cadence is every renewIntervalMs; after failures it backs off, doubling with jitter, capped', async (t) => {
  t.equal(nextRenewalMs(config, 0), 10_000, 'the cadence after a success');
  const mid = (): number => 0.5; // the jitter's centre: the plain doubling
  t.same([1, 2, 3, 4, 5, 6, 7, 8].map((f) => nextRenewalMs(config, f, mid)), [200, 400, 800, 1600, 3200, 6400, 7000, 7000]);
  const low = nextRenewalMs(config, 3, () => 0);
  const high = nextRenewalMs(config, 3, () => 0.999);
  t.ok(low < 800 && high > 800 && low >= 800 * 0.8 && high <= 800 * 1.2, `jittered within 20 %: ${low}..${high}`);
});

t.test('each outcome decides the next renewal, in absolute time: a report late in the mailbox does not shift the cadence', async (t) => {
  let s = startLease(initialLeaseState(), T0).state;
  let r = step(s, renewed(T0 + 40), T0 + 500);
  t.same(r.effects, [{ type: 'renew', attempt: 1, startAt: T0 + 40 + 10_000, nodeUid: undefined, known: stored }], 'due a cadence after the renewal, not after the report was read');
  s = r.state;
  r = step(s, failed(T0 + 10_040), T0 + 10_300);
  t.same(r.effects, [{ type: 'renew', attempt: 2, startAt: T0 + 10_040 + 200, nodeUid: undefined, known: stored }], 'the first retry 200 ms after the failure');
  r = step(r.state, failed(T0 + 10_240, 0.999), T0 + 10_240);
  t.match(r.effects, [{ type: 'renew', attempt: 3 }]);
  const retryIn = (r.effects[0] as { startAt: number }).startAt - (T0 + 10_240);
  t.ok(retryIn > 400 && retryIn <= 480, `the second doubles, with the drawn jitter: ${retryIn} ms`);
});

t.test('outcomes are recorded: renewals, failures, the lag against the due time', async (t) => {
  let s = startLease(initialLeaseState(), T0).state;
  s = step(s, renewed(T0 + 40), T0 + 500).state;
  t.match(s, { renewals: 1, lastRenewAt: T0 + 40, lastLagMs: 40, maxLagMs: 40, failures: 0 }, "the renewal's clock, not the mailbox's time");
  s = step(step(s, failed(T0 + 10_040), T0 + 10_040).state, failed(T0 + 10_240), T0 + 10_240).state;
  t.match(s, { failures: 2, lastError: /etcd leader changed/ });
  s = step(s, renewed(T0 + 10_740), T0 + 10_740).state;
  t.match(s, { renewals: 2, failures: 0, lastError: undefined, lastLagMs: 700, maxLagMs: 700 }, 'late against the cadence, not against the retry');
});

t.test('the node uid goes to the renewal waiting for its time (same attempt, same time)', async (t) => {
  const s = step(startLease(initialLeaseState(), T0).state, renewed(T0), T0).state;
  const r = step(s, { type: 'lease.node-registered', uid: 'node-uid-1' }, T0 + 1);
  t.same(r.effects, [{ type: 'renew', attempt: 1, startAt: T0 + 10_000, nodeUid: 'node-uid-1', known: stored }]);
  t.equal(r.state.nodeUid, 'node-uid-1');
  t.match(step(r.state, renewed(T0 + 10_000), T0 + 10_000).effects, [{ attempt: 2, nodeUid: 'node-uid-1' }], 'and to every renewal after it');
});

t.test('stop: renewals stop, once; outcomes after it change only the figures', async (t) => {
  const r = step(startLease(initialLeaseState(), T0).state, { type: 'lease.stop' }, T0);
  t.equal(r.state.phase, 'stopped');
  t.same(r.effects, [{ type: 'stop-renewal' }]);
  t.same(step(r.state, { type: 'lease.stop' }, T0).effects, []);
  t.same(step(r.state, renewed(T0 + 5), T0 + 5).effects, [], 'a renewal that was in flight changes only the figures');
  t.same(step(r.state, failed(T0 + 5), T0 + 5).effects, []);
  t.same(step(r.state, { type: 'lease.node-registered', uid: 'u' }, T0 + 5).effects, []);
});
