/** The lease actor's decisions, message by message, and the renewer's cadence and backoff. */
import t from 'tap';
import { withLeaseDefaults } from '../../../src/actors/lease/config.js';
import { decideLease, initialLeaseState, startLease } from '../../../src/actors/lease/decide.js';
import type { LeaseEffect, LeaseMsg, LeaseState } from '../../../src/actors/lease/protocol.js';
import { nextRenewalMs } from '../../../src/actors/lease/renewer.js';

const config = withLeaseDefaults({ nodeName: 'vn-1' });
const T0 = 5_000_000;
const renewed = (at: number, lagMs: number): LeaseMsg => ({ type: 'lease.renewed', lease: { metadata: { name: 'vn-1', resourceVersion: '7' } }, at, lagMs });
const failed = (failures: number): LeaseMsg => ({ type: 'lease.renew-failed', error: '503 ServiceUnavailable: etcd leader changed', failures });

function step(state: LeaseState, msg: LeaseMsg, now: number): { state: LeaseState; effects: readonly LeaseEffect[] } {
  const next = decideLease(config, state, msg, now);
  return { state: next.state, effects: next.effects ?? [] };
}

t.test('every incarnation starts its renewer, with the node uid it knows', async (t) => {
  t.same(startLease(initialLeaseState(), T0).effects, [{ type: 'start-renewer', nodeUid: undefined }]);
});

t.test('the renewer renews every renewIntervalMs; after failures it backs off, doubling with jitter, capped', async (t) => {
  t.equal(nextRenewalMs(config, 0), 10_000, 'the cadence after a success');
  const mid = (): number => 0.5; // the jitter's centre: the plain doubling
  t.same([1, 2, 3, 4, 5, 6, 7, 8].map((f) => nextRenewalMs(config, f, mid)), [200, 400, 800, 1600, 3200, 6400, 7000, 7000]);
  const low = nextRenewalMs(config, 3, () => 0);
  const high = nextRenewalMs(config, 3, () => 0.999);
  t.ok(low < 800 && high > 800 && low >= 800 * 0.8 && high <= 800 * 1.2, `jittered within 20 %: ${low}..${high}`);
});

t.test('outcomes are recorded: renewals, failures, the lag the renewer measured', async (t) => {
  let s = startLease(initialLeaseState(), T0).state;
  s = step(s, renewed(T0 + 40, 40), T0 + 500).state;
  t.match(s, { renewals: 1, lastRenewAt: T0 + 40, lastLagMs: 40, maxLagMs: 40, failures: 0 }, 'the renewer\'s figures, not the mailbox\'s time');
  s = step(step(s, failed(1), T0 + 10_010).state, failed(2), T0 + 10_210).state;
  t.match(s, { failures: 2, lastError: /etcd leader changed/ });
  s = step(s, renewed(T0 + 10_700, 700), T0 + 10_700).state;
  t.match(s, { renewals: 2, failures: 0, lastError: undefined, lastLagMs: 700, maxLagMs: 700 });
});

t.test('the node uid goes to the renewer, for the next renewal', async (t) => {
  const s = startLease(initialLeaseState(), T0).state;
  const r = step(s, { type: 'lease.node-registered', uid: 'node-uid-1' }, T0 + 1);
  t.same(r.effects, [{ type: 'set-owner', uid: 'node-uid-1' }]);
  t.equal(r.state.nodeUid, 'node-uid-1');
});

t.test('stop: the renewer stops, once', async (t) => {
  const r = step(startLease(initialLeaseState(), T0).state, { type: 'lease.stop' }, T0);
  t.equal(r.state.phase, 'stopped');
  t.same(r.effects, [{ type: 'stop-renewer' }]);
  t.same(step(r.state, { type: 'lease.stop' }, T0).effects, []);
  t.same(step(r.state, renewed(T0 + 5, 0), T0 + 5).effects, [], 'a renewal that was in flight changes only the figures');
});

t.test('a renewer that met a bug crashes the actor (which restarts it)', async (t) => {
  const error = new TypeError('boom');
  t.same(step(initialLeaseState(), { type: 'lease.renewer-crashed', error }, T0).effects, [{ type: 'crash', error }]);
});
