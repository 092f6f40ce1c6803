/** Node configuration: defaults, and problems that name their field. */
import t from 'tap';
import { DEFAULT_KUBELET_VERSION, validateNodeConfig, withNodeDefaults } from '../../../src/actors/node/config.js';
import { nodeObserved } from '../../../src/actors/node/protocol.js';

const base = withNodeDefaults({ nodeName: 'vn-1', internalIP: '10.0.0.1' });

t.test('defaults follow virtual-kubelet and the kubelet', async (t) => {
  t.match(base, {
    kubeletPort: 10250,
    statusIntervalMs: 60_000,
    ping: { intervalMs: 10_000, timeoutMs: 5_000, failureThreshold: 3, successThreshold: 2 },
    retry: { minMs: 200, maxMs: 7_000 },
    taints: undefined,
  });
  t.same(validateNodeConfig(base), [], 'the defaults are sound');
  t.same(withNodeDefaults({ nodeName: 'vn-1', internalIP: '10.0.0.1', ping: { failureThreshold: 5 } }).ping.intervalMs, 10_000, 'a partial ping section keeps the other defaults');
  t.same(validateNodeConfig(withNodeDefaults({ nodeName: 'vn-1', internalIP: '10.0.0.1', taints: [] })), [], 'no taints at all is allowed');
});

t.test('the kubelet version is semver that compares equal to the control plane it is built for', async (t) => {
  t.match(DEFAULT_KUBELET_VERSION, /^v1\.36\.3\+/, 'build metadata, not a pre-release suffix');
});

t.test('each problem names its field', async (t) => {
  const table: Array<{ change: Partial<typeof base>; path: Array<string | number>; problem: RegExp }> = [
    { change: { ping: { ...base.ping, intervalMs: 0 } }, path: ['ping', 'intervalMs'], problem: /^expected a positive number, got 0$/ },
    { change: { ping: { ...base.ping, timeoutMs: 20_000 } }, path: ['ping', 'timeoutMs'], problem: /^must not exceed ping\.intervalMs/ },
    { change: { ping: { ...base.ping, failureThreshold: 1.5 } }, path: ['ping', 'failureThreshold'], problem: /^expected a positive integer/ },
    { change: { ping: { ...base.ping, successThreshold: 0 } }, path: ['ping', 'successThreshold'], problem: /^expected a positive integer/ },
    { change: { internalIP: '' }, path: ['internalIP'], problem: /^expected an IPv4 or IPv6 address/ },
    { change: { internalIP: '300.1.1.1' }, path: ['internalIP'], problem: /^expected an IPv4 or IPv6 address/ },
    { change: { nodeName: 'Not_A_Name' }, path: ['nodeName'], problem: /^expected a DNS subdomain name/ },
    { change: { kubeletPort: 70_000 }, path: ['kubeletPort'], problem: /^expected a port number/ },
    { change: { kubeletVersion: '1.36' }, path: ['kubeletVersion'], problem: /^expected a semantic version/ },
    { change: { statusIntervalMs: -1 }, path: ['statusIntervalMs'], problem: /^expected a positive number/ },
    { change: { retry: { ...base.retry, minMs: 500, maxMs: 100 } }, path: ['retry', 'maxMs'], problem: /^must not be below retry\.minMs/ },
    { change: { taints: [{ key: 'k', effect: 'Sometimes' }] }, path: ['taints', 0, 'effect'], problem: /^expected NoSchedule, PreferNoSchedule or NoExecute/ },
  ];
  for (const row of table) {
    const problems = validateNodeConfig({ ...base, ...row.change });
    t.equal(problems.length, 1, JSON.stringify(row.change));
    t.same(problems[0]?.path, row.path);
    t.match(problems[0]?.message, row.problem);
  }
  t.ok(validateNodeConfig({ ...base, internalIP: 'fd00::7' }).length === 0, 'IPv6 is fine');
});

t.test('NodeWatch events map to node.observed', async (t) => {
  const node = { metadata: { name: 'vn-1', uid: 'u1' } };
  t.same(nodeObserved({ type: 'deleted', node }), { type: 'node.observed', node: undefined, deletedUid: 'u1' });
  t.same(nodeObserved({ type: 'updated', node }), { type: 'node.observed', node });
  t.equal(nodeObserved({ type: 'synced' }), undefined);
});
