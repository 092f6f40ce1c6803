/** A node lock's decisions, message by message (src/ha/lockDecide.ts): looks, writes, holds, the deadline, stop. */
import t from 'tap';
import type { Lease } from '../../src/adapters/kubernetes/model.js';
import { decideLock, initialLockState, startLock, type LockConfig } from '../../src/ha/lockDecide.js';
import type { LockEffect, LockMsg, LockState } from '../../src/ha/lockProtocol.js';
import { settings } from './replicas.js';

const config: LockConfig = { nodeName: 'vk-1', name: 'tether-node-vk-1', settings };
const T0 = 1_000_000;
const alone = { held: 0, share: 1, giveBack: false };
const ours = (rv: string): Lease => ({ metadata: { name: 'tether-node-vk-1', namespace: settings.namespace, resourceVersion: rv }, spec: { holderIdentity: 'a', renewTime: new Date(T0) as never } });

function step(state: LockState, msg: LockMsg, now: number): { state: LockState; effects: readonly LockEffect[] } {
  const next = decideLock(config, state, msg, now);
  return { state: next.state, effects: next.effects ?? [] };
}
const types = (effects: readonly LockEffect[]): string[] => effects.map((e) => e.type);

/** From a fresh incarnation to holding the lock it created (looks 1 and 2). */
function holding(): LockState {
  let s = startLock(config, initialLockState(), T0).state;
  // Free (no lock) and the preference delay passed: create.
  s = step(s, { type: 'lock.read', seq: 1, lease: undefined, spread: alone }, T0).state;
  s = step(s, { type: 'lock.look' }, T0 + 5_000).state;
  s = step(s, { type: 'lock.read', seq: 2, lease: undefined, spread: alone }, T0 + 5_000).state;
  return step(s, { type: 'lock.written', seq: 2, lease: ours('1') }, T0 + 5_010).state;
}

t.test('every incarnation starts holding nothing: it resets what it shared and looks at once, within the renew deadline', async (t) => {
  const r = startLock(config, initialLockState(), T0);
  t.same(r.effects, [{ type: 'share', taking: false, holder: undefined }, { type: 'read', seq: 1, deadlineAt: T0 + 10_000 }]);
});

t.test('a write answered takes the lock: hold with the deadline from when the write was decided, and the next look a retry period on', async (t) => {
  let s = startLock(config, initialLockState(), T0).state;
  s = step(s, { type: 'lock.read', seq: 1, lease: undefined, spread: alone }, T0).state;
  s = step(s, { type: 'lock.look' }, T0 + 5_000).state;
  const read = step(s, { type: 'lock.read', seq: 2, lease: undefined, spread: alone }, T0 + 5_000);
  t.same(types(read.effects), ['write', 'share'], 'free and past the preference delay: create, and share that this lock is being taken');
  const r = step(read.state, { type: 'lock.written', seq: 2, lease: ours('1') }, T0 + 5_300);
  t.same(r.effects, [{ type: 'hold', gen: 1, deadlineAt: T0 + 15_000 }, { type: 'schedule', ms: 2_000, msg: { type: 'lock.look' } }, { type: 'share', taking: false, holder: undefined }]);
  t.match(r.state.hold, { gen: 1, lastRenewAt: T0 + 5_000 });
});

t.test('our own record left by a crashed incarnation is free at once: taken back after the hash order, not after expiry', async (t) => {
  let s = startLock(config, initialLockState(), T0).state;
  const first = step(s, { type: 'lock.read', seq: 1, lease: ours('4'), spread: alone }, T0);
  t.equal(first.state.freeSince, T0);
  s = step(first.state, { type: 'lock.look' }, T0 + 2_000).state;
  const r = step(s, { type: 'lock.read', seq: 2, lease: ours('4'), spread: alone }, T0 + 2_000);
  t.match(r.effects, [{ type: 'write', kind: 'take' }]);
});

t.test('the deadline passed with a look in flight: its late answer changes nothing, and one next look is scheduled', async (t) => {
  let s = holding();
  s = step(s, { type: 'lock.look' }, T0 + 7_000).state;
  s = step(s, { type: 'lock.read', seq: 3, lease: ours('1'), spread: alone }, T0 + 7_000).state;
  t.equal(s.look?.writing?.kind, 'renew');
  const lost = step(s, { type: 'lock.deadline-passed', gen: 1 }, T0 + 15_000);
  t.same(lost.effects, [{ type: 'schedule', ms: 2_000, msg: { type: 'lock.look' } }]);
  t.equal(lost.state.hold, undefined);
  t.same(step(lost.state, { type: 'lock.written', seq: 3, lease: ours('2') }, T0 + 16_000).effects, [], 'a renewal that landed late is no hold');
  t.same(step(lost.state, { type: 'lock.deadline-passed', gen: 1 }, T0 + 16_000).effects, [], 'told twice: once is enough');
});

t.test('the deadline passed between looks: no second look is scheduled (one look or one wait at a time)', async (t) => {
  const s = holding();
  t.same(step(s, { type: 'lock.deadline-passed', gen: 1 }, T0 + 15_000).effects, []);
  t.same(step(s, { type: 'lock.deadline-passed', gen: 7 }, T0 + 15_000).state, s, 'another hold\'s deadline is not this one\'s');
});

t.test('another holder seen: lost, the node given up at once', async (t) => {
  const s = step(holding(), { type: 'lock.look' }, T0 + 7_000).state;
  const intruder: Lease = { ...ours('9'), spec: { holderIdentity: 'b', renewTime: new Date(T0 + 6_000) as never } };
  const r = step(s, { type: 'lock.read', seq: 3, lease: intruder, spread: alone }, T0 + 7_000);
  t.same(r.effects.filter((e) => e.type === 'lose'), [{ type: 'lose', gen: 1, why: 'the lock is held by b' }]);
  t.equal(r.state.hold, undefined);
});

t.test('stop while holding: the node is given up, then the lock released (given back with an empty holder)', async (t) => {
  const r = step(holding(), { type: 'lock.stop', release: true }, T0 + 8_000);
  t.same(types(r.effects), ['lose', 'stopped']);
  const stopped = r.effects[1] as Extract<LockEffect, { type: 'stopped' }>;
  t.match(stopped.release, { metadata: { resourceVersion: '1' }, spec: { holderIdentity: '', leaseDurationSeconds: 1 } });
  t.same(step(holding(), { type: 'lock.stop', release: false }, T0 + 8_000).effects.at(-1), { type: 'stopped', release: undefined }, 'or left to expire');
  t.same(step(r.state, { type: 'lock.look' }, T0 + 9_000).effects, [], 'a stopped lock looks no more');
});

t.test('giving the node back: the hold is lost before the lock is written with an empty holder, and that write is no hold', async (t) => {
  const s = step(holding(), { type: 'lock.look' }, T0 + 7_000).state;
  const r = step(s, { type: 'lock.read', seq: 3, lease: ours('1'), spread: { held: 5, share: 3, giveBack: true } }, T0 + 7_000);
  t.same(types(r.effects), ['lose', 'gave-back', 'write'], 'fenced first: the node stops being driven before the release leaves');
  t.match(r.effects[2], { kind: 'release', lease: { metadata: { resourceVersion: '1' }, spec: { holderIdentity: '', leaseDurationSeconds: 1 } } });
  t.equal(r.state.hold, undefined);
  t.equal(r.state.givenBack, 1);
  const released: Lease = { ...ours('2'), spec: { holderIdentity: '', renewTime: new Date(T0 + 7_000) as never } };
  const w = step(r.state, { type: 'lock.written', seq: 3, lease: released }, T0 + 7_050);
  t.same(w.effects, [{ type: 'schedule', ms: 2_000, msg: { type: 'lock.look' } }], 'no hold from the release, only the next look');
  t.equal(w.state.hold, undefined);
});

t.test('a lock given back is not taken back before the preference delay: free since the release, not since it was first seen free before it was held', async (t) => {
  let s = step(holding(), { type: 'lock.look' }, T0 + 7_000).state;
  s = step(s, { type: 'lock.read', seq: 3, lease: ours('1'), spread: { held: 5, share: 3, giveBack: true } }, T0 + 7_000).state;
  const released: Lease = { ...ours('2'), spec: { holderIdentity: '', renewTime: new Date(T0 + 7_000) as never } };
  s = step(s, { type: 'lock.written', seq: 3, lease: released }, T0 + 7_050).state;
  s = step(s, { type: 'lock.look' }, T0 + 9_050).state;
  const r = step(s, { type: 'lock.read', seq: 4, lease: released, spread: { held: 4, share: 3, giveBack: false } }, T0 + 9_050);
  t.equal(r.state.freeSince, T0 + 9_050, 'free since this look');
  t.notOk(r.effects.some((e) => e.type === 'write'), 'above its share, the giver waits (a lock duration more), so the peer below takes it');
});
