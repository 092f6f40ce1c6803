/**
 * A value's latest state as an async iterable for one reader: `set` replaces a value not yet
 * taken, so a flood of updates (a client sending terminal resizes as fast as it can) costs one
 * pending value however slowly the reader takes them, and the reader sees the newest.
 */
export class LatestValue<T> implements AsyncIterable<T> {
  private pending: { readonly value: T } | undefined;
  private reader: ((result: IteratorResult<T, undefined>) => void) | undefined;
  private ended = false;

  /** The new state; replaces one not yet taken. Ignored once ended. */
  set(value: T): void {
    if (this.ended) return;
    const reader = this.reader;
    if (reader) {
      this.reader = undefined;
      reader({ value, done: false });
    } else this.pending = { value };
  }

  /** No more states: the reader gets the pending one (if any), then the end. */
  end(): void {
    this.ended = true;
    const reader = this.reader;
    this.reader = undefined;
    reader?.({ value: undefined, done: true });
  }

  get isEnded(): boolean {
    return this.ended;
  }

  [Symbol.asyncIterator](): AsyncIterator<T, undefined> {
    return {
      next: () => {
        const pending = this.pending;
        if (pending) {
          this.pending = undefined;
          return Promise.resolve({ value: pending.value, done: false });
        }
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.reader = resolve));
      },
      return: () => {
        this.pending = undefined;
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
