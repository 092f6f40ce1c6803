/** Replica membership, pure (src/ha/membership.ts): who is live, who renews, and the membership actor's decisions. */
import t from 'tap';
import type { Lease } from '../../src/adapters/kubernetes/model.js';
import { givesBack } from '../../src/ha/lockDecisions.js';
import { decideMembers, initialMembersState, MEMBER_LABEL, MEMBER_NODES_ANNOTATION, memberName, membersConfig, seen, startMembers, type MembersEffect } from '../../src/ha/membership.js';
import { NS, settings } from './replicas.js';

const T0 = 1_000_000;
const config = membersConfig(settings, ['vk-1', 'vk-2']);
const member = (name: string, holder: string, renewAt: number, nodesDigest = config.nodesDigest): Lease => ({
  metadata: { name, namespace: NS, labels: { [MEMBER_LABEL]: 'true' }, annotations: { [MEMBER_NODES_ANNOTATION]: nodesDigest } },
  spec: { holderIdentity: holder, renewTime: new Date(renewAt) as never },
});

t.test('seen: a peer is live while its record changes within the lock duration, a taker only once seen changing', async (t) => {
  const b = (at: number): Lease => member(memberName('b'), 'b', at);
  const first = seen(config, new Map(), [b(T0)], T0);
  t.same(first.members, { live: ['a', 'b'], takers: ['a'], at: T0 }, 'first sighting: live, but not yet a taker (it may be a stale Lease of a dead replica)');
  const second = seen(config, first.observations, [b(T0 + 2_000)], T0 + 2_000);
  t.same(second.members.takers, ['a', 'b'], 'seen renewing: a taker');
  const otherNodes = seen(config, first.observations, [member(memberName('b'), 'b', T0 + 2_000, membersConfig(settings, ['vk-1']).nodesDigest)], T0 + 2_000);
  t.same([otherNodes.members.live, otherNodes.members.takers], [['a', 'b'], ['a']], 'renewing with other nodes configured (a rollout half done): live, never given a node');
  const stale = seen(config, second.observations, [b(T0 + 2_000)], T0 + 2_000 + 6_000);
  t.same([stale.members.live, stale.members.takers], [['a', 'b'], ['a']], 'no renewal for three retry periods: live, not a taker');
  const dead = seen(config, stale.observations, [b(T0 + 2_000)], T0 + 2_000 + 15_000);
  t.same(dead.members.live, ['a'], 'unrenewed for the lock duration (on this replica\'s clock): gone');
});

t.test('seen: a Lease given back, a forged holder, or a name outside the prefix is nobody', async (t) => {
  const leases = [
    member(memberName('b'), '', T0),
    member(memberName('c'), 'mallory', T0),
    member('tether-node-vk-1', 'd', T0),
  ];
  t.same(seen(config, new Map(), leases, T0).members.live, ['a'], 'only this replica');
});

t.test('the membership actor: lists, publishes, then writes its own Lease (created, then renewed from the stored copy); a failure waits a retry period', async (t) => {
  const start = startMembers(config, initialMembersState(), T0);
  t.same(start.effects, [{ type: 'list', seq: 1, deadlineAt: T0 + 10_000 }]);
  const listed = decideMembers(config, start.state, { type: 'members.listed', seq: 1, leases: [] }, T0 + 10);
  const [publish, write] = listed.effects as [MembersEffect, MembersEffect];
  t.match(publish, { type: 'publish', members: { live: ['a'] } });
  t.match(write, { type: 'write', create: true, lease: { metadata: { name: memberName('a'), namespace: NS, labels: { [MEMBER_LABEL]: 'true' }, annotations: { [MEMBER_NODES_ANNOTATION]: config.nodesDigest } }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } } });
  const own = { ...(write as Extract<MembersEffect, { type: 'write' }>).lease, metadata: { ...(write as Extract<MembersEffect, { type: 'write' }>).lease.metadata, resourceVersion: '5' } };
  const written = decideMembers(config, listed.state, { type: 'members.written', seq: 1, lease: own }, T0 + 20);
  t.same(written.effects, [{ type: 'schedule', ms: 2_000, msg: { type: 'members.look' } }]);
  const next = decideMembers(config, decideMembers(config, written.state, { type: 'members.look' }, T0 + 2_020).state, { type: 'members.listed', seq: 2, leases: [own] }, T0 + 2_030);
  t.match(next.effects?.[1], { type: 'write', create: false, lease: { metadata: { resourceVersion: '5' } } }, 'renewed over what the listing returned');
  const failed = decideMembers(config, next.state, { type: 'members.call-failed', seq: 2, error: 'boom' }, T0 + 2_040);
  t.same(failed.effects, [{ type: 'schedule', ms: 2_000, msg: { type: 'members.look' } }]);
  t.equal(failed.state.failures, 1);
  t.same(decideMembers(config, failed.state, { type: 'members.listed', seq: 2, leases: [] }, T0 + 2_050).effects, undefined, 'a late answer of an ended look changes nothing');
  const stop = decideMembers(config, written.state, { type: 'members.stop', release: true }, T0 + 30);
  t.same(stop.effects, [{ type: 'stopped', remove: true }], 'on a clean stop the own Lease is deleted');
  t.same(decideMembers(config, written.state, { type: 'members.stop', release: false }, T0 + 30).effects, [{ type: 'stopped', remove: false }], 'or left to expire');
});

t.test('givesBack: above the share, a peer below it, and a lock duration since the last one', async (t) => {
  const base = { held: 4, share: 3, peerBelowShare: true, sinceLastGiveBackMs: 15_000, leaseDurationMs: 15_000 };
  t.ok(givesBack(base));
  t.notOk(givesBack({ ...base, held: 3 }), 'at the share: keeps all');
  t.notOk(givesBack({ ...base, peerBelowShare: false }), 'nobody below the share to take it');
  t.notOk(givesBack({ ...base, sinceLastGiveBackMs: 14_999 }), 'one node per lock duration');
});
