/**
 * Crash recovery (issues 5 and 13), through the CLI and the Kubernetes provider: `tether run` is
 * killed with SIGKILL three times in a row, each time at a random point of a storm (200 pods
 * created, then 100 of them deleted while 50 more are created, then a Deployment scaled up and
 * down); a new `tether run` with the same config converges: no host pod stuck Terminating, every
 * remaining host pod has exactly one remote pod (none lost, none duplicated), and no remote pod is
 * left for a deleted host pod. The kill points are drawn from a logged seed (TETHER_CRASH_SEED
 * replays one).
 * The remote cluster keeps the pods across the crash, which a simulated provider could not.
 * The shared remote cluster has no schedulable node for them, so remote pods stay Pending: what is
 * checked is the bookkeeping between the clusters, not the pods' running.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { hostUidAnnotation } from '../../src/providers/kubernetes/marks.js';
import { startCli, type CliProcess } from '../cli/cli.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

interface List {
  items: KubeObject[];
}

/** A small seeded generator (mulberry32), so a failing run's kill points can be replayed. */
function seeded(seed: number): (lo: number, hi: number) => number {
  let a = seed >>> 0;
  return (lo, hi) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return lo + Math.floor((((x ^ (x >>> 14)) >>> 0) / 4294967296) * (hi - lo + 1));
  };
}

t.test('kill -9 three times at random points of a create/scale/delete storm: a restarted Tether converges', async (t) => {
  const seed = Number(process.env['TETHER_CRASH_SEED'] ?? randomBytes(4).readUInt32BE(0));
  t.comment(`kill points from seed ${seed} (TETHER_CRASH_SEED=${seed} replays them)`);
  const pick = seeded(seed);
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const nodeName = uniqueNamespace('crash');
  const clusterId = `c${randomBytes(3).toString('hex')}`;
  const ns = await testNamespace(t, host, 'crash');
  const remoteNs = `${ns}-${clusterId}`;
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).catch(() => undefined));
  const dir = mkdtempSync(join(tmpdir(), 'tether-crash-'));
  const config = join(dir, 'tether.yaml');
  writeFileSync(config, [
    'logLevel: warn',
    `host: { kubeconfig: ${host.kubeconfigPath} }`,
    'shutdown: { timeoutMs: 8000, deleteNodeOnShutdown: true }',
    'nodes:',
    `  - name: ${nodeName}`,
    '    internalIP: 127.0.0.1',
    '    ping: { intervalMs: 1000, timeoutMs: 800, failureThreshold: 3, successThreshold: 1 }',
    '    statusIntervalMs: 5000',
    '    pod: { retry: { minMs: 300, maxMs: 3000 } }',
    '    sweepIntervalMs: 5000',
    '    provider:',
    '      type: kubernetes',
    `      remote: { kubeconfig: ${remote.kubeconfigPath} }`,
    `      hostClusterId: ${clusterId}`,
    '      quota: { cpu: "100", memory: 400Gi, pods: "1000" }',
    '',
  ].join('\n'));
  const start = (): CliProcess => {
    const cli = startCli(['run', '--config', config]);
    t.teardown(() => {
      cli.child.kill('SIGKILL');
    });
    return cli;
  };
  const nodeReady = async (cli: CliProcess): Promise<void> => {
    await waitFor('the virtual node is Ready', async () => {
      if (cli.child.exitCode !== null) throw new Error(`tether run exited:\n${cli.output().stderr}`);
      return condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True';
    }, { timeoutMs: 90_000 });
  };
  const hostPods = async (): Promise<KubeObject[]> => (await getJson<List>(host, ['pods', '-n', ns]))?.items ?? [];
  const remotePods = async (): Promise<KubeObject[]> => (await getJson<List>(remote, ['pods', '-n', remoteNs]))?.items ?? [];

  const kill = async (cli: CliProcess, when: string): Promise<void> => {
    cli.child.kill('SIGKILL');
    const killed = await cli.done;
    t.equal(killed.signal, 'SIGKILL', `Tether died of SIGKILL ${when}`);
    t.comment(`killed ${when}: ${(await remotePods()).length} remote pods, ${(await hostPods()).length} host pods`);
  };
  const deploymentPods = (pods: KubeObject[]): KubeObject[] => pods.filter((p) => p.metadata.labels?.['app'] === 'storm');

  // Round 1: 200 creations; killed once a random share of them has reached the remote.
  const first = start();
  await nodeReady(first);
  const manifests = Array.from({ length: 250 }, (_, i) => JSON.parse(podManifest(`p${i}`, ns, nodeName, { terminationGracePeriodSeconds: 2 })) as KubeObject);
  for (const [i, m] of manifests.entries()) m.metadata.labels = { batch: i < 100 ? 'a' : i < 200 ? 'b' : 'c' };
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests.slice(0, 200) }), timeoutMs: 120_000 });
  const createdAtKill = pick(20, 120);
  await waitFor(`creation under way at the remote (≥ ${createdAtKill} pods)`, async () => (await remotePods()).length >= createdAtKill, { timeoutMs: 120_000, intervalMs: 300 });
  await kill(first, `with ${createdAtKill}+ of 200 creations done`);

  // Round 2: batch a deleted while batch c is created; killed at a random point of the deletion.
  const second = start();
  await nodeReady(second);
  await host.kubectl(['delete', 'pods', '-n', ns, '-l', 'batch=a', '--wait=false']);
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests.slice(200) }), timeoutMs: 120_000 });
  const leftAtKill = pick(10, 90);
  await waitFor(`deletion under way (fewer than ${leftAtKill} batch-a host pods)`, async () => (await hostPods()).filter((p) => p.metadata.labels?.batch === 'a').length < leftAtKill, { timeoutMs: 120_000, intervalMs: 200 });
  await kill(second, `with fewer than ${leftAtKill} of 100 deletions left`);

  // Round 3: a Deployment scaled to 30, killed part-way, then scaled down to 10 while Tether is down.
  const third = start();
  await nodeReady(third);
  const template = JSON.parse(podManifest('storm', ns, nodeName, { terminationGracePeriodSeconds: 2 })) as { spec: Record<string, unknown> };
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'storm', namespace: ns }, spec: { replicas: 30, selector: { matchLabels: { app: 'storm' } }, template: { metadata: { labels: { app: 'storm' } }, spec: template.spec } } };
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(deployment) });
  const scaledAtKill = pick(3, 25);
  await waitFor(`scale-up under way (≥ ${scaledAtKill} remote Deployment pods)`, async () => deploymentPods(await remotePods()).length >= scaledAtKill, { timeoutMs: 120_000, intervalMs: 300 });
  await kill(third, `with ${scaledAtKill}+ of 30 replicas offloaded`);
  await host.kubectl(['scale', 'deployment', 'storm', '-n', ns, '--replicas=10']);

  const last = start();
  await nodeReady(last);
  const expected = 100 + 50 + 10;
  const converged = await waitFor(`converged: ${expected} host pods, none terminating; one remote pod per host pod`, async () => {
    const [h, r] = await Promise.all([hostPods(), remotePods()]);
    if (h.length !== expected || h.some((p) => p.metadata.deletionTimestamp)) return undefined;
    if (r.length !== expected) return undefined;
    return { h, r };
  }, { timeoutMs: 300_000, intervalMs: 1_000 });
  t.ok(converged.h.every((p) => p.metadata.labels?.batch !== 'a'), 'batch a is gone from the host');
  t.equal(deploymentPods(converged.h).length, 10, 'the Deployment is at its final scale');
  const hostUids = new Set(converged.h.map((p) => p.metadata.uid));
  const remoteUids = converged.r.map((p) => p.metadata.annotations?.[hostUidAnnotation]);
  t.equal(new Set(remoteUids).size, expected, 'no remote pod is duplicated');
  t.ok(remoteUids.every((u) => u !== undefined && hostUids.has(u)), 'every remote pod belongs to a live host pod (none lost, none orphaned)');
  t.ok(converged.h.every((p) => p.spec?.nodeName === nodeName), 'all on the virtual node');

  last.child.kill('SIGTERM');
  const stopped = await last.done;
  t.equal(stopped.code, 0, 'the restarted Tether shuts down cleanly');
});
