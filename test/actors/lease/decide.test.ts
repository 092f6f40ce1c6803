/** The lease actor's decisions, message by message: cadence, backoff, lag, ownership, stop. */
import t from 'tap';
import { withLeaseDefaults } from '../../../src/actors/lease/config.js';
import { decideLease, initialLeaseState, startLease } from '../../../src/actors/lease/decide.js';
import type { LeaseEffect, LeaseMsg, LeaseState } from '../../../src/actors/lease/protocol.js';

const config = withLeaseDefaults({ nodeName: 'vn-1' });
const T0 = 5_000_000;
const renewed: LeaseMsg = { type: 'lease.renewed', lease: { metadata: { name: 'vn-1', resourceVersion: '7' } } };
const failed: LeaseMsg = { type: 'lease.renew-failed', error: '503 ServiceUnavailable: etcd leader changed' };
const tick: LeaseMsg = { type: 'lease.tick' };

function step(state: LeaseState, msg: LeaseMsg, now: number): { state: LeaseState; effects: readonly LeaseEffect[] } {
  const next = decideLease(config, state, msg, now);
  return { state: next.state, effects: next.effects ?? [] };
}

t.test('renews at start, then every renewIntervalMs after each success', async (t) => {
  const start = startLease(initialLeaseState(), T0);
  t.same(start.effects, [{ type: 'renew', renewAt: T0, known: undefined, nodeUid: undefined }]);
  const ok = step(start.state, renewed, T0 + 30);
  t.same(ok.effects, [{ type: 'schedule', ms: 10_000, msg: tick }]);
  t.equal(ok.state.lease?.metadata?.resourceVersion, '7', 'the stored Lease is kept for the next update');
  const next = step(ok.state, tick, T0 + 10_030);
  t.same(next.effects, [{ type: 'renew', renewAt: T0 + 10_030, known: renewed.lease, nodeUid: undefined }]);
});

t.test('failures retry quickly with a doubling backoff, capped, then the normal cadence resumes', async (t) => {
  let s = startLease(initialLeaseState(), T0).state;
  const delays: number[] = [];
  for (let i = 0; i < 7; i++) {
    const f = step(s, failed, T0);
    delays.push(...f.effects.flatMap((e) => (e.type === 'schedule' ? [e.ms] : [])));
    s = step(f.state, tick, T0).state;
  }
  t.same(delays, [200, 400, 800, 1600, 3200, 6400, 7000]);
  t.equal(s.lastError, failed.type === 'lease.renew-failed' ? failed.error : '');
  const ok = step(s, renewed, T0 + 25_000);
  t.same(ok.effects, [{ type: 'schedule', ms: 10_000, msg: tick }], 'back to every 10 s');
  t.equal(ok.state.failures, 0);
  t.equal(ok.state.lastError, undefined);
});

t.test('renew lag is the success time minus the time the renewal was due', async (t) => {
  const table = [
    { name: 'on time', msgs: [renewed], at: [T0 + 40], lag: 40 },
    { name: 'late after failures', msgs: [failed, tick, failed, tick, renewed], at: [T0 + 10, T0 + 210, T0 + 220, T0 + 620, T0 + 700], lag: 700 },
  ];
  for (const row of table) {
    let s = startLease(initialLeaseState(), T0).state;
    row.msgs.forEach((msg, i) => (s = step(s, msg, row.at[i] ?? 0).state));
    t.equal(s.lastLagMs, row.lag, row.name);
    t.equal(s.maxLagMs, row.lag, `${row.name}: max`);
  }
  let s = step(startLease(initialLeaseState(), T0).state, renewed, T0 + 10).state;
  s = step(step(s, tick, T0 + 10_510).state, renewed, T0 + 10_520).state;
  t.equal(s.lastLagMs, 510, 'the next renewal is due renewIntervalMs after the previous success');
  t.equal(s.renewals, 2);
});

t.test('the node uid is used from the next renewal on', async (t) => {
  let s = step(startLease(initialLeaseState(), T0).state, renewed, T0).state;
  s = step(s, { type: 'lease.node-registered', uid: 'node-uid-1' }, T0 + 1).state;
  t.match(step(s, tick, T0 + 10_000).effects, [{ type: 'renew', nodeUid: 'node-uid-1' }]);
});

t.test('stop: no more renewals, whatever arrives', async (t) => {
  const s = step(startLease(initialLeaseState(), T0).state, { type: 'lease.stop' }, T0).state;
  t.equal(s.phase, 'stopped');
  t.same(step(s, renewed, T0 + 5).effects, [], 'a renewal in flight finishes without scheduling another');
  t.same(step(s, failed, T0 + 5).effects, []);
  t.same(step(step(s, renewed, T0 + 5).state, tick, T0 + 10_000).effects, []);
});

t.test('a tick while a renewal is in flight does not start a second one', async (t) => {
  const s = startLease(initialLeaseState(), T0).state;
  t.same(step(s, tick, T0 + 1).effects, []);
});
