import t from 'tap';
import { settledBounded } from '../../src/lib/boundedConcurrency.js';

void t.test('settledBounded: every outcome in the order of the items, at most `limit` calls at once', async (t) => {
  let running = 0;
  let most = 0;
  const results = await settledBounded([3, 1, 2, 4], 2, async (n) => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setImmediate(resolve));
    running -= 1;
    if (n === 2) throw new Error('two refused');
    return n * 10;
  });
  t.equal(most, 2);
  t.same(results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason))), [30, 10, 'Error: two refused', 40]);
});
