/**
 * One container instance's log, as the runtime's log file would hold it: each line of its stdout
 * and stderr with the time it was written, bounded (the oldest lines go first, as log rotation
 * would drop them), closed when the instance ends. Readers wait on `changed()` to follow it.
 */
import { Buffer } from 'node:buffer';

export interface LogLine {
  readonly at: number;
  readonly stream: 'stdout' | 'stderr';
  /** With its trailing newline. */
  readonly text: string;
}

/** The kubelet's termination-message bounds: 80 lines, 2048 bytes of the log on error. */
const FALLBACK_LINES = 80;
const FALLBACK_BYTES = 2048;

export class ContainerLog {
  private readonly lines: LogLine[] = [];
  private readonly partial = { stdout: '', stderr: '' };
  private bytes = 0;
  /** Lines the bound dropped, so a follower's index stays valid. */
  private dropped = 0;
  private closedAt: number | undefined;
  private waiters: Array<() => void> = [];

  constructor(private readonly now: () => number, private readonly maxBytes = 256 * 1024) {}

  get endedAt(): number | undefined {
    return this.closedAt;
  }

  /** Appends a chunk; whole lines are kept as they come, a partial one when the next newline (or the end) arrives. */
  write(stream: 'stdout' | 'stderr', chunk: string): void {
    if (this.closedAt !== undefined) return;
    const text = this.partial[stream] + chunk;
    const parts = text.split('\n');
    this.partial[stream] = parts.pop() ?? '';
    for (const part of parts) this.push(stream, `${part}\n`);
    if (parts.length > 0) this.wake();
  }

  /** The instance ended: what is left of a line is kept, readers see the end. */
  close(): void {
    if (this.closedAt !== undefined) return;
    for (const stream of ['stdout', 'stderr'] as const) if (this.partial[stream] !== '') this.push(stream, `${this.partial[stream]}\n`);
    this.closedAt = this.now();
    this.wake();
  }

  /** Lines from index `from` on (an index keeps counting past dropped lines). */
  since(from: number): { lines: readonly LogLine[]; next: number } {
    const dropped = this.dropped;
    const start = Math.max(0, from - dropped);
    return { lines: this.lines.slice(start), next: dropped + this.lines.length };
  }

  /** Resolves at the next line or at the end. */
  changed(): Promise<void> {
    if (this.closedAt !== undefined) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** FallbackToLogsOnError: the log's last 80 lines, at most its last 2048 bytes. */
  tailMessage(): string {
    const text = this.lines.slice(-FALLBACK_LINES).map((l) => l.text).join('');
    const bytes = Buffer.from(text);
    return bytes.length <= FALLBACK_BYTES ? text : bytes.subarray(bytes.length - FALLBACK_BYTES).toString();
  }

  private push(stream: 'stdout' | 'stderr', text: string): void {
    this.lines.push({ at: this.now(), stream, text });
    this.bytes += Buffer.byteLength(text);
    while (this.bytes > this.maxBytes && this.lines.length > 1) {
      const first = this.lines.shift() as LogLine;
      this.bytes -= Buffer.byteLength(first.text);
      this.dropped++;
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
