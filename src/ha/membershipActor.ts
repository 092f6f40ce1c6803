/**
 * The membership actor (`tether/ha/members`, kind `ha-members`): each retry period it lists the
 * replicas' membership Leases, publishes who is live to the replica's lock group, and renews its
 * own Lease; on stop it deletes that Lease so the peers see this replica gone at once. Pure
 * decisions in membership.ts; here the calls, each ended by its deadline, an API failure a
 * message (the next look is a retry period later) and anything else a crash for `ha` to restart.
 */
import { callWithDeadline } from '../lib/callWithDeadline.js';
import { isoOrNull } from '../lib/clock.js';
import type { LeaseListApi } from '../adapters/kubernetes/leaseApi.js';
import type { Logger } from '../adapters/logger.js';
import { apiFailure } from '../runtime/apiFailures.js';
import type { ActorBehavior, EffectContext } from '../runtime/behavior.js';
import { reportTo, withSchedule } from '../runtime/effectOutcome.js';
import { releaseLease } from './leaseRelease.js';
import { decideMembers, initialMembersState, MEMBER_SELECTOR, memberName, startMembers, type Members, type MembersConfig, type MembersEffect, type MembersMsg, type MembersState } from './membership.js';

export const MEMBERS_ACTOR = 'members';

export interface MembersActorDeps {
  /** The replica's own lease client (not a node's: membership is nobody's write fence). */
  readonly leaseApi: LeaseListApi;
  readonly logger: Logger;
  /** The live replicas, after every listing. */
  publish(members: Members): void;
  /** The actor has stopped (and removed its Lease, if asked). */
  onStopped(): void;
}

type Ctx = EffectContext<MembersMsg>;

export function membersActor(deps: MembersActorDeps, config: MembersConfig): ActorBehavior<MembersState, MembersMsg, MembersEffect> {
  const { settings } = config;
  const call = <T>(ctx: Ctx, deadlineAt: number, seq: number, work: () => Promise<T>, done: (value: T) => MembersMsg): Promise<void> =>
    reportTo(ctx)((signal) => callWithDeadline(ctx.clock, Math.max(0, deadlineAt - ctx.clock.now()), signal, work), {
      classify: apiFailure,
      done,
      failed: ({ kind, message: error }): MembersMsg => {
        // A refusal is a deployment fault (RBAC) that no retry mends: said at warn, every period, until fixed.
        const refused = kind === 'forbidden' || kind === 'unauthorized';
        deps.logger[refused ? 'warn' : 'debug']('replica membership: API call failed (peers unseen: no node is given back)', { identity: settings.identity, error });
        return { type: 'members.call-failed', seq, error };
      },
    });

  return {
    kind: 'ha-members',
    initialState: initialMembersState,
    onStart: (state, now) => startMembers(config, state, now),
    decide: (state, msg, now) => decideMembers(config, state, msg, now),
    perform: withSchedule<MembersMsg, MembersEffect>((effect, ctx) => {
      switch (effect.type) {
        case 'list':
          return call(ctx, effect.deadlineAt, effect.seq, () => deps.leaseApi.listLeases(settings.namespace, MEMBER_SELECTOR), (leases) => ({ type: 'members.listed', seq: effect.seq, leases }));
        case 'write':
          return call(ctx, effect.deadlineAt, effect.seq,
            () => (effect.create ? deps.leaseApi.createLease(effect.lease) : deps.leaseApi.updateLease(effect.lease)),
            (lease) => ({ type: 'members.written', seq: effect.seq, lease }));
        case 'publish':
          deps.publish(effect.members);
          return;
        case 'stopped':
          // Deleted, not emptied: peers see this replica gone, and no Lease is left per pod name.
          return releaseLease({
            clock: ctx.clock, deadlineMs: settings.renewDeadlineMs, onStopped: deps.onStopped,
            write: effect.remove ? () => deps.leaseApi.deleteLease(settings.namespace, memberName(settings.identity)) : undefined,
            failed: (error) => deps.logger.debug('replica membership: removing the Lease failed (it will expire)', { identity: settings.identity, error }),
          });
      }
    }),
    summarize: (state) => ({
      lease: `${settings.namespace}/${MEMBER_SELECTOR}`,
      identity: settings.identity,
      live: state.members?.live.join(',') ?? null,
      takers: state.members?.takers.join(',') ?? null,
      listedAt: isoOrNull(state.members?.at),
      listings: state.listings,
      failures: state.failures,
      lastError: state.lastError ?? null,
    }),
  };
}
