/**
 * Crash recovery (issue 5), through the CLI and the Kubernetes provider: `tether run` is killed
 * with SIGKILL while 200 pods are being created and 100 of them deleted; a new `tether run` with
 * the same config converges: no host pod stuck Terminating, every remaining host pod has exactly
 * one remote pod (none lost, none duplicated), and no remote pod is left for a deleted host pod.
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

t.test('kill -9 during 200 creations and 100 deletions: a restarted Tether converges', async (t) => {
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

  const first = start();
  await nodeReady(first);
  const manifests = Array.from({ length: 200 }, (_, i) => JSON.parse(podManifest(`p${i}`, ns, nodeName, { terminationGracePeriodSeconds: 2 })) as KubeObject);
  for (const [i, m] of manifests.entries()) m.metadata.labels = { batch: i < 100 ? 'a' : 'b' };
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }), timeoutMs: 120_000 });
  await waitFor('creation under way at the remote (≥ 40 pods)', async () => (await remotePods()).length >= 40, { timeoutMs: 120_000, intervalMs: 300 });
  await host.kubectl(['delete', 'pods', '-n', ns, '-l', 'batch=a', '--wait=false']);
  await waitFor('deletion under way (some batch-a host pods gone)', async () => (await hostPods()).filter((p) => p.metadata.labels?.batch === 'a').length < 100, { timeoutMs: 60_000, intervalMs: 200 });
  first.child.kill('SIGKILL');
  const killed = await first.done;
  t.equal(killed.signal, 'SIGKILL', 'the first Tether died of SIGKILL mid-flight');
  const midway = await remotePods();
  t.comment(`at the crash: ${midway.length} remote pods, ${(await hostPods()).length} host pods`);

  const second = start();
  await nodeReady(second);
  const converged = await waitFor('converged: 100 host pods, none terminating; 100 remote pods, one per host pod', async () => {
    const [h, r] = await Promise.all([hostPods(), remotePods()]);
    if (h.length !== 100 || h.some((p) => p.metadata.deletionTimestamp)) return undefined;
    if (r.length !== 100) return undefined;
    return { h, r };
  }, { timeoutMs: 240_000, intervalMs: 1_000 });
  t.ok(converged.h.every((p) => p.metadata.labels?.batch === 'b'), 'only batch b is left in the host');
  const hostUids = new Set(converged.h.map((p) => p.metadata.uid));
  const remoteUids = converged.r.map((p) => p.metadata.annotations?.[hostUidAnnotation]);
  t.equal(new Set(remoteUids).size, 100, 'no remote pod is duplicated');
  t.ok(remoteUids.every((u) => u !== undefined && hostUids.has(u)), 'every remote pod belongs to a live host pod (none lost, none orphaned)');
  t.ok(converged.h.every((p) => p.spec?.nodeName === nodeName), 'all on the virtual node');

  second.child.kill('SIGTERM');
  const stopped = await second.done;
  t.equal(stopped.code, 0, 'the restarted Tether shuts down cleanly');
});
