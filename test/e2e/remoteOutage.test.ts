/**
 * The fault matrix's NotReady and deletion cases (issue 13), on a dedicated remote cluster whose
 * API server the test stops and starts. The remote's only worker is an in-process Tether with the
 * simulated provider, so remote pods really run; the host's Tether is `tether run` (the CLI), so
 * it can be killed with SIGKILL. What must hold in every case: no Ready=True pod on a NotReady
 * node; every host pod either Running with the remote's current status or gone; no remote pod
 * without its host pod, none duplicated; a deleted pod leaves the host only once the remote has
 * let it go.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { hostUidAnnotation } from '../../src/providers/kubernetes/marks.js';
import { startCli, type CliProcess } from '../cli/cli.js';
import { reportLogsOnFailure, startDedicatedCluster, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { startRemoteWorker } from '../support/offloadingTopology.js';

interface List<T> {
  items: T[];
}
interface EventObject {
  reason?: string;
  regarding?: { name?: string; uid?: string };
}

/** Pings every second; NotReady after 20 failures in a row: the "NotReady bound" of these cases. */
const FAILURE_THRESHOLD = 20;

t.test('remote outages, a Tether killed during one, and a StatefulSet pod deleted during one', async (t) => {
  const { host } = await useSharedClusters(t);
  // The outages below stop this cluster's API server: it must be ours alone.
  const remote = await startDedicatedCluster(t, { name: 'outage-remote' });
  reportLogsOnFailure(t, [host]);

  const clusterId = 'outage';
  startRemoteWorker(t, remote, { name: uniqueNamespace('outage-worker'), podCIDR: '10.77.0.0/16', stopLatencyMs: 200 });

  const nodeName = uniqueNamespace('outage');
  const ns = await testNamespace(t, host, 'outage');
  const remoteNs = `${ns}-${clusterId}`;
  const dir = mkdtempSync(join(tmpdir(), 'tether-outage-'));
  const config = join(dir, 'tether.yaml');
  writeFileSync(config, [
    'logLevel: warn',
    `host: { kubeconfig: ${host.kubeconfigPath} }`,
    'shutdown: { timeoutMs: 8000, deleteNodeOnShutdown: true }',
    'nodes:',
    `  - name: ${nodeName}`,
    '    internalIP: 127.0.0.1',
    `    ping: { intervalMs: 1000, timeoutMs: 1000, failureThreshold: ${FAILURE_THRESHOLD}, successThreshold: 2 }`,
    '    statusIntervalMs: 2000',
    '    pod: { retry: { minMs: 300, maxMs: 3000 }, graceMarginMs: 2000 }',
    '    provider:',
    '      type: kubernetes',
    `      remote: { kubeconfig: ${remote.kubeconfigPath} }`,
    `      hostClusterId: ${clusterId}`,
    '      countVirtualNodes: true',
    '      pingTimeoutMs: 1000',
    '      reflection: { minAgeMs: 0, sweepDelayMs: 200 }',
    '',
  ].join('\n'));
  let tether: CliProcess | undefined;
  const startTether = (): CliProcess => {
    const cli = startCli(['run', '--config', config]);
    t.teardown(() => {
      cli.child.kill('SIGKILL');
    });
    tether = cli;
    return cli;
  };
  let remoteUp = true;
  t.teardown(async () => {
    if (!remoteUp) await remote.startApiServer();
    if (!t.passing() && tether) console.error('host tether stderr:', tether.output().stderr.slice(-4000));
    tether?.child.kill('SIGTERM');
    await tether?.done;
  });
  const stopRemote = async (): Promise<void> => {
    remoteUp = false;
    await remote.stopApiServer();
  };
  const startRemote = async (): Promise<void> => {
    await remote.startApiServer();
    remoteUp = true;
  };

  const virtualNode = async (): Promise<KubeObject | undefined> => getJson<KubeObject>(host, ['node', nodeName]);
  const hostPods = async (): Promise<KubeObject[]> => (await getJson<List<KubeObject>>(host, ['pods', '-n', ns]))?.items ?? [];
  const remotePods = async (): Promise<KubeObject[]> => (await getJson<List<KubeObject>>(remote, ['pods', '-n', remoteNs]))?.items ?? [];
  const nodeReady = async (): Promise<string | undefined> => condition(await virtualNode(), 'Ready')?.status;
  /** Every pod Running and Ready, each with exactly one remote pod, and no remote pod without its host pod. */
  const converged = async (count: number): Promise<KubeObject[] | undefined> => {
    const [h, r] = await Promise.all([hostPods(), remotePods()]);
    if (h.length !== count || !h.every((p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True')) return undefined;
    const remoteUids = r.map((p) => p.metadata.annotations?.[hostUidAnnotation]);
    const hostUids = new Set(h.map((p) => p.metadata.uid));
    if (remoteUids.length !== count || new Set(remoteUids).size !== count || !remoteUids.every((u) => u !== undefined && hostUids.has(u))) return undefined;
    return h;
  };
  /** `check` holds for each of exactly `count` pods: an empty or short list (a failed read) never passes. */
  const eachOf = (pods: KubeObject[], count: number, check: (p: KubeObject) => boolean): boolean => pods.length === count && pods.every(check);
  /** The invariant that matters to Services: no Ready=True pod while the node is NotReady. */
  const noReadyPodOnNotReadyNode = async (): Promise<boolean> => {
    if ((await nodeReady()) === 'True') return true;
    return eachOf(await hostPods(), 4, (p) => condition(p, 'Ready')?.status !== 'True');
  };

  startTether();
  await waitFor('the virtual node Ready', async () => (await nodeReady()) === 'True', { timeoutMs: 120_000 });
  const template = JSON.parse(podManifest('x', ns, nodeName, { terminationGracePeriodSeconds: 30 })) as { spec: Record<string, unknown> };
  const objects = [
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns }, spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: template.spec } } },
    { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: ns }, spec: { replicas: 1, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: template.spec } } },
  ];
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) });
  await waitFor('4 pods Running and Ready, one remote pod each', () => converged(4), { timeoutMs: 180_000, intervalMs: 1_000 });

  await t.test('a remote outage shorter than the NotReady bound: no flap', async (t) => {
    const before = condition(await virtualNode(), 'Ready');
    const podsBefore = new Map((await hostPods()).map((p) => [p.metadata.uid, condition(p, 'Ready')?.lastTransitionTime]));
    await stopRemote();
    await startRemote();
    const back = Date.now();
    // A heartbeat written after the remote returned shows that Tether has pinged it again.
    await waitFor('a node heartbeat after the remote returned', async () => Date.parse(condition(await virtualNode(), 'Ready')?.lastHeartbeatTime ?? '') > back + 2_000, { timeoutMs: 60_000 });
    const after = condition(await virtualNode(), 'Ready');
    t.equal(after?.status, 'True');
    t.equal(after?.lastTransitionTime, before?.lastTransitionTime, 'the node never left Ready');
    const pods = await hostPods();
    t.equal(pods.length, 4, 'the four pods');
    t.ok(pods.every((p) => condition(p, 'Ready')?.status === 'True' && condition(p, 'Ready')?.lastTransitionTime === podsBefore.get(p.metadata.uid)), 'no pod left Ready');
    await waitFor('still converged', () => converged(4), { timeoutMs: 60_000 });
  });

  await t.test('a remote outage longer than the bound: NotReady and every pod Ready=False; Ready again afterwards', async (t) => {
    await stopRemote();
    await waitFor('the virtual node NotReady', async () => (await nodeReady()) === 'False', { timeoutMs: 120_000 });
    await waitFor('every pod Ready=False (VirtualNodeNotReady)', async () => eachOf(await hostPods(), 4, (p) => condition(p, 'Ready')?.reason === 'VirtualNodeNotReady' && condition(p, 'Ready')?.status === 'False'), { timeoutMs: 60_000 });
    t.ok(await noReadyPodOnNotReadyNode());
    await startRemote();
    await waitFor('the virtual node Ready again', async () => (await nodeReady()) === 'True', { timeoutMs: 120_000 });
    const pods = await waitFor('every pod Running and Ready with its one remote pod', () => converged(4), { timeoutMs: 180_000, intervalMs: 1_000 });
    t.equal(pods.length, 4);
  });

  await t.test('Tether killed and restarted during an outage: pods marked NotReady after the restart, restored after', async (t) => {
    await stopRemote();
    // Killed before it could notice (the bound is FAILURE_THRESHOLD pings): nothing is marked yet.
    tether?.child.kill('SIGKILL');
    t.equal((await tether?.done)?.signal, 'SIGKILL');
    t.ok(eachOf(await hostPods(), 4, (p) => condition(p, 'Ready')?.status === 'True'), 'the four pods still show Ready when Tether dies');
    startTether();
    await waitFor('the virtual node NotReady after the restart', async () => (await nodeReady()) === 'False', { timeoutMs: 120_000 });
    await waitFor('every pod marked Ready=False by the restarted Tether', async () => eachOf(await hostPods(), 4, (p) => condition(p, 'Ready')?.reason === 'VirtualNodeNotReady' && condition(p, 'Ready')?.status === 'False'), { timeoutMs: 60_000 });
    t.ok(await noReadyPodOnNotReadyNode());
    await startRemote();
    await waitFor('the virtual node Ready again', async () => (await nodeReady()) === 'True', { timeoutMs: 120_000 });
    await waitFor('every pod Running and Ready with its one remote pod', () => converged(4), { timeoutMs: 180_000, intervalMs: 1_000 });
  });

  await t.test('a StatefulSet pod deleted during an outage stays Terminating until the remote has deleted it', async (t) => {
    const old = await getJson<KubeObject>(host, ['pod', 'db-0', '-n', ns]);
    const oldUid = old?.metadata.uid ?? '';
    t.ok(oldUid);
    await stopRemote();
    await host.kubectl(['delete', 'pod', 'db-0', '-n', ns, '--grace-period=3', '--wait=false']);
    // Past its grace period plus Tether's margin Tether escalates, and (before issue 13) forgot the pod.
    await waitFor('Tether escalated the deletion (GracePeriodExceeded)', async () => {
      const events = await getJson<List<EventObject>>(host, ['events.events.k8s.io', '-n', ns]);
      return events?.items.some((e) => e.reason === 'GracePeriodExceeded' && e.regarding?.uid === oldUid);
    }, { timeoutMs: 60_000 });
    await waitFor('the virtual node NotReady', async () => (await nodeReady()) === 'False', { timeoutMs: 120_000 });
    const held = await getJson<KubeObject>(host, ['pod', 'db-0', '-n', ns]);
    t.equal(held?.metadata.uid, oldUid, 'db-0 is still the old pod: no second db-0 could be created');
    t.ok(held?.metadata.deletionTimestamp, 'and it is Terminating');
    t.ok(await noReadyPodOnNotReadyNode());

    await startRemote();
    await waitFor('the old db-0 gone from the host', async () => (await getJson<KubeObject>(host, ['pod', 'db-0', '-n', ns]))?.metadata.uid !== oldUid, { timeoutMs: 180_000, intervalMs: 500 });
    t.notOk((await remotePods()).some((p) => p.metadata.annotations?.[hostUidAnnotation] === oldUid), 'by then the remote pod of the old db-0 was gone');
    const pods = await waitFor('a new db-0 and the rest Running and Ready, one remote pod each', () => converged(4), { timeoutMs: 180_000, intervalMs: 1_000 });
    t.not(pods.find((p) => p.metadata.name === 'db-0')?.metadata.uid, oldUid);
  });
});
