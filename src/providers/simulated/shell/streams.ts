/**
 * The shell's byte streams: `Input` (stdin, read by chunk or by line, with what a command did not
 * consume left for the next), `Pipe` (between two stages of a pipeline: the writer waits while
 * the reader lags, and a reader that is done breaks the pipe, as SIGPIPE would), and `Output`
 * (a writer that counts what one command writes, against a cap).
 */
import { onAbort } from '../../../lib/abortFanOut.js';
import { LimitExceeded } from './limits.js';

export type Output = (chunk: string) => Promise<void>;

/** Writing to a pipe whose reader has gone: the writer ends with status 141 (128 + SIGPIPE). */
export class BrokenPipe extends Error {}

export class Input {
  private readonly pending: string[] = [];

  /** `source` returns the next chunk, or undefined at the end of the stream. */
  constructor(private readonly source: () => Promise<string | undefined>, readonly close: () => void = () => undefined) {}

  static empty(): Input {
    return new Input(() => Promise.resolve(undefined));
  }

  static of(text: string): Input {
    let done = false;
    return new Input(() => {
      const chunk = done || text === '' ? undefined : text;
      done = true;
      return Promise.resolve(chunk);
    });
  }

  /** A client's stdin; reading stops (resolving the end) when `signal` aborts. */
  static fromStream(stream: AsyncIterable<Buffer>, signal?: AbortSignal): Input {
    const iterator = stream[Symbol.asyncIterator]();
    return new Input(async () => {
      if (signal?.aborted) return undefined;
      let leave = (): void => undefined;
      const aborted = new Promise<undefined>((resolve) => {
        if (signal) leave = onAbort(signal, () => resolve(undefined));
      });
      try {
        const next = await Promise.race([iterator.next(), aborted]);
        return next === undefined || next.done ? undefined : next.value.toString('utf8');
      } finally {
        leave();
      }
    });
  }

  async read(): Promise<string | undefined> {
    return this.pending.shift() ?? this.source();
  }

  unread(text: string): void {
    if (text !== '') this.pending.unshift(text);
  }

  /** The next line without its newline, or undefined at the end; a line is cut at `max` characters. */
  async readLine(max: number): Promise<string | undefined> {
    let line = '';
    for (;;) {
      const chunk = await this.read();
      if (chunk === undefined) return line === '' ? undefined : line;
      const nl = chunk.indexOf('\n');
      if (nl >= 0) {
        this.unread(chunk.slice(nl + 1));
        return (line + chunk.slice(0, nl)).slice(0, max);
      }
      line = (line + chunk).slice(0, max);
    }
  }

  /** Everything left, up to `max` characters (past it, LimitExceeded). */
  async readAll(max: number): Promise<string> {
    let all = '';
    for (let chunk = await this.read(); chunk !== undefined; chunk = await this.read()) {
      all += chunk;
      if (all.length > max) throw new LimitExceeded(`input longer than ${max} characters`);
    }
    return all;
  }
}

/** A bounded pipe: `write` resolves once the buffer has room; `close` ends the stream. */
export class Pipe {
  private readonly chunks: string[] = [];
  private buffered = 0;
  private closed = false;
  private broken = false;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  constructor(private readonly highWater = 64 * 1024) {}

  readonly write: Output = async (chunk) => {
    if (this.broken) throw new BrokenPipe();
    if (chunk === '') return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.wake('reader');
    while (this.buffered > this.highWater && !this.broken) await new Promise<void>((resolve) => (this.wakeWriter = resolve));
    if (this.broken) throw new BrokenPipe();
  };

  /** The writing end is done. */
  end(): void {
    this.closed = true;
    this.wake('reader');
  }

  readonly input = new Input(async () => {
    while (this.chunks.length === 0 && !this.closed) await new Promise<void>((resolve) => (this.wakeReader = resolve));
    const chunk = this.chunks.shift();
    if (chunk !== undefined) this.buffered -= chunk.length;
    this.wake('writer');
    return chunk;
  }, () => {
    this.broken = true;
    this.chunks.length = 0;
    this.buffered = 0;
    this.wake('writer');
  });

  private wake(side: 'reader' | 'writer'): void {
    const wake = side === 'reader' ? this.wakeReader : this.wakeWriter;
    if (side === 'reader') this.wakeReader = undefined;
    else this.wakeWriter = undefined;
    wake?.();
  }
}

/** `write` with a cap on what passes through it; past the cap, LimitExceeded naming `what`. */
export function capped(write: Output, max: number, what: string): Output {
  let written = 0;
  return async (chunk) => {
    written += Buffer.byteLength(chunk);
    if (written > max) throw new LimitExceeded(`${what}: output larger than ${max} bytes`);
    await write(chunk);
  };
}
