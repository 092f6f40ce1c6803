/**
 * Replica membership, pure: every replica keeps a Lease of its own in Tether's namespace
 * (`tether-replica-<identity>`, labelled {@link MEMBER_LABEL}) and lists its peers' each retry
 * period, so a replica that holds no node lock yet (it has just joined) is still seen, and the
 * others give it nodes (lockGroup.ts, `givesBack`). No extra component: Kubernetes' own Leases.
 *
 * Liveness is judged as for the node locks (lockDecisions.ts, `observe`/`isExpired`), on the
 * observer's own clock, so skew between replicas does not matter: a peer is live while its record
 * has changed within the lease duration, and `renewing` while it changed within three retry
 * periods and at least once since first seen (a healthy replica renews every period; only a
 * renewing peer is given a node, so a node is never handed to a replica that died a moment ago,
 * nor, after a restart, to one whose stale Lease is seen for the first time). An empty holder is a replica that
 * left cleanly. A Lease whose holder is not the identity its name says is ignored.
 */
import type { Lease } from '../adapters/kubernetes/model.js';
import { isExpired, lockLease, observe, releasedLease, type Observation } from './lockDecisions.js';
import type { ElectionSettings } from './settings.js';
import { schedule, type Schedule } from '../runtime/effectOutcome.js';

export const MEMBER_PREFIX = 'tether-replica-';
export const MEMBER_LABEL = 'tether.dev/replica-membership';
export const MEMBER_SELECTOR = `${MEMBER_LABEL}=true`;

export function memberName(identity: string): string {
  return `${MEMBER_PREFIX}${identity}`;
}

/** The replicas seen at one listing: live ones (this one included), and which of them renew now. */
export interface Members {
  readonly live: readonly string[];
  readonly renewing: readonly string[];
  /** When listed (own clock): a listing older than a lock duration is not trusted for give-backs. */
  readonly at: number;
}

export type MembersMsg =
  | { readonly type: 'members.look' }
  | { readonly type: 'members.listed'; readonly seq: number; readonly leases: readonly Lease[] }
  | { readonly type: 'members.written'; readonly seq: number; readonly lease: Lease }
  | { readonly type: 'members.call-failed'; readonly seq: number; readonly error: string }
  /** Stop; `release`: give the own Lease back (false leaves it to expire, as a crash would). */
  | { readonly type: 'members.stop'; readonly release: boolean };

export type MembersEffect =
  | { readonly type: 'list'; readonly seq: number; readonly deadlineAt: number }
  | { readonly type: 'write'; readonly seq: number; readonly lease: Lease; readonly create: boolean; readonly deadlineAt: number }
  | { readonly type: 'publish'; readonly members: Members }
  /** Stopped: give the own Lease back (when `release` is a Lease) so peers see this replica gone at once. */
  | { readonly type: 'stopped'; readonly release: Lease | undefined }
  | Schedule<MembersMsg>;

export interface MembersState {
  readonly phase: 'running' | 'stopped';
  readonly seq: number;
  readonly looking: boolean;
  /** Each peer Lease's record as last seen, by Lease name. */
  readonly observations: ReadonlyMap<string, Sighting>;
  /** The own Lease as last stored (the base of the next renewal). */
  readonly own: Lease | undefined;
  readonly members: Members | undefined;
  readonly listings: number;
  readonly failures: number;
  readonly lastError: string | undefined;
}

/** A peer Lease's record as last seen, and when (own clock) the Lease was first seen at all. */
export interface Sighting {
  readonly observation: Observation;
  readonly firstSeenAt: number;
}

export type MembersStep = { readonly state: MembersState; readonly effects?: readonly MembersEffect[] };

export function initialMembersState(): MembersState {
  return { phase: 'running', seq: 0, looking: false, observations: new Map(), own: undefined, members: undefined, listings: 0, failures: 0, lastError: undefined };
}

export function startMembers(settings: ElectionSettings, state: MembersState, now: number): MembersStep {
  return look(settings, state, now);
}

export function decideMembers(settings: ElectionSettings, state: MembersState, msg: MembersMsg, now: number): MembersStep {
  if (state.phase === 'stopped') return { state };
  switch (msg.type) {
    case 'members.look':
      return state.looking ? { state } : look(settings, state, now);
    case 'members.listed': {
      if (!state.looking || msg.seq !== state.seq) return { state };
      const { observations, members } = seen(settings, state.observations, msg.leases, now);
      const name = memberName(settings.identity);
      const stored = msg.leases.find((l) => l.metadata?.name === name);
      const own = lockLease(stored, { namespace: settings.namespace, name, identity: settings.identity, leaseDurationMs: settings.leaseDurationMs, now, taking: stored?.spec?.holderIdentity !== settings.identity });
      const labelled: Lease = { ...own, metadata: { ...own.metadata, labels: { ...own.metadata?.labels, [MEMBER_LABEL]: 'true' } } };
      return {
        state: { ...state, observations, members, listings: state.listings + 1 },
        effects: [{ type: 'publish', members }, { type: 'write', seq: state.seq, lease: labelled, create: stored === undefined, deadlineAt: now + settings.renewDeadlineMs }],
      };
    }
    case 'members.written':
      return msg.seq === state.seq && state.looking ? endLook(settings, { ...state, own: msg.lease }) : { state };
    case 'members.call-failed':
      return msg.seq === state.seq && state.looking ? endLook(settings, { ...state, failures: state.failures + 1, lastError: msg.error }) : { state };
    case 'members.stop':
      return { state: { ...state, phase: 'stopped', looking: false }, effects: [{ type: 'stopped', release: msg.release ? releasedLease(state.own, settings.identity, now) : undefined }] };
  }
}

function look(settings: ElectionSettings, state: MembersState, now: number): MembersStep {
  const seq = state.seq + 1;
  return { state: { ...state, seq, looking: true }, effects: [{ type: 'list', seq, deadlineAt: now + settings.renewDeadlineMs }] };
}

function endLook(settings: ElectionSettings, state: MembersState): MembersStep {
  return { state: { ...state, looking: false }, effects: [schedule<MembersMsg>(settings.retryPeriodMs, { type: 'members.look' })] };
}

/** Folds one listing into the observations: who is live and who renews, this replica always among both. */
export function seen(settings: ElectionSettings, previous: ReadonlyMap<string, Sighting>, leases: readonly Lease[], now: number): { observations: Map<string, Sighting>; members: Members } {
  const observations = new Map<string, Sighting>();
  const live = new Set([settings.identity]);
  const renewing = new Set([settings.identity]);
  for (const lease of leases) {
    const name = lease.metadata?.name ?? '';
    if (!name.startsWith(MEMBER_PREFIX)) continue;
    const before = previous.get(name);
    const observation = observe(before?.observation, lease, now);
    if (!observation) continue;
    const firstSeenAt = before?.firstSeenAt ?? now;
    observations.set(name, { observation, firstSeenAt });
    if (memberName(observation.holder) !== name || isExpired(observation, now, settings.leaseDurationMs)) continue;
    live.add(observation.holder);
    if (observation.observedAt > firstSeenAt && now - observation.observedAt < 3 * settings.retryPeriodMs) renewing.add(observation.holder);
  }
  return { observations, members: { live: [...live].sort(), renewing: [...renewing].sort(), at: now } };
}
