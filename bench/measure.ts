/**
 * What the real-control-plane benches (compare, restart) share: a process's CPU and memory from
 * /proc, polling for a condition, calls a few at a time, and the "median [every run]" cells of their tables.
 */
import { readFileSync } from 'node:fs';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** utime + stime of `pid`, in seconds (clock ticks of USER_HZ 100). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** VmRSS (now) or VmHWM (the peak) of `pid`, in KiB. */
export function memKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

/** Samples a process's RSS; `peakMiB()` is the larger of the samples and the kernel's high-water mark. */
export class RssPeak {
  private peakKiB = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number, everyMs = 200) {
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    try {
      this.peakKiB = Math.max(this.peakKiB, memKiB(this.pid, 'VmRSS'), memKiB(this.pid, 'VmHWM'));
    } catch { /* exited */ }
  }

  peakMiB(): number {
    this.sample();
    return this.peakKiB / 1024;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** `count` calls of `work`, `concurrency` in flight (a bench's own client has no client-side limit). */
export async function inFlight(count: number, concurrency: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) await work(next++);
  }));
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export function median(values: readonly (number | null)[]): number | null {
  const defined = values.filter((v): v is number => v !== null && !Number.isNaN(v)).sort((a, b) => a - b);
  if (defined.length === 0) return null;
  const mid = Math.floor(defined.length / 2);
  return defined.length % 2 === 1 ? defined[mid]! : (defined[mid - 1]! + defined[mid]!) / 2;
}

export function fmt(value: number | null, digits = 1): string {
  return value === null ? 'n/a' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** A table cell: the median, then every run in brackets. */
export function medianCell(values: readonly (number | null)[], digits = 1): string {
  return `${fmt(median(values), digits)} [${values.map((x) => fmt(x, digits)).join(', ')}]`;
}
