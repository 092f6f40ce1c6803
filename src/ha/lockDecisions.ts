/**
 * The pure parts of a node lock, after client-go's leaderelection: what this replica has seen of
 * the lock, whether it is free, what to do about it, how long to let a free lock lie (spreading),
 * and the Lease it writes. Tested with tables (test/ha/lockDecisions.test.ts).
 *
 * Expiry is judged on the observer's own clock: a lock is expired when its record (holder,
 * renewTime) has not changed for `leaseDurationMs` since this replica first saw that record, so
 * clock skew between replicas does not matter.
 */
import { createHash } from 'node:crypto';
import type { Lease } from '../adapters/kubernetes/model.js';
import { when } from '../lib/defaults.js';

/** What this replica last saw of a lock, and when (on its own clock) that record first appeared. */
export interface Observation {
  readonly holder: string;
  /** The record's identity: changes whenever the holder renews or changes. */
  readonly record: string;
  readonly observedAt: number;
}

/** Folds a read of the lock into the previous observation (undefined lease: there is none). */
export function observe(previous: Observation | undefined, lease: Lease | undefined, now: number): Observation | undefined {
  if (!lease) return undefined;
  const holder = lease.spec?.holderIdentity ?? '';
  const renew = lease.spec?.renewTime as Date | string | undefined;
  const record = `${holder}@${renew instanceof Date ? renew.toISOString() : String(renew ?? '')}#${lease.spec?.leaseTransitions ?? 0}`;
  if (previous && previous.record === record) return previous;
  return { holder, record, observedAt: now };
}

export function isExpired(observation: Observation, now: number, leaseDurationMs: number): boolean {
  return observation.holder === '' || now - observation.observedAt >= leaseDurationMs;
}

/** What an elector does after one look at the lock. */
export type ElectionStep =
  | { readonly type: 'create' }
  | { readonly type: 'take' }
  | { readonly type: 'renew' }
  | { readonly type: 'lost' }
  | { readonly type: 'wait'; readonly reason: 'held-by-other' | 'preference-delay' };

export interface StepInput {
  readonly identity: string;
  readonly holding: boolean;
  /** When this replica last renewed (or took) the lock; only meaningful while holding. */
  readonly lastRenewAt: number;
  readonly exists: boolean;
  readonly observation: Observation | undefined;
  /** Since when this replica has seen the lock free (missing, released or expired). */
  readonly freeSince: number | undefined;
  readonly delayMs: number;
  readonly now: number;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
}

/** The one place an elector's choice is made. */
export function decideStep(input: StepInput): ElectionStep {
  const { observation, now } = input;
  if (input.holding) {
    if (observation && observation.holder !== input.identity && observation.holder !== '') return { type: 'lost' };
    if (now - input.lastRenewAt >= input.renewDeadlineMs) return { type: 'lost' };
    return { type: 'renew' };
  }
  const free = !input.exists || !observation || isExpired(observation, now, input.leaseDurationMs) || observation.holder === input.identity;
  if (!free) return { type: 'wait', reason: 'held-by-other' };
  if (now - (input.freeSince ?? now) < input.delayMs) return { type: 'wait', reason: 'preference-delay' };
  return input.exists ? { type: 'take' } : { type: 'create' };
}

/** How many nodes one replica should drive: nodes over replicas seen (itself included), rounded up. */
export function fairShare(nodeCount: number, replicasSeen: number): number {
  return Math.ceil(nodeCount / Math.max(1, replicasSeen));
}

/**
 * Whether a replica gives one of its nodes back now (scale-out): it holds more than its fair share,
 * a live peer holds less (so someone takes the node at once: it is below its share, so it waits
 * only the hash order), and its last give-back is a lock duration old (one node at a time: the
 * one given has been taken and the peers' counts have moved before the next).
 */
export function givesBack(input: { held: number; share: number; peerBelowShare: boolean; sinceLastGiveBackMs: number; leaseDurationMs: number }): boolean {
  return input.held > input.share && input.peerBelowShare && input.sinceLastGiveBackMs >= input.leaseDurationMs;
}

/**
 * How long to let a free lock lie before taking it. Always: the hash order within one retry
 * period. For a vacant lock (missing or released: start-up, scaling, a clean shutdown) also one
 * retry period per node already held (at most three) and a lock duration more past the fair share,
 * so nodes spread. An expired lock (its holder died) gets only the hash order: a quick takeover
 * matters more than balance, and the next vacancy rebalances.
 */
export function acquireDelayMs(input: {
  identity: string; nodeName: string; held: number; share: number; vacant: boolean; retryPeriodMs: number; leaseDurationMs: number;
}): number {
  const digest = createHash('sha256').update(`${input.identity}\0${input.nodeName}`).digest();
  const order = Math.floor((digest.readUInt32BE(0) / 0x1_0000_0000) * input.retryPeriodMs);
  if (!input.vacant) return order;
  return order + Math.min(input.held, 3) * input.retryPeriodMs + (input.held >= input.share ? input.leaseDurationMs : 0);
}

/** The Lease this replica writes: the stored one (if any) with this replica as holder. */
export function lockLease(base: Lease | undefined, o: { namespace: string; name: string; identity: string; leaseDurationMs: number; now: number; taking: boolean }): Lease {
  const spec = base?.spec ?? {};
  const transitions = spec.leaseTransitions ?? 0;
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { ...base?.metadata, name: o.name, namespace: o.namespace },
    spec: {
      ...spec,
      holderIdentity: o.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(o.leaseDurationMs / 1000)),
      renewTime: new Date(o.now),
      ...when(o.taking, () => ({ acquireTime: new Date(o.now), leaseTransitions: base ? transitions + 1 : 0 })),
    },
  };
}

/** The stored lock given back (empty holder), so another replica takes it at once; undefined if it is not ours. */
export function releasedLease(stored: Lease | undefined, identity: string, now: number): Lease | undefined {
  const spec = stored?.spec;
  if (!stored || spec?.holderIdentity !== identity) return undefined;
  return { ...stored, spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: new Date(now) } };
}
