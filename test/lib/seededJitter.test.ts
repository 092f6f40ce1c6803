// The one seeded draw every pure retry decision uses (pods, node writes, reconcile keys).
import fc from 'fast-check';
import t from 'tap';
import { backoffDelay, seededJitter } from '../../src/lib/backoff.js';

void t.test('a seed always draws the same fraction, in [0, 1)', async (t) => {
  fc.assert(fc.property(fc.string(), (seed) => {
    const a = seededJitter(seed)();
    return a === seededJitter(seed)() && a >= 0 && a < 1;
  }));
  t.pass();
});

void t.test('different attempts of one object spread their delays', async (t) => {
  const policy = { minMs: 1_000, maxMs: 60_000, factor: 1, jitter: 0.5 };
  const delays = new Set(Array.from({ length: 20 }, (_, i) => backoffDelay(policy, 0, seededJitter(`pod-uid:${i}`))));
  t.ok(delays.size > 10, `20 seeds gave ${delays.size} distinct delays`);
});
