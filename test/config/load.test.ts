/**
 * The config file, specified by broken files: each problem names the file, the field path as
 * written, what is expected and what was found; every problem is listed, not just the first.
 */
import { join } from 'node:path';
import t from 'tap';
import { loadConfigFile, parseConfig } from '../../src/config/index.js';

const fixture = (name: string): string => join('test', 'config', 'fixtures', name);

const broken: Record<string, string[]> = {
  'negative-interval.yaml': [
    'nodes[1].ping.intervalMs: expected a positive number, got -5 (line 8)',
  ],
  'unknown-fields.yaml': [
    'nodes[0].provider.startLatency: unknown field; expected one of: type, startLatencyMs,',
    'nodes[0].pingg: unknown field; expected one of: name, internalIP,',
    'colour: unknown field; expected one of: host, logLevel, nodes,',
  ],
  'wrong-types.yaml': [
    'logLevel: expected one of debug, info, warn, error, silent, got "verbose" (line 1)',
    'nodes[0].kubeletPort: expected a port number from 1 to 65535, got "10250" (line 7)',
    'nodes[0].labels.team: expected a string value, got 7 (line 8)',
    'nodes[0].taints[0].effect: expected NoSchedule, PreferNoSchedule or NoExecute, got "Sometimes" (line 10)',
    'nodes[0].provider.startLatencyMs: expected a non-negative number, got "fast" (line 13)',
    'ports.metrics.port: expected a port number from 1 to 65535, or 0 for off, got 99999 (line 3)',
  ],
  'bad-provider.yaml': [
    'nodes[0].provider.type: expected a provider type: simulated or kubernetes, got "kubernets" (line 5)',
    'nodes[1].provider.remote.secret.name: missing: expected a non-empty string (line 10)',
    'nodes[1].provider.namespaceStrategy: expected suffix or same-name, got "prefix" (line 11)',
    'nodes[1].provider.hostClusterId: expected a DNS label',
    'nodes[1].provider.reflectedKinds: EndpointSlice needs Service (a slice belongs to a reflected Service) (line 13)',
    'nodes[2].provider.reflectedKinds: expected none, or a list of Service and EndpointSlice, got a list (line 19)',
  ],
  'cross-field.yaml': [
    'nodes[0].ping.timeoutMs: must not exceed ping.intervalMs (1000), or pings would overlap (line 7)',
    'nodes[0].lease.renewIntervalMs: must be shorter than durationSeconds (10 s), or the lease expires between renewals (line 8)',
    'nodes[1].internalIP: expected an IPv4 or IPv6 address, got "not-an-ip" (line 11)',
    "nodes[1].name: duplicate node name 'vk-a' (also nodes[0].name) (line 10)",
  ],
  'missing-fields.yaml': [
    'nodes[0].internalIP: missing: expected an IPv4 or IPv6 address',
    'nodes[0].provider.remote: expected either {kubeconfig: <path>} or {secret: {namespace, name, key}}, got nothing',
  ],
  'no-nodes.yaml': ['nodes: expected at least one virtual node, got a list (line 1)'],
  'empty.yaml': ['the file is empty; expected a mapping with at least a nodes list'],
};

for (const [name, expected] of Object.entries(broken)) {
  t.test(`${name}: every problem, named by file and field`, async (t) => {
    const result = loadConfigFile(fixture(name), { env: {} });
    t.equal(result.ok, false);
    const problems = result.ok ? [] : [...result.problems];
    t.equal(problems.length, expected.length, `exactly ${expected.length} problem(s):\n${problems.join('\n')}`);
    for (const line of expected) {
      t.ok(problems.some((p) => p.startsWith(`${fixture(name)}: ${line}`)), `reports: ${line}\n got:\n${problems.join('\n')}`);
    }
  });
}

t.test('YAML syntax errors name the line and column', async (t) => {
  const result = loadConfigFile(fixture('bad-yaml.yaml'), { env: {} });
  t.match(result.ok ? [] : result.problems, [/^test\/config\/fixtures\/bad-yaml\.yaml:4:1: invalid YAML: /]);
});

t.test('an unreadable file says so', async (t) => {
  const result = loadConfigFile(fixture('absent.yaml'), { env: {} });
  t.same(result.ok ? [] : result.problems, [`${fixture('absent.yaml')}: cannot read the file (ENOENT)`]);
});

t.test('a valid file loads; defaults are left to the consumers', async (t) => {
  const result = loadConfigFile(fixture('valid-simulated.yaml'), { env: {} });
  t.ok(result.ok);
  if (result.ok) t.match(result.config, { logLevel: 'warn', nodes: [{ name: 'vk-fixture', provider: { type: 'simulated', startLatencyMs: 100 } }] });
});

t.test('overrides: a flag beats its environment variable, which beats the file', async (t) => {
  const text = 'logLevel: info\nports: { metrics: { port: 9000 } }\nnodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated } }]\n';
  const fromFile = parseConfig(text, 'f.yaml', { env: {} });
  const fromEnv = parseConfig(text, 'f.yaml', { env: { TETHER_LOG_LEVEL: 'debug', TETHER_METRICS_PORT: '9100', TETHER_DELETE_NODE_ON_SHUTDOWN: 'true' } });
  const fromFlag = parseConfig(text, 'f.yaml', { env: { TETHER_LOG_LEVEL: 'debug' }, flags: { 'log-level': 'error', kubeconfig: '/k' } });
  t.match(fromFile, { ok: true, config: { logLevel: 'info', ports: { metrics: { port: 9000 } } } });
  t.match(fromEnv, { ok: true, config: { logLevel: 'debug', ports: { metrics: { port: 9100 } }, shutdown: { deleteNodeOnShutdown: true } } });
  t.match(fromFlag, { ok: true, config: { logLevel: 'error', host: { kubeconfig: '/k' } } });
});

t.test('leader election from the TETHER_LEADER_ELECTION_* variables the chart sets goes through the same overrides', async (t) => {
  const text = 'nodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated } }]\n';
  const env = { TETHER_LEADER_ELECTION_NAMESPACE: 'tether', TETHER_LEADER_ELECTION_RENEW_DEADLINE_MS: '4000' };
  t.match(parseConfig(text, 'f.yaml', { env }), { ok: true, config: { leaderElection: { namespace: 'tether', renewDeadlineMs: 4000 } } });
  t.match(parseConfig(text, 'f.yaml', { env: {} }), { ok: true, config: { leaderElection: undefined } }, 'off unless asked for');
  const bad = parseConfig(text, 'f.yaml', { env: { ...env, TETHER_LEADER_ELECTION_RETRY_PERIOD_MS: 'soon' } });
  t.match(bad.ok ? [] : bad.problems, [/^TETHER_LEADER_ELECTION_RETRY_PERIOD_MS: leaderElection\.retryPeriodMs: expected a positive number, got "soon"/]);
});

t.test('a bad override is reported under its own name', async (t) => {
  const text = 'nodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated } }]\n';
  const result = parseConfig(text, 'f.yaml', { env: { TETHER_METRICS_PORT: 'abc' }, flags: { 'log-level': 'loud' } });
  t.same(result.ok ? [] : result.problems, [
    '--log-level: logLevel: expected one of debug, info, warn, error, silent, got "loud"',
    'TETHER_METRICS_PORT: ports.metrics.port: expected a port number from 1 to 65535, or 0 for off, got "abc"',
  ]);
});

t.test('restart policies: partial overrides merge with the defaults and are checked across fields', async (t) => {
  const text = 'restartPolicies: { pod: { backoff: { minMs: 5000, maxMs: 1000 } } }\nnodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated } }]\n';
  t.same(parseConfig(text, 'f.yaml', { env: {} }), { ok: false, file: 'f.yaml', problems: ['f.yaml: restartPolicies.pod.backoff.maxMs: must not be below backoff.minMs (5000)'] });
});

t.test('the example config in examples/ is valid', async (t) => {
  t.ok(loadConfigFile('examples/tether.yaml', { env: {} }).ok);
});

t.test('leader election: a section of the file, checked field by field', async (t) => {
  const node = 'nodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated } }]\n';
  const ok = parseConfig(`leaderElection: { namespace: tether-system, leaseDurationMs: 15000 }\n${node}`, 'f.yaml', { env: {} });
  t.ok(ok.ok);
  if (ok.ok) t.same(ok.config.leaderElection, { namespace: 'tether-system', leaseDurationMs: 15000 });
  const bad = parseConfig(`leaderElection: { namespace: '', retryPeriodMs: -1, term: 3 }\n${node}`, 'f.yaml', { env: {} });
  t.notOk(bad.ok);
  const problems = bad.ok ? '' : bad.problems.join('\n');
  t.match(problems, /f\.yaml: leaderElection\.namespace: expected a non-empty string/);
  t.match(problems, /leaderElection\.retryPeriodMs: expected a positive number/);
  t.match(problems, /leaderElection.*term/);
});

t.test('TETHER_NODE_INTERNAL_IP (the pod IP, in the chart) gives every node without an internalIP its address', async (t) => {
  const text = 'nodes: [{ name: a, provider: { type: simulated } }, { name: b, internalIP: 10.0.0.9, provider: { type: simulated } }]\n';
  const result = parseConfig(text, 'f.yaml', { env: { TETHER_NODE_INTERNAL_IP: '10.244.1.7' } });
  t.ok(result.ok);
  if (result.ok) t.match(result.config.nodes, [{ name: 'a', internalIP: '10.244.1.7' }, { name: 'b', internalIP: '10.0.0.9' }]);
  const missing = parseConfig(text, 'f.yaml', { env: {} });
  t.match(missing.ok ? [] : missing.problems, [/nodes\[0\]\.internalIP: missing/]);
});

t.test('kubeletApi: the request deadline and the streams\' bounds, checked field by field', async (t) => {
  const node = 'nodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated } }]\n';
  const ok = parseConfig(`kubeletApi: { requestTimeoutSeconds: 5, streams: { maxPerNode: 32, maxPerUser: 4, maxPerPod: 8, idleTimeoutSeconds: 600, maxSessionSeconds: 0, maxMessageBytes: 65536 } }\n${node}`, 'f.yaml', { env: {} });
  t.match(ok, { ok: true, config: { kubeletApi: { requestTimeoutSeconds: 5, streams: { maxPerNode: 32, maxPerUser: 4, maxPerPod: 8, idleTimeoutSeconds: 600, maxSessionSeconds: 0, maxMessageBytes: 65536 } } } });
  const bad = parseConfig(`kubeletApi: { requestTimeoutSeconds: 0, streams: { maxPerNode: 0, maxPerUser: 1.5, maxSessionSeconds: -1, maxMessageBytes: 1073741824, maxStreams: 3 } }\n${node}`, 'f.yaml', { env: {} });
  const problems = bad.ok ? '' : bad.problems.join('\n');
  t.match(problems, /kubeletApi\.requestTimeoutSeconds: expected a positive number, got 0/);
  t.match(problems, /kubeletApi\.streams\.maxPerNode: expected a positive integer, got 0/);
  t.match(problems, /kubeletApi\.streams\.maxPerUser: expected a positive integer, got 1\.5/);
  t.match(problems, /kubeletApi\.streams\.maxSessionSeconds: expected a non-negative number, got -1/);
  t.match(problems, /kubeletApi\.streams\.maxMessageBytes: expected a positive integer up to 67108864 \(64 MiB\)/);
  t.match(problems, /kubeletApi\.streams\.maxStreams: unknown field; expected one of: maxPerNode, maxPerUser, maxPerPod/);
});

t.test('the simulated provider\'s imageCommands: image → argv; anything else names the field', async (t) => {
  const good = 'nodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated, imageCommands: { busybox: [sh, -c, "echo hi"] } } }]\n';
  t.ok(parseConfig(good, 'f.yaml', { env: {} }).ok);
  const bad = 'nodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated, imageCommands: { busybox: "sh -c true" } } }]\n';
  const result = parseConfig(bad, 'f.yaml', { env: {} });
  t.match(result.ok ? [] : result.problems, [/nodes\[0\]\.provider\.imageCommands\.busybox: .*list of words/]);
});

t.test('eventRateLimit: the host Events\' own budget, checked as rateLimit is', async (t) => {
  const node = 'nodes: [{ name: vk, internalIP: 127.0.0.1, provider: { type: simulated } }]\n';
  t.match(parseConfig(`eventRateLimit: { qps: 5, burst: 10 }\n${node}`, 'f.yaml', { env: {} }), { ok: true, config: { eventRateLimit: { qps: 5, burst: 10 } } });
  const bad = parseConfig(`eventRateLimit: { qps: 0, burst: 2.5 }\n${node}`, 'f.yaml', { env: {} });
  const problems = bad.ok ? '' : bad.problems.join('\n');
  t.match(problems, /eventRateLimit\.qps: expected a positive number, got 0/);
  t.match(problems, /eventRateLimit\.burst: expected a positive integer, got 2\.5/);
});
