/**
 * Which actors changed since someone last looked: the paths touched (a message handled, a crash,
 * a start) and removed, kept only while someone listens (the live page's event stream), so an
 * agent nobody watches pays one counter check per message. Bounded by the number of actors: a
 * path is in the set once however often it changed, which is what coalesces a burst.
 */
export interface Changes {
  readonly changed: string[];
  readonly removed: string[];
}

export class ChangeFeed {
  private changed = new Set<string>();
  private removed = new Set<string>();
  private listeners = 0;

  touched(path: string): void {
    if (this.listeners === 0) return;
    this.changed.add(path);
    this.removed.delete(path);
  }

  gone(path: string): void {
    if (this.listeners === 0) return;
    this.changed.delete(path);
    this.removed.add(path);
  }

  /** Starts recording; the returned function stops it (when the last listener leaves, nothing is kept). */
  listen(): () => void {
    this.listeners++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--this.listeners === 0) this.take();
    };
  }

  /** What changed since the last take, and forgets it. */
  take(): Changes {
    const out = { changed: [...this.changed], removed: [...this.removed] };
    this.changed = new Set();
    this.removed = new Set();
    return out;
  }
}
