/**
 * Identity and trust (issue 12) on real clusters: a pod is its UID, and a remote object is
 * Tether's only if Tether made it, for this host cluster, where its mapping puts it.
 *
 * The shared host and remote clusters are used, isolated by namespace; the remote's worker is a
 * Tether with the simulated provider, tainted so that only the pods offloaded here (which tolerate
 * it through the offloading patch) land on it and other tests' remote pods stay unscheduled. A
 * second host cluster is started for the two-hosts case.
 */
import t, { type Test } from 'tap';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { hostClusterIdFromUid, KubernetesProvider } from '../../src/providers/kubernetes/index.js';
import type { NamespaceStrategy } from '../../src/providers/kubernetes/index.js';
import type { PodPolicy } from '../../src/providers/kubernetes/pods/podPolicy.js';
import { reportLogsOnFailure, startDedicatedCluster, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, type KubeObject } from '../support/kubectlJson.js';
import { nodeIsReady, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface List<T> { items: T[] }
interface EndpointSlice { endpoints?: Array<{ conditions?: { ready?: boolean } }> }

const WORKER_TAINT = 'tether.test/identity-worker';
const { host, remote } = await useSharedClusters(t);
reportLogsOnFailure(t, [host, remote]);

startRemoteWorker(t, remote, {
  name: uniqueNamespace('identity-worker'),
  podCIDR: '10.77.0.0/16',
  taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }],
  deleteNodeOnStop: true,
});

const clusterIdOf = async (cluster: ClusterAccess): Promise<string> =>
  hostClusterIdFromUid((await cluster.kubectl(['get', 'namespace', 'kube-system', '-o', 'jsonpath={.metadata.uid}'])).trim());

/** A host Tether whose one virtual node offloads to the shared remote cluster's worker. */
async function offloadingTether(t: Test, cluster: ClusterAccess, nodeName: string, namespaceStrategy: NamespaceStrategy, podPolicy: PodPolicy = {}): Promise<KubernetesProvider> {
  const { provider } = startOffloadingNode(t, cluster, remote, {
    name: nodeName,
    hostClusterId: await clusterIdOf(cluster),
    provider: { namespaceStrategy, podPolicy, offloadingPatch: { tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }] } },
    node: { sweepIntervalMs: 2_000, pod: { retry: { minMs: 300, maxMs: 2_000, factor: 2, jitter: 0.2 } } },
  });
  await waitFor(`virtual node ${nodeName} Ready`, () => nodeIsReady(cluster, nodeName), { timeoutMs: 90_000 });
  return provider;
}

const apply = (cluster: ClusterAccess, items: unknown[]): Promise<string> =>
  cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
const podsOf = async (cluster: ClusterAccess, ns: string, selector: string): Promise<KubeObject[]> =>
  (await getJson<List<KubeObject>>(cluster, ['pods', '-n', ns, '-l', selector]))?.items ?? [];
const readyEndpoints = async (cluster: ClusterAccess, ns: string, service: string): Promise<number> =>
  ((await getJson<List<EndpointSlice>>(cluster, ['endpointslices', '-n', ns, '-l', `kubernetes.io/service-name=${service}`]))?.items ?? [])
    .flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready === true).length;
const podSpec = (nodeName: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  nodeSelector: { 'kubernetes.io/hostname': nodeName },
  tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
  containers: [{ name: 'app', image: 'nginx:1.27' }],
  terminationGracePeriodSeconds: 2,
  ...extra,
});
const namespace = async (t: Test, cluster: ClusterAccess, name: string): Promise<void> => {
  await cluster.kubectl(['create', 'namespace', name]);
  t.teardown(() => cluster.kubectl(['delete', 'namespace', name, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
};

t.test('one host cluster offloading to the shared remote', async (t) => {
  const nodeName = uniqueNamespace('vk-identity');
  const provider = await offloadingTether(t, host, nodeName, 'suffix');
  const ns = uniqueNamespace('ident');
  await namespace(t, host, ns);
  const remoteNs = provider.remoteNamespaceOf(ns);
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));

  await t.test('a pod whose readiness gate is False stays out of ready endpoints while its remote twin is Ready', async (t) => {
    const gate = 'example.com/ready-to-serve';
    await apply(host, [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gated', namespace: ns, labels: { app: 'gated' } }, spec: podSpec(nodeName, { readinessGates: [{ conditionType: gate }] }) },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gated', namespace: ns }, spec: { selector: { app: 'gated' }, ports: [{ port: 80 }] } },
    ]);
    await waitFor('the host pod Running', async () => (await getJson<KubeObject>(host, ['pod', 'gated', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 90_000 });
    await host.kubectl(['patch', 'pod', 'gated', '-n', ns, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions: [{ type: gate, status: 'False' }] } })]);
    await waitFor('the remote twin Ready', async () => condition(await getJson<KubeObject>(remote, ['pod', 'gated', '-n', remoteNs]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
    await waitFor('the endpoint listed, not ready', async () => {
      const slices = (await getJson<List<EndpointSlice>>(host, ['endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=gated']))?.items ?? [];
      return slices.flatMap((s) => s.endpoints ?? []).length === 1;
    }, { timeoutMs: 60_000 });
    const pod = await getJson<KubeObject>(host, ['pod', 'gated', '-n', ns]);
    t.match(condition(pod, 'Ready'), { status: 'False', reason: 'ReadinessGatesNotReady' }, 'host Ready follows the gate');
    t.equal(condition(pod, 'ContainersReady')?.status, 'True', 'the containers are ready');
    t.equal(await readyEndpoints(host, ns, 'gated'), 0, 'no ready endpoint');
    await host.kubectl(['patch', 'pod', 'gated', '-n', ns, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions: [{ type: gate, status: 'True' }] } })]);
    await waitFor('ready once the gate opens', async () => (await readyEndpoints(host, ns, 'gated')) === 1, { timeoutMs: 60_000 });
  });

  await t.test('a reflected ConfigMap deleted in the remote cluster comes back', async (t) => {
    await apply(host, [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: ns }, data: { greeting: 'hello' } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'reader', namespace: ns, labels: { app: 'reader' } }, spec: podSpec(nodeName, { volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }] }) },
    ]);
    await waitFor('the host pod Running', async () => (await getJson<KubeObject>(host, ['pod', 'reader', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 90_000 });
    await remote.kubectl(['delete', 'configmap', 'cfg', '-n', remoteNs]);
    const back = await waitFor('the copy back', async () => getJson<{ data?: Record<string, string> }>(remote, ['configmap', 'cfg', '-n', remoteNs]), { timeoutMs: 60_000 });
    t.same(back.data, { greeting: 'hello' });
  });

  await t.test('a pod forged in another remote namespace with copied marks changes nothing; deleting it neither', async (t) => {
    await apply(host, [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'jewels', namespace: ns }, stringData: { TOKEN: 'crown' } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: ns, labels: { app: 'web' } }, spec: podSpec(nodeName) },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
    ]);
    await waitFor('web ready', async () => (await readyEndpoints(host, ns, 'web')) === 1, { timeoutMs: 90_000 });
    const before = await getJson<KubeObject>(host, ['pod', 'web', '-n', ns]);
    const real = await getJson<KubeObject>(remote, ['pod', 'web', '-n', remoteNs]);
    const intruder = uniqueNamespace('intruder');
    await namespace(t, remote, intruder);
    await apply(remote, [{
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'web', namespace: intruder, labels: real?.metadata?.labels, annotations: real?.metadata?.annotations },
      spec: { containers: [{ name: 'app', image: 'registry.invalid/x:1' }], volumes: [{ name: 's', secret: { secretName: 'jewels' } }] },
    }]);
    await remote.kubectl(['patch', 'pod', 'web', '-n', intruder, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Failed', podIP: '6.6.6.6' } })]);
    // A second pod offloaded after the forgery: once it runs, the forged pod's events have been seen.
    await apply(host, [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-forgery', namespace: ns, labels: { app: 'after' } }, spec: podSpec(nodeName) }]);
    await waitFor('the later pod Running', async () => (await getJson<KubeObject>(host, ['pod', 'after-forgery', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 90_000 });
    const during = await getJson<KubeObject>(host, ['pod', 'web', '-n', ns]);
    t.equal(during?.status?.phase, 'Running');
    t.equal(during?.status?.podIP, before?.status?.podIP, 'the IP is the real one');
    t.equal(await readyEndpoints(host, ns, 'web'), 1, 'still a ready endpoint');
    const secrets = (await getJson<List<KubeObject>>(remote, ['secrets', '-A', '--field-selector', 'metadata.name=jewels']))?.items ?? [];
    t.same(secrets.map((s) => s.metadata?.namespace), [], 'no Secret reflected for the forged pod');

    await remote.kubectl(['delete', 'pod', 'web', '-n', intruder, '--grace-period=0', '--force']);
    await apply(host, [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after-deletion', namespace: ns, labels: { app: 'after' } }, spec: podSpec(nodeName) }]);
    await waitFor('the next pod Running', async () => (await getJson<KubeObject>(host, ['pod', 'after-deletion', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 90_000 });
    const afterwards = await getJson<KubeObject>(host, ['pod', 'web', '-n', ns]);
    t.equal(afterwards?.status?.phase, 'Running', 'deleting the forged pod did not fail the real one');
    t.equal(condition(afterwards, 'Ready')?.status, 'True');
    t.equal(await readyEndpoints(host, ns, 'web'), 1);
  });

  await t.test('a StatefulSet pod force-deleted and re-created never shows its predecessor\'s phase or conditions', async (t) => {
    await apply(host, [{
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: ns },
      spec: { serviceName: 'db', replicas: 1, selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: podSpec(nodeName) } },
    }]);
    const first = await waitFor('db-0 Running', async () => {
      const pod = await getJson<KubeObject>(host, ['pod', 'db-0', '-n', ns]);
      return pod?.status?.phase === 'Running' ? pod : undefined;
    }, { timeoutMs: 90_000 });
    const oldUid = first.metadata?.uid;
    await host.kubectl(['delete', 'pod', 'db-0', '-n', ns, '--grace-period=0', '--force']);
    const seen: string[] = [];
    const second = await waitFor('db-0 re-created and Running', async () => {
      const pod = await getJson<KubeObject>(host, ['pod', 'db-0', '-n', ns]);
      if (!pod || pod.metadata?.uid === oldUid) return undefined;
      seen.push(`${pod.status?.phase}/${condition(pod, 'Ready')?.status ?? '-'}/${condition(pod, 'Ready')?.reason ?? ''}`);
      return pod.status?.phase === 'Running' && condition(pod, 'Ready')?.status === 'True' ? pod : undefined;
    }, { timeoutMs: 120_000, intervalMs: 100 });
    t.not(second.metadata?.uid, oldUid);
    t.notOk(seen.some((s) => /^(Failed|Succeeded)\//.test(s)), `never a terminal phase: ${seen.join(' ')}`);
    const firstRunning = seen.findIndex((s) => s.startsWith('Running/'));
    t.notOk(seen.slice(0, Math.max(0, firstRunning)).some((s) => s.includes('/True/')), 'never Ready before it runs');
  });
});

t.test('two host clusters offloading to one remote cluster with the same virtual node name run side by side', async (t) => {
  const hostB = await startDedicatedCluster(t, { name: 'identity-host-b' });
  reportLogsOnFailure(t, [hostB]);
  for (const strategy of ['same-name', 'suffix'] as const) {
    await t.test(`namespace strategy ${strategy}`, async (t) => {
      const nodeName = uniqueNamespace('vk-shared');
      const ns = uniqueNamespace('twohosts');
      // With same-name both hosts use one remote namespace, which carries the marks of whichever
      // made it: the other host cluster's Tether uses it only because its config says so.
      const podPolicy: PodPolicy = strategy === 'same-name' ? { adoptNamespaces: [ns] } : {};
      const providerA = await offloadingTether(t, host, nodeName, strategy, podPolicy);
      const providerB = await offloadingTether(t, hostB, nodeName, strategy, podPolicy);
      t.not(await clusterIdOf(host), await clusterIdOf(hostB), 'two derived host cluster ids');
      await namespace(t, host, ns);
      await namespace(t, hostB, ns);
      for (const remoteNs of new Set([providerA.remoteNamespaceOf(ns), providerB.remoteNamespaceOf(ns)])) {
        t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
      }
      const deployment = (name: string): unknown => ({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns },
        spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: podSpec(nodeName) } },
      });
      await apply(host, [deployment('alpha')]);
      await apply(hostB, [deployment('beta')]);
      const running = (cluster: ClusterAccess, app: string) => async (): Promise<boolean> =>
        (await podsOf(cluster, ns, `app=${app}`)).filter((p) => p.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True').length === 2;
      await waitFor('host A pods Running', running(host, 'alpha'), { timeoutMs: 120_000 });
      await waitFor('host B pods Running', running(hostB, 'beta'), { timeoutMs: 120_000 });
      const remoteApps = async (remoteNs: string): Promise<string[]> =>
        (await podsOf(remote, remoteNs, 'app')).map((p) => p.metadata?.labels?.app ?? '').sort();
      if (strategy === 'same-name') t.same(await remoteApps(ns), ['alpha', 'alpha', 'beta', 'beta'], 'one remote namespace holds both hosts\' pods');
      t.same((await providerA.listPods()).map((p) => p.metadata?.labels?.app), ['alpha', 'alpha'], 'host A sees only its own');
      t.same((await providerB.listPods()).map((p) => p.metadata?.labels?.app), ['beta', 'beta'], 'host B sees only its own');

      await host.kubectl(['delete', 'deployment', 'alpha', '-n', ns]);
      await waitFor('host A pods gone remotely', async () => !(await remoteApps(providerA.remoteNamespaceOf(ns))).includes('alpha'), { timeoutMs: 90_000 });
      t.ok(await running(hostB, 'beta')(), 'host B\'s pods untouched');
      t.same((await remoteApps(providerB.remoteNamespaceOf(ns))).filter((a) => a === 'beta'), ['beta', 'beta'], 'and still running remotely');
    });
  }
});
