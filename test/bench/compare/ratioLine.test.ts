import t from 'tap';
import { apiLimitLine, ratio, ratioLine, type RunFigures } from '../../../bench/compare/ratioLine.js';

const run = (over: Partial<RunFigures> = {}): RunFigures => ({
  createMs: 20_000, createCpuS: 3, deleteCpuS: 4, peakRssMiB: 160, createWrites: 1000, deleteWrites: 1000, latencyP99Ms: 80, ...over,
});

void t.test('the ratio line keeps the old prefix and keys first, then the phases and the mode it was measured under', async (t) => {
  const tether = [run()];
  const vk = [run({ createMs: 80_000, createCpuS: 3, deleteCpuS: 6, peakRssMiB: 100, createWrites: 1060, deleteWrites: 1000, latencyP99Ms: 40 })];
  t.equal(
    ratioLine(tether, vk, { bind: 'direct', qps: 1000, burst: 2000 }),
    'tether/virtual-kubelet: ready=0.25 cpu=0.78 rss=1.60 writes=0.97 p99=2.00 cpu-create=1.00 cpu-delete=0.67 bind=direct qps=1000 burst=2000',
  );
});

void t.test('each ratio is median over median: one slow run on either side does not move it', async (t) => {
  const tether = [run({ createMs: 19_000 }), run({ createMs: 20_000 }), run({ createMs: 90_000 })];
  const vk = [run({ createMs: 40_000 }), run({ createMs: 10_000 }), run({ createMs: 40_000 })];
  t.match(ratioLine(tether, vk, { bind: 'deployment', qps: 50, burst: 100 }), /^tether\/virtual-kubelet: ready=0\.50 .* bind=deployment qps=50 burst=100$/);
});

void t.test('a side without runs, or a zero to divide by, gives n/a rather than a number', async (t) => {
  t.match(ratioLine([run()], [], { bind: 'direct', qps: 50, burst: 100 }), /^tether\/virtual-kubelet: ready=n\/a cpu=n\/a rss=n\/a writes=n\/a p99=n\/a /);
  t.equal(ratio(1, 0), 'n/a');
  t.equal(ratio(null, 2), 'n/a');
  t.equal(ratio(3, 2), '1.50');
});

void t.test('the API-limit line sets Tether\'s median time to all Ready against the same writes at the API server\'s own rate', async (t) => {
  t.equal(apiLimitLine([6_000, 5_000, 9_000], 1000, 250), 'tether/api-server-limit: ready=1.50 (Tether all Ready 6.0 s; 1000 status writes at the API server\'s own limit: 4.0 s)');
  t.equal(apiLimitLine([6_000], 1000, undefined), 'tether/api-server-limit: ready=n/a (Tether all Ready 6.0 s; 1000 status writes at the API server\'s own limit: n/a)');
  t.match(apiLimitLine([], 1000, 250), /ready=n\/a \(Tether all Ready n\/a;/);
});
