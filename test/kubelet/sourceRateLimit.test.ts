/**
 * The per-address and overall limits on token reviews (sourceRateLimit.ts), on a manual clock:
 * a bucket refills at its rate up to its burst, a refused address does not drain the shared
 * bucket, and however many addresses ask, the table of addresses stays within its bound.
 */
import fc from 'fast-check';
import t from 'tap';
import { SourceRateLimit, TokenBucket } from '../../src/kubelet/sourceRateLimit.js';
import { ManualClock } from '../support/manualClock.js';

void t.test('a bucket gives its burst at once, then its rate, and never more than its burst after a rest', async (t) => {
  const bucket = new TokenBucket(2, 3, 0);
  t.same([0, 0, 0, 0].map(() => bucket.take(0)), [true, true, true, false]);
  t.equal(bucket.take(499), false, 'not yet a whole token');
  t.equal(bucket.take(500), true, 'one after half a second at 2/s');
  t.same([1, 2, 3, 4].map(() => bucket.take(3_600_000)), [true, true, true, false], 'an hour of rest is still only the burst');
  t.equal(bucket.take(0), false, 'a clock going back gives nothing');
});

void t.test('over any schedule a bucket never admits more than burst + rate × elapsed', async () => {
  fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 300 }), (gaps) => {
    const bucket = new TokenBucket(5, 10, 0);
    let now = 0;
    let admitted = 0;
    for (const gap of gaps) {
      now += gap;
      if (bucket.take(now)) admitted++;
    }
    return admitted <= 10 + Math.floor((now / 1000) * 5);
  }));
});

void t.test("an address refused by its own bucket leaves the shared bucket to the others", async (t) => {
  const limit = new SourceRateLimit({ clock: new ManualClock(), perSource: { perSecond: 1, burst: 2 }, overall: { perSecond: 1, burst: 4 }, maxSources: 100 });
  const flood = Array.from({ length: 50 }, () => limit.admit('10.0.0.66'));
  t.equal(flood.filter((a) => a.admitted).length, 2);
  t.same(flood.at(-1), { admitted: false, limit: 'source' });
  t.same(limit.admit('10.0.0.5'), { admitted: true }, 'two of the shared four are left');
  t.same(limit.admit('10.0.0.6'), { admitted: true });
  t.same(limit.admit('10.0.0.7'), { admitted: false, limit: 'overall' });
});

void t.test('the table of addresses is bounded, however many addresses ask', async (t) => {
  const limit = new SourceRateLimit({ clock: new ManualClock(), perSource: { perSecond: 1, burst: 1 }, overall: { perSecond: 1e9, burst: 1e9 }, maxSources: 64 });
  for (let i = 0; i < 10_000; i++) limit.admit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  t.equal(limit.trackedSources, 64);
});
