/**
 * Runtime classes through offloading, on the two real clusters: a pod whose RuntimeClass the
 * virtual node does not map is refused with that reason (annotation and Events), a mapped one
 * arrives at the remote with the remote class; neither runs under another runtime silently.
 */
import t from 'tap';
import { createErrorAnnotation } from '../../src/actors/pod/annotations.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { bothReady, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import type { TeardownHost } from '../harness/sharedClusters.js';

const WORKER_TAINT = 'tether.test/offloaded-scheduling-worker';

interface List<T> {
  items: T[];
}

async function runtimeClass(t: TeardownHost, cluster: ClusterAccess, name: string): Promise<void> {
  await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: 'runc' }) });
  t.teardown(() => cluster.kubectl(['delete', 'runtimeclass', name, '--ignore-not-found', '--wait=false']).then(() => undefined, () => undefined));
}

t.test('runtime classes through offloading: unmapped refused with its reason, mapped arrives with the remote class', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const suffix = uniqueNamespace('rc');
  const [gvisor, kata, remoteGvisor] = [`gvisor-${suffix}`, `kata-${suffix}`, `gvisor-remote-${suffix}`];
  await runtimeClass(t, host, gvisor);
  await runtimeClass(t, host, kata);
  await runtimeClass(t, remote, remoteGvisor);
  const worker = startRemoteWorker(t, remote, {
    name: uniqueNamespace('sched-worker'), podCIDR: '10.93.0.0/16',
    taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }], deleteNodeOnStop: true,
  });
  const node = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('vk-sched'), hostClusterId: 'host1', forwardRemoteEvents: true,
    provider: { runtimeClassMap: { [gvisor]: remoteGvisor }, offloadingPatch: { tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }] } },
  });
  await bothReady(host, node, remote, worker);
  const ns = await testNamespace(t, host, 'sched');
  const remoteNs = `${ns}-host1`;
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));

  await host.kubectl(['apply', '-f', '-'], { input: podManifest('unmapped', ns, node.name, { runtimeClassName: kata }) });
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('mapped', ns, node.name, { runtimeClassName: gvisor }) });

  const refused = await waitFor('the unmapped pod refused with its reason', async () => {
    const pod = await getJson<KubeObject>(host, ['pod', 'unmapped', '-n', ns]);
    const why = pod?.metadata?.annotations?.[createErrorAnnotation];
    return why?.includes('runtimeClassMap') ? why : undefined;
  }, { timeoutMs: 60_000 });
  t.match(refused, new RegExp(`runtimeClassName ${kata} is not in the runtimeClassMap`));
  await waitFor('a RuntimeClassNotMapped Event on the host pod', async () =>
    ((await getJson<List<{ reason?: string; regarding?: { name?: string } }>>(host, ['events.events.k8s.io', '-n', ns]))?.items ?? [])
      .some((e) => e.regarding?.name === 'unmapped' && e.reason === 'RuntimeClassNotMapped'), { timeoutMs: 60_000 });
  t.equal(await getJson(remote, ['pod', 'unmapped', '-n', remoteNs]), undefined, 'never sent');

  const twin = await waitFor('the mapped pod at the remote', () => getJson<KubeObject & { spec?: { runtimeClassName?: string } }>(remote, ['pod', 'mapped', '-n', remoteNs]), { timeoutMs: 60_000 });
  t.equal(twin.spec?.runtimeClassName, remoteGvisor, 'with the remote class');
});
