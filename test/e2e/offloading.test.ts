/**
 * Offloading to a remote cluster through Tether (issue 6), with two real clusters: the host's
 * virtual node is backed by the Kubernetes provider; the remote cluster's own "node" is a Tether
 * with the simulated provider, so remote pods really reach Running.
 */
import t from 'tap';
import { createErrorAnnotation } from '../../src/actors/pod/annotations.js';
import { reportLogsOnFailure, startDedicatedCluster, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { bothReady, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface List<T> {
  items: T[];
}
interface EndpointSlice {
  endpoints?: Array<{ conditions?: { ready?: boolean } }>;
}

t.test('offloading a Deployment to a remote cluster', async (t) => {
  const { host } = await useSharedClusters(t);
  // The outage below stops this cluster's API server: it must be ours alone.
  const remote = await startDedicatedCluster(t, { name: 'offload-remote' });
  reportLogsOnFailure(t, [host]);

  const clusterId = 'host1';
  const worker = startRemoteWorker(t, remote, { name: uniqueNamespace('remote-worker'), podCIDR: '10.88.0.0/16' });
  const remoteNodeName = worker.name;
  const offloading = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('offload'),
    hostClusterId: clusterId,
    forwardRemoteEvents: true,
    provider: { pingTimeoutMs: 1_000 },
    node: {
      ping: { intervalMs: 1_000, timeoutMs: 2_000, failureThreshold: 2, successThreshold: 2 },
      pod: { retry: { minMs: 500, maxMs: 3_000, factor: 2, jitter: 0.2 } },
    },
    onFailure: ({ agent }) => {
      const unusual = agent.system.snapshot().filter((a) => a.kind === 'pod' || a.status !== 'running');
      console.error('host actors:', JSON.stringify(unusual, null, 1));
    },
  });
  const virtualNodeName = offloading.name;

  const ns = await testNamespace(t, host, 'shop');
  const remoteNs = `${ns}-${clusterId}`;
  const remoteList = async <T>(kind: string, selector?: string): Promise<T[]> =>
    (await getJson<List<T>>(remote, [kind, '-n', remoteNs, ...(selector ? ['-l', selector] : [])]))?.items ?? [];
  const hostPods = async (): Promise<KubeObject[]> => (await getJson<List<KubeObject>>(host, ['pods', '-n', ns, '-l', 'app=shop']))?.items ?? [];
  const readyEndpoints = async (): Promise<number> =>
    ((await getJson<List<EndpointSlice>>(host, ['endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=shop']))?.items ?? [])
      .flatMap((s) => s.endpoints ?? [])
      .filter((e) => e.conditions?.ready === true).length;

  await bothReady(host, offloading, remote, worker);

  await t.test('a Deployment with a ConfigMap volume and a Secret in envFrom runs remotely', async (t) => {
    const template = JSON.parse(podManifest('shop', ns, virtualNodeName, {
      volumes: [{ name: 'cfg', configMap: { name: 'shop-config' } }],
    })) as { spec: { containers: Array<Record<string, unknown>> } };
    template.spec.containers[0] = { ...template.spec.containers[0], envFrom: [{ secretRef: { name: 'shop-secret' } }], volumeMounts: [{ name: 'cfg', mountPath: '/etc/shop' }] };
    const objects = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shop-config', namespace: ns }, data: { greeting: 'hello' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'shop-secret', namespace: ns }, stringData: { TOKEN: 's3cr3t' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'shop', namespace: ns }, spec: { replicas: 3, selector: { matchLabels: { app: 'shop' } }, template: { metadata: { labels: { app: 'shop' } }, spec: template.spec } } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'shop', namespace: ns }, spec: { selector: { app: 'shop' }, ports: [{ port: 80 }] } },
    ];
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) });
    const running = await waitFor('3 host pods Running with remote IPs', async () => {
      const pods = (await hostPods()).filter((p) => p.status?.phase === 'Running' && p.status.podIP?.startsWith('10.88.'));
      return pods.length === 3 ? pods : undefined;
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    const remotePods = await remoteList<KubeObject>('pods');
    t.same(new Set(remotePods.map((p) => p.status?.podIP)), new Set(running.map((p) => p.status?.podIP)), 'the host shows the remote IPs');
    t.ok(remotePods.every((p) => p.spec?.nodeName === remoteNodeName));
    const cm = await getJson<{ data: Record<string, string>; metadata: KubeObject['metadata'] }>(remote, ['configmap', 'shop-config', '-n', remoteNs]);
    t.same(cm?.data, { greeting: 'hello' });
    t.ok(await getJson(remote, ['secret', 'shop-secret', '-n', remoteNs]), 'the Secret is reflected');
    await waitFor('ready endpoints', async () => (await readyEndpoints()) === 3, { timeoutMs: 60_000 });

    await host.kubectl(['patch', 'configmap', 'shop-config', '-n', ns, '--type=merge', '-p', '{"data":{"greeting":"bonjour"}}']);
    await waitFor('the remote copy follows', async () => (await getJson<{ data: Record<string, string> }>(remote, ['configmap', 'shop-config', '-n', remoteNs]))?.data.greeting === 'bonjour', { timeoutMs: 30_000 });
  });

  await t.test('missing ConfigMaps get virtual-kubelet\'s Event reasons: an optional one lets the pod run, a mandatory one holds it until it exists', async (t) => {
    const reasonsFor = async (pod: string): Promise<string[]> =>
      ((await getJson<List<{ reason?: string; regarding?: { name?: string } }>>(host, ['events.events.k8s.io', '-n', ns]))?.items ?? [])
        .filter((e) => e.regarding?.name === pod).map((e) => e.reason ?? '');
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('opt-cm', ns, virtualNodeName, { volumes: [{ name: 'v', configMap: { name: 'nowhere', optional: true } }] }) });
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('must-cm', ns, virtualNodeName, { volumes: [{ name: 'v', configMap: { name: 'later' } }] }) });
    await waitFor('OptionalConfigMapNotFound on the pod that runs', async () => (await reasonsFor('opt-cm')).includes('OptionalConfigMapNotFound'), { timeoutMs: 60_000 });
    await waitFor('the optional pod Running', async () => (await getJson<KubeObject>(host, ['pod', 'opt-cm', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
    await waitFor('MandatoryConfigMapNotFound beside ProviderCreateFailed', async () => {
      const reasons = await reasonsFor('must-cm');
      return reasons.includes('MandatoryConfigMapNotFound') && reasons.includes('ProviderCreateFailed');
    }, { timeoutMs: 60_000 });
    t.not((await getJson<KubeObject>(host, ['pod', 'must-cm', '-n', ns]))?.status?.phase, 'Running', 'held while the ConfigMap is missing');
    await host.kubectl(['create', 'configmap', 'later', '-n', ns, '--from-literal=k=v']);
    await waitFor('the mandatory pod Running once its ConfigMap exists', async () => (await getJson<KubeObject>(host, ['pod', 'must-cm', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 90_000 });
    await host.kubectl(['delete', 'pod', 'opt-cm', 'must-cm', '-n', ns, '--timeout=90s']);
    t.pass('virtual-kubelet\'s reasons seen');
  });

  await t.test('the remote API server stops: NotReady, pods out of endpoints; it returns: Ready again', async (t) => {
    await remote.stopApiServer();
    let restarted = false;
    t.teardown(async () => {
      if (!restarted) await remote.startApiServer();
    });
    const down = await waitFor('the virtual node NotReady', async () => {
      const n = await getJson<KubeObject>(host, ['node', virtualNodeName]);
      return condition(n, 'Ready')?.status === 'False' ? n : undefined;
    }, { timeoutMs: 60_000 });
    t.match(condition(down, 'Ready')?.message, /readyz|ECONNREFUSED|unreachable|timed out/i);
    await waitFor('every pod Ready=False', async () => (await hostPods()).every((p) => condition(p, 'Ready')?.status === 'False'), { timeoutMs: 60_000 });
    await waitFor('no ready endpoints', async () => (await readyEndpoints()) === 0, { timeoutMs: 60_000 });

    await remote.startApiServer();
    restarted = true;
    await waitFor('the virtual node Ready again', async () => condition(await getJson<KubeObject>(host, ['node', virtualNodeName]), 'Ready')?.status === 'True', { timeoutMs: 90_000 });
    const pods = await waitFor('pods Ready and Running again', async () => {
      const list = await hostPods();
      return list.length === 3 && list.every((p) => p.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True') ? list : undefined;
    }, { timeoutMs: 90_000 });
    t.equal(pods.length, 3);
    await waitFor('ready endpoints again', async () => (await readyEndpoints()) === 3, { timeoutMs: 60_000 });
  });

  await t.test('a pod the remote rejects (ResourceQuota) is annotated with the quota, retried, and runs once it is raised', async (t) => {
    const quota = (pods: number): string => JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'tight', namespace: remoteNs }, spec: { hard: { pods: String(pods) } } });
    await remote.kubectl(['apply', '-f', '-'], { input: quota(3) });
    // Admission trusts the quota only once the API server's informers have it; the quota
    // controller writing its usage is the sign they do (an admission that has not seen the quota
    // may even use a cached "no quota here" for 30 s).
    await waitFor('the quota is in force', async () => {
      const q = await getJson<{ status?: { hard?: Record<string, string>; used?: Record<string, string> } }>(remote, ['resourcequota', 'tight', '-n', remoteNs]);
      return q?.status?.hard?.['pods'] === '3' && q.status.used?.['pods'] === '3';
    }, { timeoutMs: 60_000 });
    // Capacity follows the remote cluster, which was just down: wait until it offers room again.
    await waitFor('the virtual node offers room for more pods', async () => {
      const pods = (await getJson<KubeObject>(host, ['node', virtualNodeName]))?.status?.allocatable?.['pods'] ?? '0';
      return Number.parseInt(pods, 10) > 3 || pods.endsWith('k');
    }, { timeoutMs: 60_000 });
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('extra', ns, virtualNodeName) });
    t.teardown(async () => {
      if (t.passing()) return;
      console.error(await host.kubectl(['describe', 'pod', 'extra', '-n', ns]).catch(String));
      console.error(await host.kubectl(['describe', 'node', virtualNodeName]).catch(String));
    });
    const rejected = await waitFor('the quota error on the host pod', async () => {
      const p = await getJson<KubeObject>(host, ['pod', 'extra', '-n', ns]);
      return p?.metadata.annotations?.[createErrorAnnotation] ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.match(rejected.metadata.annotations?.[createErrorAnnotation], /exceeded quota: tight/);
    t.equal(rejected.status?.phase, 'Pending');
    const events = await waitFor('a Warning Event naming the quota', async () => {
      const list = await getJson<List<{ reason?: string; note?: string; regarding?: { name?: string } }>>(host, ['events.events.k8s.io', '-n', ns]);
      const found = list?.items.filter((e) => e.regarding?.name === 'extra' && e.reason === 'ProviderCreateFailed');
      return found?.length ? found : undefined;
    }, { timeoutMs: 30_000 });
    t.match(events[0]?.note, /tight/);
    await remote.kubectl(['apply', '-f', '-'], { input: quota(10) });
    await waitFor('extra runs, the annotation is gone', async () => {
      const p = await getJson<KubeObject>(host, ['pod', 'extra', '-n', ns]);
      return p?.status?.phase === 'Running' && !p.metadata.annotations?.[createErrorAnnotation];
    }, { timeoutMs: 90_000 });
  });
  await host.kubectl(['delete', 'pod', 'extra', '-n', ns, '--wait=false', '--ignore-not-found']);

  await t.test('deleting the Deployment leaves nothing remote but the namespace', async (t) => {
    await host.kubectl(['delete', 'deployment', 'shop', '-n', ns, '--wait=false']);
    await host.kubectl(['delete', 'configmap', 'shop-config', '-n', ns]);
    await host.kubectl(['delete', 'secret', 'shop-secret', '-n', ns]);
    await waitFor('no host pods', async () => (await getJson<List<KubeObject>>(host, ['pods', '-n', ns]))?.items.length === 0, { timeoutMs: 120_000, intervalMs: 1_000 });
    await waitFor('no remote pods, ConfigMaps or Secrets of ours', async () => {
      const pods = await remoteList('pods');
      const cms = (await remoteList<KubeObject>('configmaps')).filter((c) => c.metadata.name !== 'kube-root-ca.crt');
      const secrets = await remoteList('secrets');
      return pods.length === 0 && cms.length === 0 && secrets.length === 0;
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    t.ok(await getJson(remote, ['namespace', remoteNs]), 'the namespace stays');
  });
});
