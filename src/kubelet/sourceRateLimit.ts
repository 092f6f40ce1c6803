/**
 * How many token reviews unknown callers may cause: a token bucket per source address (so one
 * address's flood empties only its own bucket), behind one bucket for all (so many addresses
 * together still cannot flood the API server). The addresses are kept in an LRU of bounded size;
 * an address pushed out comes back with a full bucket, which is what an idle address has anyway,
 * and the shared bucket still holds.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';

/** `rate` a second sustained, `burst` at once. */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(private readonly rate: number, private readonly burst: number, now: number) {
    this.tokens = burst;
    this.refilledAt = now;
  }

  take(now: number): boolean {
    // A clock that goes back gives nothing, and its interval is not counted twice.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.refilledAt) / 1000) * this.rate);
    this.refilledAt = Math.max(this.refilledAt, now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export interface SourceRateLimitOptions {
  readonly clock: Clock;
  readonly perSource: { readonly perSecond: number; readonly burst: number };
  readonly overall: { readonly perSecond: number; readonly burst: number };
  /** How many addresses have a bucket of their own at once. */
  readonly maxSources: number;
}

export type Admission = { readonly admitted: true } | { readonly admitted: false; readonly limit: 'source' | 'overall' };

export class SourceRateLimit {
  private readonly sources: LRUCache<string, TokenBucket>;
  private readonly overall: TokenBucket;

  constructor(private readonly options: SourceRateLimitOptions) {
    this.sources = new LRUCache({ max: options.maxSources });
    this.overall = new TokenBucket(options.overall.perSecond, options.overall.burst, options.clock.now());
  }

  /** One review for `source`: its own bucket first, so a refused address never drains the shared one. */
  admit(source: string): Admission {
    const now = this.options.clock.now();
    let bucket = this.sources.get(source);
    if (!bucket) {
      bucket = new TokenBucket(this.options.perSource.perSecond, this.options.perSource.burst, now);
      this.sources.set(source, bucket);
    }
    if (!bucket.take(now)) return { admitted: false, limit: 'source' };
    if (!this.overall.take(now)) return { admitted: false, limit: 'overall' };
    return { admitted: true };
  }

  /** Addresses with a bucket of their own now (at most `maxSources`). */
  get trackedSources(): number {
    return this.sources.size;
  }
}
