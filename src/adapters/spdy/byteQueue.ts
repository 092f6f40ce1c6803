/**
 * The bytes received and not yet read, as a list of chunks rather than one buffer re-concatenated
 * on every message (which made a frame sent a byte per message cost time quadratic in its size).
 * Small chunks are copied into a shared tail segment, so a message of one byte costs one byte and
 * not a Buffer object each; a chunk of SEGMENT_BYTES or more is kept as it came. Every byte is so
 * copied at most twice (into the tail, then out with `take`), and `bytesCopied` counts it, for the
 * test that holds the reader to linear work.
 */

/** Chunks smaller than this are copied into the tail; larger ones are kept by reference. */
export const SEGMENT_BYTES = 16 * 1024;

interface Segment {
  readonly buf: Buffer;
  start: number;
  end: number;
}

export class ByteQueue {
  private segments: Segment[] = [];
  /** Index of the first segment still holding bytes (segments before it are dropped lazily). */
  private first = 0;
  /** The last segment, while small chunks may still be appended to it. */
  private tail: Segment | undefined;
  private size = 0;
  private copied = 0;

  /** Bytes held. */
  get length(): number {
    return this.size;
  }

  /** Bytes copied so far, in and out. */
  get bytesCopied(): number {
    return this.copied;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.size += chunk.length;
    if (chunk.length >= SEGMENT_BYTES) {
      this.tail = undefined;
      this.segments.push({ buf: chunk, start: 0, end: chunk.length });
      return;
    }
    let at = 0;
    while (at < chunk.length) {
      if (!this.tail || this.tail.end === this.tail.buf.length) {
        this.tail = { buf: Buffer.allocUnsafe(SEGMENT_BYTES), start: 0, end: 0 };
        this.segments.push(this.tail);
      }
      const n = chunk.copy(this.tail.buf, this.tail.end, at);
      this.tail.end += n;
      at += n;
      this.copied += n;
    }
  }

  /** Copies the first `n` bytes (n <= length) into `into`, without consuming them. */
  peek(into: Buffer, n: number): void {
    let filled = 0;
    for (let i = this.first; filled < n; i++) {
      const s = this.segments[i] as Segment;
      filled += s.buf.copy(into, filled, s.start, Math.min(s.end, s.start + n - filled));
    }
    this.copied += n;
  }

  /** Removes the first `n` bytes (n <= length) and returns them in a buffer of their own. */
  take(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    this.peek(out, n);
    this.skip(n);
    return out;
  }

  /** Drops the first `n` bytes (n <= length). */
  skip(n: number): void {
    this.size -= n;
    let left = n;
    while (left > 0) {
      const s = this.segments[this.first] as Segment;
      const here = Math.min(left, s.end - s.start);
      s.start += here;
      left -= here;
      if (s.start === s.end && s !== this.tail) this.first++;
    }
    if (this.first > 0 && this.first * 2 >= this.segments.length) {
      this.segments = this.segments.slice(this.first);
      this.first = 0;
    }
  }

  clear(): void {
    this.segments = [];
    this.first = 0;
    this.tail = undefined;
    this.size = 0;
  }
}
