/**
 * What one replica's node locks share for spreading (lockDecisions.ts, `acquireDelayMs`,
 * `givesBack`): which locks it holds or is taking, who it has seen holding the others, which
 * replicas are live (the membership actor's last listing, membership.ts) and when it last gave a
 * node back. Written by the lock and membership actors' effects, read by the lock actors' looks
 * (the spread goes into the look's message, so decisions stay pure). Holding is the effect
 * runner's word: it changes the moment a hold is lost by its timer or by the end of the actor's
 * incarnation, before any message says so.
 */
import { fairShare, givesBack } from './lockDecisions.js';
import type { Spread } from './lockProtocol.js';
import type { Members } from './membership.js';

export interface LockGroupMember {
  holding(yes: boolean): void;
  share(taking: boolean, holder: string | undefined): void;
  /** The spread as this node's look reads it at `now` (whether to give this node back, too). */
  spread(now: number): Spread;
  /** This replica gave a node back at `at`: the next may go a lock duration later. */
  gaveBack(at: number): void;
}

interface Entry {
  holding: boolean;
  taking: boolean;
  holder: string | undefined;
}

export class LockGroup {
  private readonly entries = new Map<string, Entry>();
  /** The last membership listing (undefined: none yet). */
  private members: Members | undefined;
  private lastGiveBackAt = Number.NEGATIVE_INFINITY;
  /** The node last given back, until it is seen taken by a peer or back here. */
  private lastGiven: string | undefined;
  /** The wait between give-backs in lock durations: doubled each time a node given back comes back here (cap 16). */
  private giveBackSpacing = 1;

  constructor(
    private readonly identity: string,
    nodes: readonly string[],
    private readonly timing: { readonly leaseDurationMs: number; readonly retryPeriodMs: number },
  ) {
    for (const node of [...nodes].sort()) this.entries.set(node, { holding: false, taking: false, holder: undefined });
  }

  member(node: string): LockGroupMember {
    const entry = this.entries.get(node);
    if (!entry) throw new Error(`node lock ${node}: not one of this replica's nodes`);
    return {
      holding: (yes) => {
        entry.holding = yes;
      },
      share: (taking, holder) => {
        entry.taking = taking;
        entry.holder = holder;
      },
      spread: (now) => this.spread(node, now),
      gaveBack: (at) => {
        this.lastGiveBackAt = at;
        this.lastGiven = node;
      },
    };
  }

  /** The membership actor's listing: the live replicas (this one among them) and which renew now. */
  setMembers(members: Members): void {
    this.members = members;
  }

  /** The live replicas as last listed, this one included (just this one before the first listing). */
  get replicas(): readonly string[] {
    return this.members?.live ?? [this.identity];
  }

  isHolding(node: string): boolean {
    return this.entries.get(node)?.holding ?? false;
  }

  get held(): number {
    return [...this.entries.values()].filter((e) => e.holding).length;
  }

  /** Who drives each node, as this replica sees it: itself where it holds, else the holder seen (undefined: free). */
  holders(): ReadonlyMap<string, string | undefined> {
    return new Map([...this.entries].map(([node, e]) => [node, e.holding ? this.identity : e.holder]));
  }

  /**
   * Locks held or being taken, the fair share over the replicas known (the live members and
   * every replica seen holding a lock), and whether `node` is the one to give back now: the last
   * held node by name, when `givesBack` says one goes. A listing counts for the share while
   * younger than a lock duration, and for a give-back only while younger than two retry periods
   * (a replica that cannot list gives nothing back); only a taker below its share (membership.ts:
   * renewing, the same nodes configured) is one to give to. One give-back at a time: the next
   * waits until the last is seen taken by a peer, and a node that came back here (nobody took it:
   * the peer renews but cannot take) doubles the wait between give-backs, up to 16 lock durations.
   */
  private spread(node: string, now: number): Spread {
    this.settleLastGiven();
    const counts = new Map<string, number>();
    let held = 0;
    for (const entry of this.entries.values()) {
      if (entry.holding || entry.taking) held += 1;
      if (entry.holder !== undefined && entry.holder !== this.identity) counts.set(entry.holder, (counts.get(entry.holder) ?? 0) + 1);
    }
    const { leaseDurationMs, retryPeriodMs } = this.timing;
    const members = this.members !== undefined && now - this.members.at < leaseDurationMs ? this.members : undefined;
    const fresh = members !== undefined && now - members.at < 2 * retryPeriodMs ? members : undefined;
    const peers = new Set([...counts.keys(), ...(members?.live ?? [])]);
    peers.delete(this.identity);
    const share = fairShare(this.entries.size, peers.size + 1);
    // A peer known only from the membership holds nothing yet.
    const peerBelowShare = fresh?.takers.some((p) => p !== this.identity && (counts.get(p) ?? 0) < share) ?? false;
    const lastHeld = [...this.entries].filter(([, e]) => e.holding).at(-1)?.[0];
    const giveBack = lastHeld === node && this.lastGiven === undefined
      && givesBack({ held, share, peerBelowShare, sinceLastGiveBackMs: now - this.lastGiveBackAt, leaseDurationMs: leaseDurationMs * this.giveBackSpacing });
    return { held, share, giveBack };
  }

  /** Whether the node last given back was taken by a peer (the spacing resets) or came back here (it doubles). */
  private settleLastGiven(): void {
    const entry = this.lastGiven === undefined ? undefined : this.entries.get(this.lastGiven);
    if (!entry) return;
    if (entry.holding) {
      this.giveBackSpacing = Math.min(16, this.giveBackSpacing * 2);
      this.lastGiven = undefined;
    } else if (entry.holder !== undefined && entry.holder !== this.identity) {
      this.giveBackSpacing = 1;
      this.lastGiven = undefined;
    }
  }
}
