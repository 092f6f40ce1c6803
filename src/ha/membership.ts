/**
 * Replica membership, pure: every replica keeps a Lease of its own in Tether's namespace
 * (`tether-replica-<identity>`, labelled {@link MEMBER_LABEL}) and lists its peers' each retry
 * period, so a replica that holds no node lock yet (it has just joined) is still seen, and the
 * others give it nodes (lockGroup.ts, `givesBack`). No extra component: Kubernetes' own Leases.
 *
 * Liveness is judged as for the node locks (lockDecisions.ts, `observe`/`isExpired`), on the
 * observer's own clock, so skew between replicas does not matter: a peer is live while its record
 * has changed within the lease duration, and a `taker` while it changed within three retry
 * periods and at least once since first seen (a healthy replica renews every period) and its
 * Lease names the same configured nodes as this replica's (a digest, {@link MEMBER_NODES_ANNOTATION}).
 * Only a taker is given a node: never a replica that died a moment ago, nor, after a restart, one
 * whose stale Lease is seen for the first time, nor one that is not configured to drive the node
 * (a config rollout half done). An empty holder is a replica that
 * left cleanly (a clean stop deletes the Lease). A Lease whose holder is not the identity its name says is ignored.
 */
import { createHash } from 'node:crypto';
import type { Lease } from '../adapters/kubernetes/model.js';
import { isExpired, lockLease, observe, type Observation } from './lockDecisions.js';
import type { ElectionSettings } from './settings.js';
import { schedule, type Schedule } from '../runtime/effectOutcome.js';

export const MEMBER_PREFIX = 'tether-replica-';
export const MEMBER_LABEL = 'tether.dev/replica-membership';
export const MEMBER_SELECTOR = `${MEMBER_LABEL}=true`;

/** On the membership Lease: a digest of the replica's configured node names (sorted). */
export const MEMBER_NODES_ANNOTATION = 'tether.dev/replica-nodes';

export function memberName(identity: string): string {
  return `${MEMBER_PREFIX}${identity}`;
}

/** The membership actor's configuration: the election settings and this replica's nodes, as their digest. */
export interface MembersConfig {
  readonly settings: ElectionSettings;
  readonly nodesDigest: string;
}

export function membersConfig(settings: ElectionSettings, nodes: readonly string[]): MembersConfig {
  const nodesDigest = createHash('sha256').update([...nodes].sort().join('\n')).digest('hex').slice(0, 32);
  return { settings, nodesDigest };
}

/** The replicas seen at one listing: live ones (this one included), and which of them may be given a node. */
export interface Members {
  readonly live: readonly string[];
  /** Renewing now, with the same nodes configured (this one included). */
  readonly takers: readonly string[];
  /** When listed (own clock): a listing older than a lock duration is not trusted for give-backs. */
  readonly at: number;
}

export type MembersMsg =
  | { readonly type: 'members.look' }
  | { readonly type: 'members.listed'; readonly seq: number; readonly leases: readonly Lease[] }
  | { readonly type: 'members.written'; readonly seq: number; readonly lease: Lease }
  | { readonly type: 'members.call-failed'; readonly seq: number; readonly error: string }
  /** Stop; `release`: remove the own Lease (false leaves it to expire, as a crash would). */
  | { readonly type: 'members.stop'; readonly release: boolean };

export type MembersEffect =
  | { readonly type: 'list'; readonly seq: number; readonly deadlineAt: number }
  | { readonly type: 'write'; readonly seq: number; readonly lease: Lease; readonly create: boolean; readonly deadlineAt: number }
  | { readonly type: 'publish'; readonly members: Members }
  /**
   * Stopped: with `remove`, delete the own Lease, so peers see this replica gone at their next
   * listing and no Lease is left behind per pod name a Deployment ever had.
   */
  | { readonly type: 'stopped'; readonly remove: boolean }
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

export function startMembers(config: MembersConfig, state: MembersState, now: number): MembersStep {
  return look(config.settings, state, now);
}

export function decideMembers(config: MembersConfig, state: MembersState, msg: MembersMsg, now: number): MembersStep {
  const { settings } = config;
  if (state.phase === 'stopped') return { state };
  switch (msg.type) {
    case 'members.look':
      return state.looking ? { state } : look(settings, state, now);
    case 'members.listed': {
      if (!state.looking || msg.seq !== state.seq) return { state };
      const { observations, members } = seen(config, state.observations, msg.leases, now);
      const name = memberName(settings.identity);
      const stored = msg.leases.find((l) => l.metadata?.name === name);
      const own = lockLease(stored, { namespace: settings.namespace, name, identity: settings.identity, leaseDurationMs: settings.leaseDurationMs, now, taking: stored?.spec?.holderIdentity !== settings.identity });
      const labelled: Lease = { ...own, metadata: { ...own.metadata, labels: { ...own.metadata?.labels, [MEMBER_LABEL]: 'true' }, annotations: { ...own.metadata?.annotations, [MEMBER_NODES_ANNOTATION]: config.nodesDigest } } };
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
      return { state: { ...state, phase: 'stopped', looking: false }, effects: [{ type: 'stopped', remove: msg.release }] };
  }
}

function look(settings: ElectionSettings, state: MembersState, now: number): MembersStep {
  const seq = state.seq + 1;
  return { state: { ...state, seq, looking: true }, effects: [{ type: 'list', seq, deadlineAt: now + settings.renewDeadlineMs }] };
}

function endLook(settings: ElectionSettings, state: MembersState): MembersStep {
  return { state: { ...state, looking: false }, effects: [schedule<MembersMsg>(settings.retryPeriodMs, { type: 'members.look' })] };
}

/** Folds one listing into the observations: who is live and who may take a node, this replica always among both. */
export function seen(config: MembersConfig, previous: ReadonlyMap<string, Sighting>, leases: readonly Lease[], now: number): { observations: Map<string, Sighting>; members: Members } {
  const { settings } = config;
  const observations = new Map<string, Sighting>();
  const live = new Set([settings.identity]);
  const takers = new Set([settings.identity]);
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
    const renewing = observation.observedAt > firstSeenAt && now - observation.observedAt < 3 * settings.retryPeriodMs;
    if (renewing && lease.metadata?.annotations?.[MEMBER_NODES_ANNOTATION] === config.nodesDigest) takers.add(observation.holder);
  }
  return { observations, members: { live: [...live].sort(), takers: [...takers].sort(), at: now } };
}
