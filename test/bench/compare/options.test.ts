import t from 'tap';
import { parseCompareOptions } from '../../../bench/compare/options.js';

void t.test('with no arguments, bench:compare runs the Deployment mode at 1,000 pods, three runs, both agents at 50 qps / 100 burst, Tether as shipped (bundled)', async (t) => {
  t.strictSame(parseCompareOptions([]), {
    pods: 1000, runs: 3, bind: 'deployment', qps: 50, burst: 100, outageTimeoutMs: 90_000, skipOutage: false, sides: ['tether', 'virtual-kubelet'], tetherBuild: 'bundle',
  });
});

void t.test('--bind direct selects the bench-bound pods; --bind takes only the two modes', async (t) => {
  t.equal(parseCompareOptions(['--bind', 'direct']).bind, 'direct');
  t.equal(parseCompareOptions(['--bind=deployment']).bind, 'deployment');
  t.throws(() => parseCompareOptions(['--bind', 'scheduler']), /--bind must be one of deployment, direct, not 'scheduler'/);
});

void t.test('a lifted --qps lifts the burst alike unless --burst is given', async (t) => {
  t.match(parseCompareOptions(['--qps', '1000']), { qps: 1000, burst: 2000 });
  t.match(parseCompareOptions(['--qps', '1000', '--burst', '1500']), { qps: 1000, burst: 1500 });
  t.match(parseCompareOptions(['--qps', '0.5']), { qps: 0.5, burst: 1 });
});

void t.test('numbers are checked with the flag named: pods, runs and burst are positive integers, qps and the outage timeout positive', async (t) => {
  t.throws(() => parseCompareOptions(['--pods', '0']), /--pods must be a positive integer, not '0'/);
  t.throws(() => parseCompareOptions(['--pods', '2.5']), /--pods must be a positive integer/);
  t.throws(() => parseCompareOptions(['--runs', 'three']), /--runs must be a positive integer/);
  t.throws(() => parseCompareOptions(['--qps=-1']), /--qps must be a positive number/);
  t.throws(() => parseCompareOptions(['--burst', '1.5']), /--burst must be a positive integer/);
  t.throws(() => parseCompareOptions(['--outage-timeout-s', 'x']), /--outage-timeout-s must be a positive number/);
  t.equal(parseCompareOptions(['--outage-timeout-s', '60']).outageTimeoutMs, 60_000);
});

void t.test('--only runs one side, --skip-outage leaves the outage out, and an unknown flag is refused', async (t) => {
  t.strictSame(parseCompareOptions(['--only', 'virtual-kubelet']).sides, ['virtual-kubelet']);
  t.throws(() => parseCompareOptions(['--only', 'vk']), /--only must be one of tether, virtual-kubelet/);
  t.equal(parseCompareOptions(['--skip-outage']).skipOutage, true);
  t.throws(() => parseCompareOptions(['--direct']), /Unknown option '--direct'/);
});

void t.test('--tether-build modules runs Tether from dist/\'s compiled modules instead of the bundle; nothing else is taken', async (t) => {
  t.equal(parseCompareOptions(['--tether-build', 'modules']).tetherBuild, 'modules');
  t.equal(parseCompareOptions(['--tether-build=bundle']).tetherBuild, 'bundle');
  t.throws(() => parseCompareOptions(['--tether-build', 'minified']), /--tether-build must be one of bundle, modules, not 'minified'/);
});
