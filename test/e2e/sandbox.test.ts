/**
 * `tether sandbox --detach` end to end: it returns once the demo pods are Running on the virtual
 * node; the printed kubectl commands show them, exec in them and port-forward to them; `--down` leaves no recorded process alive and
 * removes the state directory (and the network namespaces when run as root).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import type { SandboxState } from '../../src/sandbox/state.js';
import { recordedPids } from '../../src/sandbox/state.js';
import { runCli } from '../cli/cli.js';
import { waitFor } from '../harness/waitFor.js';

const sh = promisify(execFile);
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

t.test('sandbox --detach brings up the demo on the virtual node; --down leaves nothing behind', async (t) => {
  const stateDir = join(mkdtempSync(join(tmpdir(), 'tether-sandbox-')), 'state');
  t.teardown(() => runCli(['sandbox', '--down', '--state-dir', stateDir]));
  const started = Date.now();
  const up = await runCli(['sandbox', '--detach', '--state-dir', stateDir]);
  t.equal(up.code, 0, `up; stderr:\n${up.stderr}`);
  t.comment(`sandbox up in ${((Date.now() - started) / 1000).toFixed(1)} s (wall, including the CLI's TypeScript loader)`);
  t.match(up.stderr, 'sandbox: clusters: host https://127.0.0.1:');
  t.match(up.stdout, 'Tether sandbox is up');

  const state = JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8')) as SandboxState;
  t.equal(state.status, 'running');
  t.ok(state.clusters?.host?.server && state.clusters.remote?.server, 'API server URLs recorded');
  t.ok(existsSync(state.clusters?.host?.kubeconfig ?? '') && existsSync(state.clusters?.remote?.kubeconfig ?? ''), 'kubeconfigs written');
  t.ok(state.tether?.host?.pid && state.tether.remote?.pid, 'Tether pids recorded');

  const command = up.stdout.split('\n').map((l) => l.trim()).find((l) => l.endsWith('get pods -n demo -o wide'));
  t.ok(command, 'a ready-to-paste kubectl command is printed');
  const { stdout } = await sh('sh', ['-c', command ?? 'false']);
  // The Job's and the CronJob's pods share the namespace; the Deployment's are named after it.
  const rows = stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/)).filter((r) => r[0]?.startsWith('hello-'));
  t.equal(rows.length, 3, stdout);
  t.ok(rows.every((r) => r[2] === 'Running' && r[6] === 'tether-remote'), `all Running on tether-remote:\n${stdout}`);

  const remote = await sh('sh', ['-c', command?.replace(state.clusters?.host?.kubeconfig ?? '', state.clusters?.remote?.kubeconfig ?? '').replace('-n demo', '-A') ?? 'false']);
  t.match(remote.stdout, /demo-sandbox\s+hello-\S+\s+1\/1\s+Running.*sandbox-worker/, 'the pods run in the remote cluster, on its Tether node');

  const reflected = up.stdout.split('\n').map((l) => l.trim()).find((l) => l.includes('get svc,endpointslices -n demo-sandbox'));
  t.ok(reflected, 'a kubectl command for the reflected Services is printed');
  const services = await waitFor('the demo Service and its slice reflected to the remote namespace', async () => {
    const out = await sh('sh', ['-c', (reflected ?? 'false').replace(/\s+\(.*\)$/, '')]);
    return /service\/hello\s/.test(out.stdout) && /endpointslice\.discovery\.k8s\.io\/hello-\S+\s+IPv4\s+\S+\s+\d/.test(out.stdout) ? out.stdout : undefined;
  }, { timeoutMs: 60_000, intervalMs: 1_000 });
  t.match(services, /service\/hello/);

  const jobs = up.stdout.split('\n').map((l) => l.trim()).find((l) => l.includes('get jobs,cronjobs -n demo'));
  t.ok(jobs, 'a kubectl command for the demo Job and CronJob is printed');
  const listed = await waitFor('the demo Job completes: the simulated node ran its command through both Tethers', async () => {
    const out = await sh('sh', ['-c', (jobs ?? 'false').replace(/\s+\(.*\)$/, '')]);
    return /job\.batch\/countdown\s+Complete\s+1\/1/.test(out.stdout) ? out.stdout : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1_000 });
  t.match(listed, /cronjob\.batch\/tick\s+\* \* \* \* \*/, 'the CronJob is listed with its schedule');

  if (state.netns && state.netns.length > 0) {
    const logs = up.stdout.split('\n').map((l) => l.trim()).find((l) => / logs -n demo job\/countdown /.test(l));
    t.ok(logs, 'a ready-to-paste kubectl logs job/... command is printed');
    const printed = await sh('sh', ['-c', (logs ?? 'false').replace(/\s+\(.*\)$/, '')]);
    t.equal(printed.stdout, '3\n2\n1\ndone\n', "the Job's log is what its command printed, through the host API server and both Tethers");

    const exec = up.stdout.split('\n').map((l) => l.trim()).find((l) => / exec -n demo deploy\/hello -- cat /.test(l));
    t.ok(exec, 'a ready-to-paste kubectl exec command is printed');
    const shown = await sh('sh', ['-c', exec ?? 'false']);
    t.equal(shown.stdout, 'Hello from the host cluster\n', 'exec goes host API server → host Tether → remote API server → remote Tether → simulated provider');

    const portForward = up.stdout.split('\n').map((l) => l.trim()).find((l) => / port-forward -n demo deploy\/hello /.test(l));
    t.ok(portForward, 'a ready-to-paste kubectl port-forward command is printed');
    // The printed command's fixed local port may be taken here: ':80' lets kubectl pick one.
    const [assignment = '', binary = 'false', ...args] = (portForward ?? '').replace(/ \d+:(\d+)\s.*$/, ' :$1').split(/\s+/);
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: assignment.replace(/^KUBECONFIG=/, '') } });
    t.teardown(() => void child.kill('SIGTERM'));
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const local = await waitFor('kubectl port-forward listens', () => {
      if (child.exitCode !== null) throw new Error(`kubectl port-forward exited ${child.exitCode}: ${err}`);
      return /Forwarding from 127\.0\.0\.1:(\d+) -> 80/.exec(out)?.[1];
    }, { timeoutMs: 30_000, intervalMs: 100 });
    const answer = await fetch(`http://127.0.0.1:${local}/through-the-sandbox`);
    t.equal(answer.status, 200);
    t.match(await answer.text(), /^Hello from pod demo-sandbox\/hello-\S+, container web, port 80 \(Tether simulated provider\): GET \/through-the-sandbox\n$/,
      'port-forward goes host API server → host Tether → remote API server → remote Tether → simulated provider');
    child.kill('SIGTERM');
  }

  if (state.metricsServer) {
    // The virtual node's usage comes from the Kubernetes provider: the remote worker's /stats/summary through the remote API server.
    const printed = (suffix: string): string | undefined => up.stdout.split('\n').map((l) => l.trim()).find((l) => l.endsWith(suffix));
    const topPod = printed('top pod -n demo');
    const topNode = printed('top node');
    t.ok(topPod && topNode, 'ready-to-paste kubectl top commands are printed');
    const pods = await waitFor('kubectl top pod shows the three demo pods', async () => {
      const out = await sh('sh', ['-c', topPod ?? 'false']).then((r) => r.stdout, () => '');
      const rows = out.trim().split('\n').slice(1).filter((l) => /^hello-\S+\s+\d+m\s+\d+Mi/.test(l));
      return rows.length === 3 ? rows : undefined;
    }, { timeoutMs: 120_000, intervalMs: 2_000 });
    t.ok(pods.every((row) => /^hello-\S+\s+(9|10|11)m\s+32Mi/.test(row)), `the simulated provider's usage (10m, 32Mi without requests), in host pod names:\n${pods.join('\n')}`);
    const nodes = await waitFor('kubectl top node shows the virtual node', async () => {
      const out = await sh('sh', ['-c', topNode ?? 'false']).then((r) => r.stdout, () => '');
      return /^tether-remote\s+\d+m/m.test(out) ? out : undefined;
    }, { timeoutMs: 60_000, intervalMs: 2_000 });
    t.match(nodes, /^tether-remote\s+(29|30|31)m\s+\S+\s+96Mi/m, 'the sum of its three pods');
  } else {
    t.comment(`kubectl top not checked: ${state.metricsServerUnavailable ?? 'no metrics-server'}`);
  }

  const pids = recordedPids(state);
  const down = await runCli(['sandbox', '--down', '--state-dir', stateDir]);
  t.equal(down.code, 0, down.stderr);
  t.match(down.stdout, 'sandbox stopped');
  await waitFor('every recorded process is gone', () => pids.every((p) => !alive(p)), { timeoutMs: 20_000, intervalMs: 200 });
  t.notOk(existsSync(stateDir), 'the state dir is removed');
  if (state.netns && state.netns.length > 0) {
    const { stdout: namespaces } = await sh('ip', ['netns', 'list']);
    for (const ns of state.netns) t.notMatch(namespaces, ns, `netns ${ns} removed`);
  }
});
