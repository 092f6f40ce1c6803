/**
 * The Kubernetes provider against two real clusters (the shared "host" and "remote"): a pod is
 * offloaded with its ConfigMap and Secret, the copies follow the host and go when unused, the
 * remote pod's status comes back under the host identity, a remote ResourceQuota rejection is a
 * transient error naming the quota, and `ping` follows the remote API server down and up (on a
 * dedicated remote cluster). There is no kubelet: remote pods stay Pending, which is enough here.
 */
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { CoreV1Api, type V1ConfigMap, type V1Secret } from '@kubernetes/client-node';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { providerKindOf } from '../../src/providers/errors.js';
import { KubernetesProvider } from '../../src/providers/kubernetes/index.js';
import { hostNamespaceAnnotation, ownershipLabels } from '../../src/providers/kubernetes/marks.js';
import type { KubernetesProviderOptions } from '../../src/providers/kubernetes/options.js';
import type { PodNotification } from '../../src/providers/provider.js';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { reportLogsOnFailure, startDedicatedCluster, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { runReconcilers } from '../support/reconcilers.js';

const shared = await useSharedClusters(t);
reportLogsOnFailure(t, [shared.host, shared.remote]);

const core = (cluster: ClusterAccess): CoreV1Api => cluster.kubeConfig().makeApiClient(CoreV1Api);
const hostApi = core(shared.host);
const remoteApi = core(shared.remote);


/** A provider for a fresh host namespace; its remote namespace is removed at teardown. */
async function setUp(t: Test, prefix: string, extra: Partial<KubernetesProviderOptions> = {}) {
  const namespace = await testNamespace(t, shared.host, prefix);
  const hostClusterId = `h${randomBytes(3).toString('hex')}`;
  const notifications: PodNotification[] = [];
  const events: { pod: string; type: string; reason: string; note: string }[] = [];
  const provider = new KubernetesProvider({
    onRemoteEvent: (pod, type, reason, note) => events.push({ pod: `${pod.namespace}/${pod.name}/${pod.uid}`, type, reason, note }),
    nodeName: `vk-${hostClusterId}`,
    hostClusterId,
    host: { kind: 'file', path: shared.host.kubeconfigPath },
    remote: { kind: 'file', path: shared.remote.kubeconfigPath },
    reflection: { sweepDelayMs: 50, minAgeMs: 0 },
    ...extra,
  });
  provider.notifyPods((n) => notifications.push(n));
  runReconcilers(t, provider.reconcilers()); // ConfigMap/Secret reflection runs as the node's subtree runs it
  const remoteNamespace = provider.remoteNamespaceOf(namespace);
  t.equal(remoteNamespace, `${namespace}-${hostClusterId}`);
  t.teardown(async () => {
    await provider.stop();
    await shared.remote.kubectl(['delete', 'namespace', remoteNamespace, '--wait=false', '--ignore-not-found']).catch(() => undefined);
  });
  return { namespace, remoteNamespace, provider, notifications, events, hostClusterId };
}

function hostPod(namespace: string, name: string, uid = `uid-${randomBytes(4).toString('hex')}`): Pod {
  return {
    metadata: {
      namespace, name, uid, labels: { app: 'web' },
      annotations: { 'tether.dev/virtual-node': 'vk', 'tether.dev/host-uid': uid },
    },
    spec: {
      nodeName: 'vk', serviceAccountName: 'default', terminationGracePeriodSeconds: 5,
      tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists' }],
      volumes: [{ name: 'cfg', configMap: { name: 'app-config' } }],
      containers: [{
        name: 'app', image: 'registry.invalid/app:1',
        envFrom: [{ secretRef: { name: 'app-secret' } }],
        volumeMounts: [{ name: 'cfg', mountPath: '/etc/app' }],
      }],
    },
  };
}

/** createPod retried as the pod actor would (transient errors: e.g. the remote default ServiceAccount not there yet). */
async function createEventually(provider: KubernetesProvider, pod: Pod): Promise<void> {
  await waitFor(`createPod ${pod.metadata?.name}`, async () => {
    await provider.createPod(structuredClone(pod));
    return true;
  }, { timeoutMs: 60_000, intervalMs: 300 });
}

const readRemoteConfigMap = (namespace: string, name: string): Promise<V1ConfigMap> => remoteApi.readNamespacedConfigMap({ name, namespace });
const readRemoteSecret = (namespace: string, name: string): Promise<V1Secret> => remoteApi.readNamespacedSecret({ name, namespace });
const gone = (read: () => Promise<unknown>) => async (): Promise<boolean> => {
  try {
    await read();
    return false;
  } catch (err) {
    return (err as { code?: number }).code === 404;
  }
};

t.test('offloads a pod with its ConfigMap and Secret; copies follow the host; deletion ends it and removes them', async (t) => {
  const { namespace, remoteNamespace, provider, notifications, events } = await setUp(t, 'kprov-offload');
  await hostApi.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'app-config' }, data: { 'app.conf': 'v1' } } });
  await hostApi.createNamespacedSecret({ namespace, body: { metadata: { name: 'app-secret' }, stringData: { PASSWORD: 'hunter2' } } });

  const missing = hostPod(namespace, 'no-config');
  missing.spec!.volumes = [{ name: 'other', configMap: { name: 'absent' } }];
  const rejected = await provider.createPod(missing).then(() => undefined, (err: unknown) => err);
  t.equal(providerKindOf(rejected), 'transient', 'a missing ConfigMap is a transient creation failure');
  t.equal((rejected as Error).message, `configmap ${namespace}/absent not found (referenced by volume "other")`);

  const pod = hostPod(namespace, 'web-1');
  await createEventually(provider, pod);
  await provider.createPod(structuredClone(pod)); // idempotent

  const ns = await remoteApi.readNamespace({ name: remoteNamespace });
  t.equal(ns.metadata?.labels?.['tether.dev/managed-by'], 'tether');
  t.equal(ns.metadata?.labels?.['tether.dev/host-cluster'], provider.remoteNamespaceOf('x').replace(/^x-/, ''));

  const cm = await readRemoteConfigMap(remoteNamespace, 'app-config');
  t.same(cm.data, { 'app.conf': 'v1' });
  t.equal(cm.metadata?.labels?.['tether.dev/managed-by'], 'tether');
  t.equal(cm.metadata?.annotations?.['tether.dev/host-namespace'], namespace);
  const secret = await readRemoteSecret(remoteNamespace, 'app-secret');
  t.equal(Buffer.from(secret.data?.PASSWORD ?? '', 'base64').toString(), 'hunter2');
  t.equal(secret.metadata?.labels?.['tether.dev/managed-by'], 'tether');

  const remote = await remoteApi.readNamespacedPod({ name: 'web-1', namespace: remoteNamespace });
  t.equal(remote.spec?.nodeName, undefined, 'no nodeName: the remote scheduler places it');
  t.equal(remote.spec?.automountServiceAccountToken, false);
  t.same(remote.spec?.tolerations?.filter((x) => x.key === 'virtual-kubelet.io/provider'), [], 'Tether\'s toleration dropped');
  t.equal(remote.metadata?.annotations?.['tether.dev/host-uid'], pod.metadata?.uid);
  t.equal(remote.metadata?.annotations?.['tether.dev/host-namespace'], namespace);
  t.equal(remote.metadata?.labels?.['tether.dev/virtual-node'], `vk-${provider.remoteNamespaceOf('x').replace(/^x-/, '')}`);

  const status = await waitFor('a status notification under the host identity', () =>
    notifications.find((n) => n.type === 'status' && n.pod.metadata?.name === 'web-1'));
  t.equal(status.type === 'status' ? status.pod.metadata?.namespace : undefined, namespace);
  t.equal(status.type === 'status' ? status.pod.metadata?.uid : undefined, pod.metadata?.uid);
  const scheduling = await waitFor('the remote scheduler\'s Event reflected to the host pod', () =>
    events.find((e) => e.reason === 'FailedScheduling'), { timeoutMs: 30_000 });
  t.same(scheduling.pod, `${namespace}/web-1/${pod.metadata?.uid}`);
  t.equal(scheduling.type, 'Warning');
  // The shared remote has no nodes, or only other tests' tainted workers (identity, Services):
  // the scheduler's wording differs, the verdict does not.
  t.match(scheduling.note, /^remote: .*(no nodes available|0\/\d+ nodes are available)/);
  const listed = await provider.listPods();
  t.same(listed.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`), [`${namespace}/web-1`]);
  t.same(await provider.listPodMarks(), [{
    namespace, name: 'web-1', uid: pod.metadata?.uid,
    marks: Object.fromEntries(Object.entries(listed[0]?.metadata?.annotations ?? {}).filter(([k]) => k.startsWith('tether.dev/'))),
  }], 'the light listing: the same pod, its host identity and Tether\'s marks only');
  t.ok(Object.keys((await provider.listPodMarks())[0]?.marks ?? {}).includes('tether.dev/host-uid'), 'the marks include the host uid');
  t.equal((await provider.getPod(namespace, 'web-1'))?.metadata?.uid, pod.metadata?.uid);

  await hostApi.replaceNamespacedConfigMap({ name: 'app-config', namespace, body: { metadata: { name: 'app-config' }, data: { 'app.conf': 'v2' } } });
  await waitFor('the remote ConfigMap copy to follow the host', async () =>
    (await readRemoteConfigMap(remoteNamespace, 'app-config')).data?.['app.conf'] === 'v2', { timeoutMs: 30_000 });

  await provider.deletePod(structuredClone(pod));
  await waitFor('the remote pod to be gone', gone(() => remoteApi.readNamespacedPod({ name: 'web-1', namespace: remoteNamespace })), { timeoutMs: 30_000 });
  const ended = await waitFor('a terminal status for the deleted pod', () =>
    notifications.find((n) => n.type === 'status' && n.pod.metadata?.name === 'web-1' && n.pod.status?.phase === 'Failed'));
  t.equal(ended.type === 'status' ? ended.pod.status?.reason : undefined, 'Terminated');
  t.notOk(notifications.some((n) => n.type === 'gone'), 'a deletion Tether asked for is not reported as gone');
  const again = await provider.deletePod(structuredClone(pod)).then(() => undefined, (e: unknown) => e);
  t.equal(providerKindOf(again), 'not-found', 'deleting again: notFound');

  await waitFor('the unused ConfigMap copy to be removed', gone(() => readRemoteConfigMap(remoteNamespace, 'app-config')), { timeoutMs: 30_000 });
  await waitFor('the unused Secret copy to be removed', gone(() => readRemoteSecret(remoteNamespace, 'app-secret')), { timeoutMs: 30_000 });
});

t.test('a reflected copy deleted or edited in the remote cluster is put back', async (t) => {
  const { namespace, remoteNamespace, provider } = await setUp(t, 'kprov-restore');
  await hostApi.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'app-config' }, data: { 'app.conf': 'v1' } } });
  await hostApi.createNamespacedSecret({ namespace, body: { metadata: { name: 'app-secret' }, stringData: { PASSWORD: 'hunter2' } } });
  await createEventually(provider, hostPod(namespace, 'web-1'));
  await waitFor('the copy', () => readRemoteConfigMap(remoteNamespace, 'app-config').then(() => true, () => false));

  await remoteApi.deleteNamespacedConfigMap({ name: 'app-config', namespace: remoteNamespace });
  const back = await waitFor('the deleted copy to come back', () => readRemoteConfigMap(remoteNamespace, 'app-config').then((cm) => cm, () => undefined), { timeoutMs: 60_000 });
  t.same(back.data, { 'app.conf': 'v1' });

  await remoteApi.replaceNamespacedConfigMap({ name: 'app-config', namespace: remoteNamespace, body: { ...back, data: { 'app.conf': 'tampered' } } });
  await waitFor('the edited copy to be put back', async () => (await readRemoteConfigMap(remoteNamespace, 'app-config')).data?.['app.conf'] === 'v1', { timeoutMs: 60_000 });
  await remoteApi.deleteNamespacedSecret({ name: 'app-secret', namespace: remoteNamespace });
  const secret = await waitFor('the deleted Secret copy to come back', () => readRemoteSecret(remoteNamespace, 'app-secret').then((x) => x, () => undefined), { timeoutMs: 60_000 });
  t.equal(Buffer.from(secret.data?.PASSWORD ?? '', 'base64').toString(), 'hunter2');
});

t.test('a pod forged in another remote namespace with copied marks is ignored: no status, no gone, no reflected Secret', async (t) => {
  const { namespace, remoteNamespace, provider, notifications } = await setUp(t, 'kprov-forged');
  await hostApi.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'app-config' }, data: { 'app.conf': 'v1' } } });
  await hostApi.createNamespacedSecret({ namespace, body: { metadata: { name: 'app-secret' }, stringData: { PASSWORD: 'hunter2' } } });
  await hostApi.createNamespacedSecret({ namespace, body: { metadata: { name: 'unreferenced' }, stringData: { TOKEN: 'crown-jewels' } } });
  const pod = hostPod(namespace, 'web-1');
  await createEventually(provider, pod);
  await waitFor('the real pod notified', () => notifications.some((n) => n.type === 'status' && n.pod.metadata?.uid === pod.metadata?.uid));

  const intruder = `intruder-${randomBytes(3).toString('hex')}`;
  await remoteApi.createNamespace({ body: { metadata: { name: intruder } } });
  t.teardown(() => shared.remote.kubectl(['delete', 'namespace', intruder, '--wait=false', '--ignore-not-found']).catch(() => undefined));
  const real = await remoteApi.readNamespacedPod({ name: 'web-1', namespace: remoteNamespace });
  await remoteApi.createNamespacedPod({
    namespace: intruder,
    body: {
      metadata: { name: 'web-1', labels: real.metadata?.labels, annotations: real.metadata?.annotations },
      spec: {
        containers: [{ name: 'app', image: 'registry.invalid/x:1', envFrom: [{ secretRef: { name: 'unreferenced' } }] }],
        volumes: [{ name: 's', secret: { secretName: 'unreferenced' } }],
      },
    },
  });
  await shared.remote.kubectl(['patch', 'pod', 'web-1', '-n', intruder, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Failed', podIP: '6.6.6.6' } })]);
  const before = notifications.length;
  // A marker pod created after the forged one: once its notification arrives, the forged one's would have.
  const marker = hostPod(namespace, 'web-2');
  await createEventually(provider, marker);
  await waitFor('the marker notified', () => notifications.some((n) => n.type === 'status' && n.pod.metadata?.uid === marker.metadata?.uid));
  const forgedNotes = notifications.slice(before).filter((n) => n.type === 'gone' || (n.type === 'status' && n.pod.metadata?.uid === pod.metadata?.uid));
  t.same(forgedNotes, [], 'nothing about web-1 came from the forged pod');
  t.equal((await provider.getPod(namespace, 'web-1'))?.status?.phase, real.status?.phase ?? 'Pending', 'getPod answers from the real pod');
  t.equal(provider.ignoredRemotePods(), 1, 'counted');
  const secrets = await remoteApi.listSecretForAllNamespaces({ fieldSelector: 'metadata.name=unreferenced' });
  t.same(secrets.items.map((x) => x.metadata?.namespace), [], 'no Secret reflected for the forged pod');

  await remoteApi.deleteNamespacedPod({ name: 'web-1', namespace: intruder, gracePeriodSeconds: 0 });
  await remoteApi.deleteNamespacedPod({ name: 'web-2', namespace: remoteNamespace, gracePeriodSeconds: 0 });
  await waitFor('the marker gone', () => notifications.some((n) => n.type === 'gone' && n.uid === marker.metadata?.uid));
  t.same(notifications.filter((n) => n.type === 'gone' && n.uid === pod.metadata?.uid), [], 'deleting the forged pod says nothing about the real one');
});

t.test('a remote pod deleted outside Tether is reported gone', async (t) => {
  const { namespace, remoteNamespace, provider, notifications } = await setUp(t, 'kprov-gone');
  await hostApi.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'app-config' }, data: { a: '1' } } });
  await hostApi.createNamespacedSecret({ namespace, body: { metadata: { name: 'app-secret' }, stringData: { b: '2' } } });
  const pod = hostPod(namespace, 'lost');
  await createEventually(provider, pod);
  await waitFor('the informer to see the pod', () => notifications.some((n) => n.type === 'status'));
  await remoteApi.deleteNamespacedPod({ name: 'lost', namespace: remoteNamespace });
  const g = await waitFor('a gone notification', () => notifications.find((n) => n.type === 'gone'));
  t.match(g, { type: 'gone', namespace, name: 'lost', uid: pod.metadata?.uid, reason: 'RemotePodDeleted', message: 'the remote pod was deleted outside Tether' });
});

t.test('a remote ResourceQuota rejection is transient and names the quota', async (t) => {
  const { namespace, remoteNamespace, provider, hostClusterId } = await setUp(t, 'kprov-quota');
  await hostApi.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'app-config' }, data: { a: '1' } } });
  await hostApi.createNamespacedSecret({ namespace, body: { metadata: { name: 'app-secret' }, stringData: { b: '2' } } });
  // The namespace as Tether made it (its marks), with a quota a remote admin added: an unmarked
  // namespace would be refused before any pod is sent (RemoteNamespaceNotOwned).
  await remoteApi.createNamespace({ body: { metadata: { name: remoteNamespace, labels: ownershipLabels(hostClusterId), annotations: { [hostNamespaceAnnotation]: namespace } } } });
  await remoteApi.createNamespacedResourceQuota({ namespace: remoteNamespace, body: { metadata: { name: 'tight' }, spec: { hard: { pods: '0' } } } });
  await waitFor('the quota controller to fill in the quota status', async () =>
    (await remoteApi.readNamespacedResourceQuota({ name: 'tight', namespace: remoteNamespace })).status?.hard?.pods === '0', { timeoutMs: 60_000 });
  const error = await waitFor('createPod to be rejected by the quota', async () => {
    const err = await provider.createPod(hostPod(namespace, 'over')).then(() => undefined, (e: unknown) => e as Error);
    return err && /exceeded quota/.test(err.message) ? err : undefined;
  }, { timeoutMs: 60_000, intervalMs: 300 });
  t.equal(providerKindOf(error), 'transient');
  t.match(error.message, /403 Forbidden: .*exceeded quota: tight/);
});

t.test('pod policy: the remote namespace carries Pod Security baseline; a hostPath pod is refused before sending', async (t) => {
  const { namespace, remoteNamespace, provider } = await setUp(t, 'kprov-policy');
  await hostApi.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'app-config' }, data: { a: '1' } } });
  await hostApi.createNamespacedSecret({ namespace, body: { metadata: { name: 'app-secret' }, stringData: { b: '2' } } });
  await createEventually(provider, hostPod(namespace, 'fine'));
  const labels = (await remoteApi.readNamespace({ name: remoteNamespace })).metadata?.labels ?? {};
  t.equal(labels['pod-security.kubernetes.io/enforce'], 'baseline', 'the namespace Tether created enforces baseline');
  const risky = hostPod(namespace, 'rooted');
  risky.spec!.volumes = [...risky.spec!.volumes!, { name: 'host', hostPath: { path: '/etc' } }];
  const error = await provider.createPod(risky).then(() => undefined, (e: unknown) => e as Error);
  t.equal(providerKindOf(error), 'invalid-input', 'rejected for good: annotation and Event on the host pod');
  t.match(error?.message, /refused by the pod policy of node .* \(Pod Security level baseline\): hostPath volumes \(volume "host"\)/);
  t.equal(await remoteApi.readNamespacedPod({ name: 'rooted', namespace: remoteNamespace }).then(() => 'exists', () => 'absent'), 'absent', 'nothing was sent');
});

t.test('pod policy: with same-name, a pod of kube-system or default is refused, and nothing is created there', async (t) => {
  const hostClusterId = `h${randomBytes(3).toString('hex')}`;
  const provider = new KubernetesProvider({
    nodeName: `vk-${hostClusterId}`, hostClusterId, namespaceStrategy: 'same-name',
    host: { kind: 'file', path: shared.host.kubeconfigPath }, remote: { kind: 'file', path: shared.remote.kubeconfigPath },
  });
  provider.notifyPods(() => undefined);
  t.teardown(() => provider.stop());
  for (const ns of ['kube-system', 'default']) {
    const error = await provider.createPod(hostPod(ns, 'sneaky')).then(() => undefined, (e: unknown) => e as Error);
    t.equal(providerKindOf(error), 'invalid-input', ns);
    t.match(error?.message, ns === 'default' ? /allowDefaultNamespace/ : /system namespace/);
    t.equal(await remoteApi.readNamespacedPod({ name: 'sneaky', namespace: ns }).then(() => 'exists', () => 'absent'), 'absent');
  }
});

t.test('capacity and nodeInfo answer from the remote cluster', async (t) => {
  const { provider } = await setUp(t, 'kprov-capacity', { quota: { cpu: '8', memory: '16Gi', pods: '20' } });
  t.same(await provider.capacity(), { capacity: { cpu: '8', memory: '16Gi', pods: '20' }, allocatable: { cpu: '8', memory: '16Gi', pods: '20' } });
  const info = await provider.nodeInfo();
  t.equal(info.operatingSystem, 'linux', 'defaults when the remote has no nodes');
});

t.test('ping follows the remote API server down and up', async (t) => {
  const remote = await startDedicatedCluster(t, { name: 'kprov-ping' });
  const provider = new KubernetesProvider({
    nodeName: 'vk-ping', hostClusterId: 'ping',
    host: { kind: 'file', path: shared.host.kubeconfigPath },
    remote: { kind: 'file', path: remote.kubeconfigPath },
    pingTimeoutMs: 2_000,
  });
  t.teardown(() => provider.stop());
  await provider.ping();
  await remote.stopApiServer();
  const err = await waitFor('ping to reject', () => provider.ping().then(() => undefined, (e: unknown) => e as Error), { timeoutMs: 20_000 });
  t.equal(providerKindOf(err), 'transient');
  t.match(err.message, /remote API server https:\/\/127\.0\.0\.1:\d+ (is unreachable|is not ready|did not answer)/);
  await remote.startApiServer();
  await waitFor('ping to resolve again', () => provider.ping().then(() => true, () => false), { timeoutMs: 30_000 });
});
