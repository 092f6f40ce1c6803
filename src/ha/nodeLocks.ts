/**
 * The node locks of one replica, with the one lifecycle: a supervisor `ha` beside the node
 * subtrees, with one lock actor per configured node (`tether/ha/lock-<node>`) and the membership
 * actor (`tether/ha/members`) that keeps this replica's own Lease and lists its peers' for
 * spreading; ready once they run; `stop()` stops every actor, giving up the nodes held and
 * releasing their locks and the membership Lease so another replica takes them at once
 * (`release: false` leaves them to expire, as a crash would).
 */
import type { Clock } from '../lib/clock.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../lib/lifecycle.js';
import { errorMessage } from '../lib/errorMessage.js';
import type { LeaseApi, LeaseListApi } from '../adapters/kubernetes/leaseApi.js';
import type { Logger } from '../adapters/logger.js';
import type { ActorRef } from '../runtime/behavior.js';
import type { Supervisor } from '../supervisors/supervisor.js';
import { lockActor } from './lockActor.js';
import { LockGroup } from './lockGroup.js';
import type { LockMsg } from './lockProtocol.js';
import { membersConfig, type MembersMsg } from './membership.js';
import { MEMBERS_ACTOR, membersActor } from './membershipActor.js';
import { lockName, lockRestartPolicy, type ElectionSettings } from './settings.js';

export interface LockedNode {
  readonly name: string;
  /** The node's own lock client (its own rate limiter, 'lease' priority, outside its write fence). */
  readonly leaseApi: LeaseApi;
  onAcquired(): void;
  onLost(): void;
}

export const HA_SUPERVISOR = 'ha';

/** The lock actor's name under `ha`. */
export const lockActorName = (nodeName: string): string => `lock-${nodeName}`;

export class NodeLocks implements Lifecycle {
  readonly ready: Promise<void>;
  readonly done: Promise<void>;
  private readonly group: LockGroup;
  private readonly life: LifecycleControl;
  private readonly refs = new Map<string, ActorRef<LockMsg>>();
  private membersRef: ActorRef<MembersMsg> | undefined;
  private readonly waiting = new Map<string, () => void>();
  private supervisor: Supervisor | undefined;
  private releaseLocks = true;

  constructor(
    private readonly parent: Supervisor,
    private readonly settings: ElectionSettings,
    private readonly nodes: readonly LockedNode[],
    private readonly deps: {
      readonly clock: Clock;
      readonly logger: Logger;
      /** The replica's own lease client for its membership Lease (its own connection, no node's fence). */
      readonly members: LeaseListApi;
    },
  ) {
    this.group = new LockGroup(settings.identity, nodes.map((n) => n.name), settings);
    this.life = new LifecycleControl({
      clock: deps.clock,
      release: () => this.stopLocks(),
      onReleaseFailed: (error) => deps.logger.warn('stopping the node locks failed', { error: errorMessage(error) }),
    });
    this.ready = this.life.ready;
    this.done = this.life.done;
  }

  /** Spawns `ha` and its lock actors; each looks at its lock at once. */
  start(): void {
    if (this.supervisor || this.life.stopRequested) return;
    const { namespace, identity } = this.settings;
    this.supervisor = this.parent.spawnSupervisor(HA_SUPERVISOR, {
      kind: 'ha',
      policy: lockRestartPolicy,
      summarize: () => ({ namespace, identity, nodes: this.nodes.length, holding: this.group.held, replicas: this.group.replicas.join(','), spread: this.spreadLine() }),
      onStart: (sup) => {
        this.membersRef = sup.spawn(MEMBERS_ACTOR, membersActor({
          leaseApi: this.deps.members,
          logger: this.deps.logger,
          publish: (members) => this.group.setMembers(members),
          onStopped: () => this.stoppedOne(MEMBERS_ACTOR),
        }, membersConfig(this.settings, this.nodes.map((n) => n.name))));
        for (const node of this.nodes) {
          const deps = {
            leaseApi: node.leaseApi,
            logger: this.deps.logger,
            group: this.group.member(node.name),
            onAcquired: () => node.onAcquired(),
            onLost: () => node.onLost(),
            onStopped: () => this.stoppedOne(lockActorName(node.name)),
          };
          this.refs.set(node.name, sup.spawn(lockActorName(node.name), lockActor(deps, { nodeName: node.name, name: lockName(node.name), settings: this.settings })));
        }
      },
    });
    this.life.markReady();
  }

  /** Whether this replica drives the node now: its lock actor holds the lock. */
  isHolding(nodeName: string): boolean {
    return this.group.isHolding(nodeName);
  }

  /** Who drives each configured node, as this replica sees it (undefined: nobody seen holding it). */
  holders(): ReadonlyMap<string, string | undefined> {
    return this.group.holders();
  }

  /** The live replicas as last listed, this one included. */
  get replicas(): readonly string[] {
    return this.group.replicas;
  }

  /** `node=replica` pairs for the tree (`-` for a node nobody is seen holding). */
  private spreadLine(): string {
    return [...this.group.holders()].map(([node, holder]) => `${node}=${holder ?? '-'}`).join(',');
  }

  stop(options: StopOptions & { readonly release?: boolean } = {}): Promise<StopOutcome> {
    if (!this.life.stopRequested) this.releaseLocks = options.release ?? true;
    return this.life.stop(options);
  }

  private stoppedOne(child: string): void {
    const resolve = this.waiting.get(child);
    this.waiting.delete(child);
    resolve?.();
  }

  /**
   * Tells the membership actor and every lock actor to stop at once (each gives up and releases
   * its Lease: the membership one first in line, so no peer gives this replica a node as it
   * leaves), waits for them, then removes `ha`.
   */
  private async stopLocks(): Promise<void> {
    const sup = this.supervisor;
    if (!sup) return;
    await Promise.all([
      this.stopChild(sup, MEMBERS_ACTOR, () => this.membersRef?.tell({ type: 'members.stop', release: this.releaseLocks })),
      ...this.nodes.map((node) => this.stopChild(sup, lockActorName(node.name), () => this.refs.get(node.name)?.tell({ type: 'lock.stop', release: this.releaseLocks }))),
    ]);
    this.parent.release(HA_SUPERVISOR);
  }

  private stopChild(sup: Supervisor, name: string, tell: () => void): Promise<void> {
    return new Promise<void>((resolve) => {
      const cell = sup.child(name);
      // An actor given up holds nothing: nobody will answer for it.
      if (!cell || cell.stopped || cell.status === 'failed') return resolve();
      this.waiting.set(name, resolve);
      tell();
    });
  }
}
