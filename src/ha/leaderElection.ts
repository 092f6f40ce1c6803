/**
 * High availability: one coordination.k8s.io Lease lock per virtual node (`tether-node-<name>` in
 * Tether's own namespace; not the node heartbeat lease in kube-node-lease). Every replica runs one
 * elector per configured node; the replica holding a node's lock drives that node, the others
 * watch the lock and take it once it has gone unrenewed for the lock's duration.
 *
 * As in client-go's leaderelection, expiry is judged on the observer's own clock: a lock is
 * expired when its record (holder, renewTime) has not changed for `leaseDurationMs` since this
 * replica first saw that record, so clock skew between replicas does not matter. A holder that
 * cannot renew within `renewDeadlineMs` (shorter than the duration) gives the node up before
 * anyone else can take it: by a timer armed at every successful renewal, not when a call returns,
 * since a call to an API server that went silent may not return for a long time (split brain).
 * Each look is bounded too (abandoned after `renewDeadlineMs`), and a look abandoned or overtaken
 * by the loss of the lock has no effect when its calls finally return.
 *
 * Spreading: a replica that sees a lock free waits `acquireDelayMs` before taking it: a fraction
 * of the retry period from a hash of (identity, node); for a vacant lock also a retry period per
 * node it already holds, and one lock duration more when it holds its fair share (the node count
 * over the replicas it has seen holding locks, itself included). Nodes therefore spread over the
 * replicas, yet a node is never left undriven for long: the delay only orders who takes it first.
 *
 * The pure helpers (observe, isExpired, decideStep, acquireDelayMs, fairShare) are tested with
 * tables; NodeLockElector is the effectful loop over LeaseApi with an injected Clock.
 */
import { createHash } from 'node:crypto';
import type { Clock, Timer } from '../lib/clock.js';
import { definedOnly } from '../lib/defaults.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../lib/lifecycle.js';
import { callWithDeadline } from '../lib/callWithDeadline.js';
import { isKind } from '../lib/errorKind.js';
import type { LeaseApi } from '../adapters/kubernetes/leaseApi.js';
import type { Lease } from '../adapters/kubernetes/model.js';
import type { Logger } from '../adapters/logger.js';

export interface LeaderElectionOptions {
  /** Where the per-node locks live: Tether's own namespace. */
  readonly namespace: string;
  /** This replica, unique among replicas (the pod name in a Deployment). */
  readonly identity: string;
  /** How long an unrenewed lock stays someone else's (default 15 s). */
  readonly leaseDurationMs?: number;
  /** A holder that has not renewed for this long gives the node up (default 10 s; < duration). */
  readonly renewDeadlineMs?: number;
  /** How often a holder renews and a candidate looks (default 2 s). */
  readonly retryPeriodMs?: number;
}

export type ElectionSettings = Required<LeaderElectionOptions>;

export const LOCK_PREFIX = 'tether-node-';

export function lockName(nodeName: string): string {
  return `${LOCK_PREFIX}${nodeName}`;
}

/** Defaults, then the problems of the timing (empty when usable). */
export function electionSettings(options: LeaderElectionOptions): { settings: ElectionSettings; problems: string[] } {
  const settings: ElectionSettings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...definedOnly(options), namespace: options.namespace, identity: options.identity };
  const problems: string[] = [];
  if (settings.namespace === '') problems.push('leaderElection.namespace: must not be empty');
  if (settings.identity === '') problems.push('leaderElection.identity: must not be empty');
  if (!(settings.renewDeadlineMs < settings.leaseDurationMs)) problems.push('leaderElection.renewDeadlineMs: must be below leaseDurationMs');
  if (!(settings.retryPeriodMs < settings.renewDeadlineMs)) problems.push('leaderElection.retryPeriodMs: must be below renewDeadlineMs');
  if (settings.retryPeriodMs <= 0) problems.push('leaderElection.retryPeriodMs: must be positive');
  return { settings, problems };
}

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

/** What an elector does on one tick. */
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
      ...(o.taking ? { acquireTime: new Date(o.now), leaseTransitions: base ? transitions + 1 : 0 } : {}),
    },
  };
}

/** Where the elector of one node reports; the group also asks it for the spreading inputs. */
export interface ElectorHooks {
  onAcquired(): void;
  /** Called at once when the lock is lost (or could not be renewed in time). */
  onLost(): void;
  /** Nodes this replica holds now, and the fair share given every replica seen. */
  spread(): { held: number; share: number };
  /** Tells the group who holds this node's lock (for the replica count). */
  sawHolder(holder: string | undefined): void;
}

export interface ElectorDeps {
  readonly leaseApi: LeaseApi;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The lock of one virtual node: look, take, renew, lose or release, every retry period. */
export class NodeLockElector {
  private holding = false;
  private lastRenewAt = 0;
  private observation: Observation | undefined;
  private freeSince: number | undefined;
  private stored: Lease | undefined;
  private timer: Timer | undefined;
  /** Fires renewDeadlineMs after the last successful renewal: the lock is lost then, whatever is in flight. */
  private deadlineTimer: Timer | undefined;
  /** Aborts the look in flight, so nothing it returns later counts. */
  private lookAbort: AbortController | undefined;
  private stopped = false;
  private inFlight: Promise<void> = Promise.resolve();
  /** Taking (or creating) the lock right now: counts as held for the group's spreading. */
  private taking = false;
  /** When the next look is due, if sooner than a retry period (the end of a preference delay). */
  private nextLookMs: number | undefined;
  private readonly name: string;

  constructor(
    readonly nodeName: string,
    private readonly settings: ElectionSettings,
    private readonly deps: ElectorDeps,
    private readonly hooks: ElectorHooks,
  ) {
    this.name = lockName(nodeName);
  }

  get isHolding(): boolean {
    return this.holding;
  }

  /** Holding, or taking it now: what the group counts as this replica's share. */
  get isClaimed(): boolean {
    return this.holding || this.taking;
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops looking; if holding, gives the node up and releases the lock so another replica takes it at once. */
  async stop(options: { readonly release: boolean } = { release: true }): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.deadlineTimer?.cancel();
    await this.inFlight.catch(() => undefined);
    if (!this.holding) return;
    this.lose('stopping');
    if (options.release && this.stored) await this.release(this.stored);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimer(ms, () => {
      this.inFlight = this.tick().catch((error: unknown) => this.deps.logger.warn('node lock: unexpected error', { node: this.nodeName, error: String(error) }));
    });
  }

  /** One look at the lock and one action; always schedules the next tick. */
  async tick(): Promise<void> {
    const abort = new AbortController();
    this.lookAbort = abort;
    try {
      await callWithDeadline(this.deps.clock, this.settings.renewDeadlineMs, abort.signal, (signal) => this.look(signal));
    } catch (error) {
      this.deps.logger.debug('node lock: API call failed', { node: this.nodeName, error: String(error) });
      // A holder that cannot reach the API server gives up once the renew deadline passes.
      if (this.holding && this.deps.clock.now() - this.lastRenewAt >= this.settings.renewDeadlineMs) this.lose('renew deadline passed');
    }
    const next = this.nextLookMs;
    this.nextLookMs = undefined;
    this.schedule(next !== undefined ? Math.min(next, this.settings.retryPeriodMs) : this.settings.retryPeriodMs);
  }

  private async look(signal: AbortSignal): Promise<void> {
    const { namespace, identity, leaseDurationMs, renewDeadlineMs } = this.settings;
    const lease = await this.deps.leaseApi.getLease(namespace, this.name);
    if (this.stopped || signal.aborted) return;
    const now = this.deps.clock.now();
    this.stored = lease;
    this.observation = observe(this.observation, lease, now);
    const freeNow = !lease || !this.observation || isExpired(this.observation, now, leaseDurationMs);
    this.freeSince = freeNow ? (this.freeSince ?? now) : undefined;
    this.hooks.sawHolder(this.observation && !freeNow ? this.observation.holder : undefined);
    const { held, share } = this.hooks.spread();
    const vacant = !lease || this.observation?.holder === '';
    const delayMs = acquireDelayMs({ identity, nodeName: this.nodeName, held, share, vacant, retryPeriodMs: this.settings.retryPeriodMs, leaseDurationMs });
    const step = decideStep({
      identity, holding: this.holding, lastRenewAt: this.lastRenewAt, exists: lease !== undefined, observation: this.observation,
      freeSince: this.freeSince, delayMs, now, leaseDurationMs, renewDeadlineMs,
    });
    switch (step.type) {
      case 'wait':
        // Look again right when the preference delay ends, not a whole retry period later.
        if (step.reason === 'preference-delay') this.nextLookMs = Math.max(1, (this.freeSince ?? now) + delayMs - now);
        return;
      case 'lost':
        this.lose(`the lock is held by ${this.observation?.holder ?? 'nobody'}`);
        return;
      case 'renew':
      case 'take':
      case 'create':
        await this.write(step.type, lease, now, signal);
        return;
    }
  }

  private async write(kind: 'renew' | 'take' | 'create', base: Lease | undefined, now: number, signal: AbortSignal): Promise<void> {
    const { namespace, identity, leaseDurationMs } = this.settings;
    const desired = lockLease(base, { namespace, name: this.name, identity, leaseDurationMs, now, taking: kind !== 'renew' });
    this.taking = kind !== 'renew';
    try {
      this.stored = kind === 'create' ? await this.deps.leaseApi.createLease(desired) : await this.deps.leaseApi.updateLease(desired);
    } catch (error) {
      // Someone else wrote first: look again next tick (a holder keeps its deadline).
      if (isKind(error, 'conflict', 'already-exists')) return;
      throw error;
    } finally {
      this.taking = false;
    }
    if (this.stopped || signal.aborted) return;
    this.lastRenewAt = now;
    this.armDeadline();
    this.observation = observe(this.observation, this.stored, now);
    if (!this.holding) {
      this.holding = true;
      this.deps.logger.info('node lock acquired: driving the node', { node: this.nodeName, lock: `${namespace}/${this.name}`, identity });
      this.hooks.onAcquired();
    }
  }

  /** The lock is lost renewDeadlineMs after the last renewal started, unless another succeeds first. */
  private armDeadline(): void {
    this.deadlineTimer?.cancel();
    const due = this.lastRenewAt + this.settings.renewDeadlineMs - this.deps.clock.now();
    this.deadlineTimer = this.deps.clock.setTimer(Math.max(0, due), () => {
      this.deadlineTimer = undefined;
      if (!this.holding) return;
      this.lookAbort?.abort(new Error('renew deadline passed'));
      this.lose('renew deadline passed: no renewal succeeded in time');
    });
  }

  private lose(why: string): void {
    if (!this.holding) return;
    this.deadlineTimer?.cancel();
    this.holding = false;
    this.deps.logger.warn('node lock lost: stopping the node', { node: this.nodeName, why });
    this.hooks.onLost();
  }

  private async release(stored: Lease): Promise<void> {
    const spec = stored.spec ?? {};
    if (spec.holderIdentity !== this.settings.identity) return;
    const released: Lease = { ...stored, spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: new Date(this.deps.clock.now()) } };
    await this.deps.leaseApi.updateLease(released).catch((error: unknown) =>
      this.deps.logger.debug('node lock: release failed (it will expire)', { node: this.nodeName, error: String(error) }),
    );
  }
}

export interface LockedNode {
  readonly name: string;
  /** The node's own lease client (its own rate limiter, 'lease' priority). */
  readonly leaseApi: LeaseApi;
  onAcquired(): void;
  onLost(): void;
}

/** One elector per virtual node, sharing what the spreading needs: nodes held and holders seen. */
/** The node locks of one replica, with the one lifecycle: ready once started, `stop()` releases every lock. */
export class NodeLocks implements Lifecycle {
  private readonly electors: NodeLockElector[];
  private readonly holders = new Map<string, string | undefined>();
  private readonly life: LifecycleControl;
  readonly ready: Promise<void>;
  readonly done: Promise<void>;
  private releaseLocks = true;

  constructor(settings: ElectionSettings, nodes: readonly LockedNode[], deps: { readonly clock: Clock; readonly logger: Logger }) {
    this.electors = nodes.map((node) => new NodeLockElector(node.name, settings, { ...deps, leaseApi: node.leaseApi }, {
      onAcquired: () => node.onAcquired(),
      onLost: () => node.onLost(),
      sawHolder: (holder) => this.holders.set(node.name, holder),
      spread: () => {
        const others = new Set([...this.holders.values()].filter((h): h is string => h !== undefined && h !== settings.identity));
        return { held: this.electors.filter((e) => e.isClaimed).length, share: fairShare(nodes.length, others.size + 1) };
      },
    }));
    this.life = new LifecycleControl({ clock: deps.clock, release: () => this.stopElectors() });
    this.ready = this.life.ready;
    this.done = this.life.done;
  }

  start(): void {
    for (const elector of this.electors) elector.start();
    this.life.markReady();
  }

  isHolding(nodeName: string): boolean {
    return this.electors.some((e) => e.nodeName === nodeName && e.isHolding);
  }

  /**
   * Stops every elector: held nodes are given up (onLost) and their locks released, so another
   * replica takes them at once (`release: false` leaves them to expire, as a crash would).
   */
  stop(options: StopOptions & { readonly release?: boolean } = {}): Promise<StopOutcome> {
    if (!this.life.stopRequested) this.releaseLocks = options.release ?? true;
    return this.life.stop(options);
  }

  private async stopElectors(): Promise<void> {
    await Promise.all(this.electors.map((e) => e.stop({ release: this.releaseLocks })));
  }
}
