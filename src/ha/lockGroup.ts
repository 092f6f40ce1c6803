/**
 * What one replica's node locks share for spreading (lockDecisions.ts, `acquireDelayMs`): which
 * locks it holds or is taking, and who it has seen holding the others. Written by the lock
 * actors' effects, read by their looks (the spread goes into the look's message, so decisions
 * stay pure). Holding is the effect runner's word: it changes the moment a hold is lost by its
 * timer or by the end of the actor's incarnation, before any message says so.
 */
import { fairShare } from './lockDecisions.js';
import type { Spread } from './lockProtocol.js';

export interface LockGroupMember {
  holding(yes: boolean): void;
  share(taking: boolean, holder: string | undefined): void;
  spread(): Spread;
}

interface Entry {
  holding: boolean;
  taking: boolean;
  holder: string | undefined;
}

export class LockGroup {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly identity: string,
    nodes: readonly string[],
  ) {
    for (const node of nodes) this.entries.set(node, { holding: false, taking: false, holder: undefined });
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
      spread: () => this.spread(),
    };
  }

  isHolding(node: string): boolean {
    return this.entries.get(node)?.holding ?? false;
  }

  get held(): number {
    return [...this.entries.values()].filter((e) => e.holding).length;
  }

  /** Locks held or being taken, and the fair share over every replica seen holding one (this one included). */
  spread(): Spread {
    const others = new Set<string>();
    let held = 0;
    for (const entry of this.entries.values()) {
      if (entry.holding || entry.taking) held += 1;
      if (entry.holder !== undefined && entry.holder !== this.identity) others.add(entry.holder);
    }
    return { held, share: fairShare(this.entries.size, others.size + 1) };
  }
}
