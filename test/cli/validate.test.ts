/**
 * `tether validate`, the help of every command and `tether version`, run as `main()` in this
 * process. (The real program's exit codes and output streams: test/e2e/cliProcess.test.ts.)
 */
import t from 'tap';
import { runMain } from './cli.js';

t.test('validate prints every problem of a broken file and exits 2', async (t) => {
  const r = await runMain(['validate', 'test/config/fixtures/wrong-types.yaml']);
  t.equal(r.code, 2);
  t.match(r.stderr, 'test/config/fixtures/wrong-types.yaml: nodes[0].taints[0].effect: expected NoSchedule, PreferNoSchedule or NoExecute, got "Sometimes" (line 10)');
  t.match(r.stderr, 'test/config/fixtures/wrong-types.yaml: logLevel: expected one of debug, info, warn, error, silent, got "verbose"');
  t.match(r.stderr, /wrong-types\.yaml: 6 problems\n$/);
  t.equal(r.stdout, '');
});

t.test('validate accepts a valid file with exit 0', async (t) => {
  const r = await runMain(['validate', 'test/config/fixtures/valid-simulated.yaml']);
  t.equal(r.code, 0);
  t.match(r.stdout, 'valid (1 virtual node: vk-fixture (simulated))');
});

t.test('validate shows each Kubernetes node\'s host cluster id: configured, or derived from the host cluster at start', async (t) => {
  const r = await runMain(['validate', 'test/config/fixtures/valid-kubernetes.yaml']);
  t.equal(r.code, 0);
  t.match(r.stdout, 'vk-derived: hostClusterId derived at start from the host cluster (the UID of its kube-system namespace)');
  t.match(r.stdout, 'vk-home: hostClusterId home (configured)');
});

t.test('validate says whether each Kubernetes node gives its pods ServiceAccount access to the host API server', async (t) => {
  const r = await runMain(['validate', 'test/config/fixtures/valid-kubernetes.yaml']);
  t.equal(r.code, 0);
  t.match(r.stdout, 'vk-derived: hostServiceAccountAccess off (the default): no host credential reaches the remote cluster');
  t.match(r.stdout, 'vk-home: hostServiceAccountAccess on: each offloaded pod gets a token of its host ServiceAccount (bound to the pod, readable by whoever reads Secrets in its remote namespace) and reaches the host API server at 192.0.2.10:6443 as kubernetes.default.svc; the agent needs create on serviceaccounts/token in the host (docs/security.md)');
});

t.test('validate says what each node does with DaemonSet pods, and under reject the node affinity that keeps a DaemonSet\'s rollout from waiting on it', async (t) => {
  const r = await runMain(['validate', 'test/config/fixtures/valid-kubernetes.yaml']);
  t.equal(r.code, 0);
  t.match(r.stdout, 'vk-derived: admission.daemonSets reject (the default): DaemonSet pods are Failed here (DaemonSetPodNotAdmitted), and a rolling update of a DaemonSet that tolerates the node\'s taint waits on it; to keep a DaemonSet off virtual nodes, add {"key":"type","operator":"NotIn","values":["virtual-kubelet"]} to the matchExpressions');
  t.match(r.stdout, 'vk-home: admission.daemonSets admit: DaemonSet pods that tolerate the node\'s taint are offloaded like any pod');
});

t.test('validate without a file is a usage error', async (t) => {
  const r = await runMain(['validate']);
  t.equal(r.code, 2);
  t.match(r.stderr, "tether validate: a config FILE is required\nRun 'tether validate --help' for usage.");
});

t.test('--help on the program and on each command', async (t) => {
  for (const args of [['--help'], ['run', '--help'], ['sandbox', '--help'], ['validate', '--help'], ['version', '--help']]) {
    const r = await runMain(args);
    t.equal(r.code, 0, args.join(' '));
    t.match(r.stdout, /^Usage: tether/, args.join(' '));
  }
  const unknown = await runMain(['frobnicate']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, "tether: unknown command 'frobnicate'");
});

t.test('version', async (t) => {
  const r = await runMain(['version', '--json']);
  t.equal(r.code, 0);
  t.match(JSON.parse(r.stdout), { tether: '0.1.0', kubeletVersion: /^v1\.36\.3\+tether/ });
});
