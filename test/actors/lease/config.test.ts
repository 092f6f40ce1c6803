/** Lease configuration: the kubelet's defaults, and problems that name their field. */
import t from 'tap';
import { validateLeaseConfig, withLeaseDefaults } from '../../../src/actors/lease/config.js';

t.test('defaults: a 40 s Lease in kube-node-lease renewed every 10 s', async (t) => {
  const config = withLeaseDefaults({ nodeName: 'vn-1' });
  t.same(config, { nodeName: 'vn-1', namespace: 'kube-node-lease', durationSeconds: 40, renewIntervalMs: 10_000, renewTimeoutMs: 10_000, retry: { minMs: 200, maxMs: 7_000, factor: 2, jitter: 0.2 } });
  t.same(validateLeaseConfig(config), []);
});

t.test('each problem names its field', async (t) => {
  const base = withLeaseDefaults({ nodeName: 'vn-1' });
  const table = [
    { config: { ...base, namespace: 'Kube Node Lease' }, path: ['namespace'], problem: /^expected a namespace name/ },
    { config: { ...base, durationSeconds: 0 }, path: ['durationSeconds'], problem: /^expected a positive integer/ },
    { config: { ...base, renewIntervalMs: 40_000 }, path: ['renewIntervalMs'], problem: /^must be shorter than durationSeconds/ },
    { config: { ...base, retry: { ...base.retry, minMs: 0 } }, path: ['retry', 'minMs'], problem: /^expected a positive number/ },
  ];
  for (const row of table) {
    const problems = validateLeaseConfig(row.config);
    t.equal(problems.length, 1, JSON.stringify(problems));
    t.same(problems[0]?.path, row.path);
    t.match(problems[0]?.message, row.problem);
  }
});
