/**
 * High availability through offloading (issue 26): two replicas (two agents in this process, each
 * wired as `tether run` wires one under leader election: its own host client and Kubernetes
 * provider, both built fenced) share one virtual node. While the leader offloads a pod (with a
 * ConfigMap and a Service reflected), the standby makes no remote write and no host write, and
 * runs no informer (no remote list), even when a kubelet session reaches it (the pod read, its
 * logs asked for). After a hand-over (the leader stops and releases the lock) the new leader
 * writes: it offloads a pod created then.
 *
 * Writes are counted where they leave each replica: every request a ClusterClient sends is
 * recorded by verb (a fenced write is never sent, so it is never counted).
 */
import t from 'tap';
import { ClusterClient } from '../../src/adapters/kubernetes/clusterClient.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { KubernetesProvider } from '../../src/providers/kubernetes/index.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { nodeIsReady, startRemoteWorker } from '../support/offloadingTopology.js';

const WORKER_TAINT = 'tether.test/standby-worker';
const WRITE_VERBS = ['create', 'update', 'patch', 'delete'];

interface LockLease {
  spec?: { holderIdentity?: string; renewTime?: string };
}

const writesIn = (counts: ReadonlyMap<string, number>): string[] =>
  [...counts].filter(([key]) => WRITE_VERBS.includes(key.split(' ')[0] ?? '')).map(([key, n]) => `${key} ×${n}`);
const listsIn = (counts: ReadonlyMap<string, number>): number => [...counts].filter(([key]) => key.startsWith('list ')).reduce((a, [, n]) => a + n, 0);

t.test('a standby replica of a Kubernetes-provider node makes no write; after the hand-over the new leader does', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const worker = startRemoteWorker(t, remote, {
    name: uniqueNamespace('standby-worker'), podCIDR: '10.93.0.0/16',
    taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }], deleteNodeOnStop: true,
  });
  const ns = await testNamespace(t, host, 'standby');
  const remoteNs = `${ns}-host1`;
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
  const nodeName = uniqueNamespace('vk-standby');
  t.teardown(() => host.kubectl(['delete', 'node', nodeName, '--ignore-not-found', '--wait=false']).catch(() => undefined));

  const startReplica = (identity: string): { agent: TetherAgent; provider: KubernetesProvider; hostClient: ClusterClient } => {
    const hostClient = new ClusterClient({ kind: 'file', path: host.kubeconfigPath }, { fenced: `${identity} does not hold the lock of node ${nodeName}` });
    const provider = new KubernetesProvider({
      nodeName, hostClusterId: 'host1', fenced: true,
      remote: { kind: 'file', path: remote.kubeconfigPath }, host: hostClient,
      countVirtualNodes: true, reflection: { minAgeMs: 0, sweepDelayMs: 200 },
      offloadingPatch: { tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }] },
    });
    const agent = TetherAgent.start({
      host: { kind: 'file', path: host.kubeconfigPath },
      logger: silentLogger,
      nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider, hostClient, statusIntervalMs: 5_000, pod: { retry: { minMs: 300, maxMs: 2_000, factor: 2, jitter: 0.2 } } }],
      leaderElection: { namespace: ns, identity, leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 },
    });
    t.teardown(async () => {
      await agent.stop({ deadlineMs: 5_000 });
      await provider.stop();
      await hostClient.stop();
    });
    return { agent, provider, hostClient };
  };
  const lock = (): Promise<LockLease | undefined> => getJson<LockLease>(host, ['lease', `tether-node-${nodeName}`, '-n', ns]);
  const hostPod = (name: string): Promise<KubeObject | undefined> => getJson<KubeObject>(host, ['pod', '-n', ns, name]);

  // The leader first, so which replica leads is known; the standby beside it once it holds the lock.
  const leader = startReplica('replica-a');
  await waitFor('replica-a holds the node lock', async () => (await lock())?.spec?.holderIdentity === 'replica-a', { timeoutMs: 60_000 });
  const standby = startReplica('replica-b');
  await waitFor('the virtual node and the worker Ready', async () => (await nodeIsReady(host, nodeName)) && (await nodeIsReady(remote, worker.name)), { timeoutMs: 90_000 });

  await host.kubectl(['create', 'configmap', 'web-config', '-n', ns, '--from-literal=greeting=hi']);
  await host.kubectl(['create', 'service', 'clusterip', 'web', '-n', ns, '--tcp=80:80']);
  await host.kubectl(['apply', '-f', '-'], {
    input: podManifest('web', ns, nodeName, { volumes: [{ name: 'conf', configMap: { name: 'web-config' } }], containers: [{ name: 'app', image: 'nginx:1.27', volumeMounts: [{ name: 'conf', mountPath: '/conf' }] }] }),
  });
  await waitFor('the pod Running, offloaded by the leader', async () => (await hostPod('web'))?.status?.phase === 'Running', { timeoutMs: 90_000 });
  await waitFor('the Service and the ConfigMap reflected into the remote namespace', async () =>
    (await getJson<KubeObject>(remote, ['service', 'web', '-n', remoteNs])) !== undefined && (await getJson<KubeObject>(remote, ['configmap', 'web-config', '-n', remoteNs])) !== undefined, { timeoutMs: 60_000 });

  // A kubelet session reaching the standby: what the kubelet API does for logs and exec (the pod
  // read first). This fixture's worker serves no kubelet API, so the logs themselves may fail.
  const seen = await standby.provider.getPod(ns, 'web');
  t.equal(seen?.metadata?.name, 'web', 'the standby answers a kubelet session by reading the remote pod');
  await standby.provider.getContainerLogs(ns, 'web', 'app', {}).then(async (lines) => {
    for await (const _ of lines) break;
  }, () => undefined);
  // Give the standby the time to do whatever it would: several of the leader's renewals.
  const renewals = new Set<string>();
  await waitFor('three more renewals of the leader', async () => {
    const renew = (await lock())?.spec?.renewTime;
    if (renew) renewals.add(renew);
    return renewals.size >= 4;
  }, { timeoutMs: 30_000, intervalMs: 500 });

  t.same(writesIn(standby.provider.remoteRequestCounts()), [], 'the standby sent no write to the remote cluster');
  t.same(writesIn(standby.hostClient.apiRequestCounts()), [], 'nor to the host cluster');
  t.equal(listsIn(standby.provider.remoteRequestCounts()), 0, 'and it listed nothing remotely: it runs no informer, sweep or reflection pass');
  t.notOk(standby.provider.driving, 'the standby does not drive the node');
  t.not(writesIn(leader.provider.remoteRequestCounts()).length, 0, 'the leader wrote to the remote meanwhile');

  // The hand-over: the leader stops and releases the lock; the standby takes it and drives.
  await leader.agent.stop({ deadlineMs: 5_000 });
  await leader.provider.stop();
  await waitFor('replica-b holds the node lock', async () => (await lock())?.spec?.holderIdentity === 'replica-b', { timeoutMs: 30_000 });
  t.ok(standby.provider.driving, 'the new leader drives the node');
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('after', ns, nodeName) });
  await waitFor('a pod created after the hand-over Running, offloaded by the new leader', async () => (await hostPod('after'))?.status?.phase === 'Running', { timeoutMs: 90_000 });
  t.match(writesIn(standby.provider.remoteRequestCounts()).join(', '), /create/, 'the new leader wrote to the remote');
  t.equal((await hostPod('web'))?.status?.phase, 'Running', 'the first pod, rebuilt from the clusters, still Running');
});
