import type { Clock, Timer } from '../../src/lib/clock.js';

interface Pending {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that only moves when told to. `advance` fires due timers in time order, including
 * timers that fired callbacks schedule inside the advanced window.
 */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const entry: Pending = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.pending.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  /** Number of timers still waiting to fire. */
  get pendingTimers(): number {
    return this.pending.filter((p) => !p.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.nextDue(target);
      if (next === undefined) break;
      this.pending = this.pending.filter((p) => p !== next);
      this.current = next.at;
      next.fn();
    }
    this.current = target;
  }

  private nextDue(limit: number): Pending | undefined {
    let best: Pending | undefined;
    for (const p of this.pending) {
      if (p.cancelled || p.at > limit) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    }
    this.pending = this.pending.filter((p) => !p.cancelled);
    return best;
  }
}
