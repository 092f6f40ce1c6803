/**
 * Deterministic container logs for the simulated provider: a container writes line 1 when it
 * starts and one more line every `intervalMs` until it stops. Line n reads
 * `<pod>/<container> line n`; with timestamps it is prefixed, as by the kubelet, with its
 * RFC 3339 time in nanosecond precision and a space.
 */
import { Buffer } from 'node:buffer';
import { sleep, type Clock } from '../../lib/clock.js';
import type { ContainerLogOptions } from '../provider.js';

export interface LogSource {
  /** `<pod>/<container>`. */
  readonly label: string;
  readonly startedAt: number;
  /** When the container stopped; no line is written after it. */
  readonly endedAt: number | undefined;
}

/** RFC 3339 with nanoseconds, the kubelet's timestamp format. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000000Z');
}

function lineTime(source: LogSource, n: number, intervalMs: number): number {
  return source.startedAt + (n - 1) * intervalMs;
}

function formatLine(source: LogSource, n: number, intervalMs: number, timestamps: boolean): string {
  const text = `${source.label} line ${n}\n`;
  return timestamps ? `${rfc3339Nano(lineTime(source, n, intervalMs))} ${text}` : text;
}

/** How many lines exist at `now`. */
export function lineCount(source: LogSource, now: number, intervalMs: number): number {
  const until = Math.min(now, source.endedAt ?? now);
  if (until < source.startedAt) return 0;
  return Math.floor((until - source.startedAt) / intervalMs) + 1;
}

/** The line numbers `options` select among those written by `now` (sinceSeconds, then tailLines). */
export function selectLines(source: LogSource, now: number, intervalMs: number, options: ContainerLogOptions): number[] {
  const count = lineCount(source, now, intervalMs);
  let first = 1;
  if (options.sinceSeconds !== undefined) {
    const since = now - options.sinceSeconds * 1000;
    first = Math.max(first, Math.ceil((since - source.startedAt) / intervalMs) + 1);
  }
  if (options.tailLines !== undefined) first = Math.max(first, count - Math.max(0, options.tailLines) + 1);
  const lines: number[] = [];
  for (let n = first; n <= count; n++) lines.push(n);
  return lines;
}

/** Applies limitBytes across a whole stream, cutting the last chunk if it must. */
export class ByteBudget {
  private left: number;
  constructor(limit: number | undefined) {
    this.left = limit ?? Number.POSITIVE_INFINITY;
  }
  get exhausted(): boolean {
    return this.left <= 0;
  }
  take(chunk: string): string {
    const bytes = Buffer.byteLength(chunk);
    if (bytes <= this.left) {
      this.left -= bytes;
      return chunk;
    }
    const cut = Buffer.from(chunk).subarray(0, this.left).toString();
    this.left = 0;
    return cut;
  }
}

export interface SyntheticLogStream {
  readonly clock: Clock;
  readonly intervalMs: number;
  readonly options: ContainerLogOptions;
  /** Reads the container's current source; undefined once the container no longer exists. */
  readonly source: () => LogSource | undefined;
  readonly signal?: AbortSignal;
}

/**
 * The selected lines, then (with `follow`) each new line as the clock reaches it, until the
 * signal aborts, the container stops or disappears, or limitBytes is spent. Ends quietly on abort.
 */
export async function* syntheticLogs(stream: SyntheticLogStream): AsyncGenerator<string, void, undefined> {
  const { clock, intervalMs, options, signal } = stream;
  const budget = new ByteBudget(options.limitBytes);
  const timestamps = options.timestamps === true;
  const initial = stream.source();
  if (initial === undefined) return;
  // One reading of the clock for both: each yield waits for the reader, and a line written while
  // it is slow must be followed, not skipped.
  const selectedAt = clock.now();
  const selected = selectLines(initial, selectedAt, intervalMs, options);
  for (const n of selected) {
    if (budget.exhausted) return;
    yield budget.take(formatLine(initial, n, intervalMs, timestamps));
  }
  if (options.follow !== true) return;
  let next = lineCount(initial, selectedAt, intervalMs) + 1;
  for (;;) {
    if (budget.exhausted || signal?.aborted === true) return;
    const source = stream.source();
    if (source === undefined) return;
    const at = lineTime(source, next, intervalMs);
    if (source.endedAt !== undefined && at > source.endedAt) return;
    // A line whose time has already come (the clock jumped) is written without waiting.
    if (at > clock.now()) {
      try {
        await sleep(clock, at - clock.now(), signal);
      } catch {
        return;
      }
    }
    const now = stream.source();
    if (now === undefined || (now.endedAt !== undefined && at > now.endedAt)) return;
    yield budget.take(formatLine(now, next, intervalMs, timestamps));
    next++;
  }
}
