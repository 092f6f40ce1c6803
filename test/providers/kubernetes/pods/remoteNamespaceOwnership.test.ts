/**
 * A remote namespace is Tether's only if Tether made it (its marks for this host cluster) or the
 * node's config lists it as adoptable. A namespace squatted under the mapped name (pre-created by a
 * remote user without the marks) gets no copy of a host Secret or ConfigMap and no pod, and the
 * creation fails transient (retried with backoff) naming the namespace and why. Mock API servers:
 * the host, and the remote.
 */
import t, { type Test } from 'tap';
import { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { KubernetesProvider } from '../../../../src/providers/kubernetes/index.js';
import type { PodPolicy } from '../../../../src/providers/kubernetes/pods/podPolicy.js';
import { eventReasonOf, providerKindOf } from '../../../../src/providers/errors.js';
import { status } from '../../../adapters/kubernetes/mockApiServer.js';
import { transient } from '../../../../src/providers/errors.js';
import { Reflector } from '../../../../src/providers/kubernetes/configReflection/configReflector.js';
import type { HostObject } from '../../../../src/providers/kubernetes/configReflection/reflectedObject.js';
import type { CachedListWatchOptions } from '../../../../src/adapters/kubernetes/cachedListWatch.js';
import type { Operation } from '../../../../src/adapters/kubernetes/operation.js';
import { FakeListWatch } from '../../../support/fakeListWatch.js';
import { ManualClock } from '../../../support/manualClock.js';
import { runReconcilers } from '../../../support/reconcilers.js';
import { drain, until } from '../../../support/until.js';
import { asCalled, silentLog } from '../configReflection/configMapWorld.js';
import { mockClusters } from '../mockClusters.js';

const hostPod: Pod = {
  metadata: { name: 'web-1', namespace: 'shop', uid: 'host-uid' },
  spec: {
    containers: [{ name: 'app', image: 'x', env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } }] }],
    volumes: [{ name: 'conf', configMap: { name: 'app-config' } }],
  },
};

async function world(t: Test, existing: Record<string, unknown> | undefined, podPolicy: PodPolicy = {}) {
  const { host, remote } = await mockClusters(t);
  host.route((r) => {
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/secrets/db') return { body: { metadata: { name: 'db', namespace: 'shop' }, data: { pw: 'c2VjcmV0' } } };
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/configmaps/app-config') return { body: { metadata: { name: 'app-config', namespace: 'shop' }, data: { a: 'b' } } };
    return undefined;
  });
  remote.route((r) => {
    if (r.method === 'POST' && r.url.pathname === '/api/v1/namespaces') {
      return existing ? { status: 409, body: status(409, 'AlreadyExists', 'namespaces "shop-home" already exists') } : { status: 201, body: JSON.parse(r.body) as unknown };
    }
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop-home' && existing) return { body: existing };
    if (r.method === 'POST') return { status: 201, body: JSON.parse(r.body) as unknown };
    return undefined;
  });
  const hostClient = new ClusterClient(host.kubeConfig());
  t.teardown(() => hostClient.stop());
  const provider = new KubernetesProvider({ nodeName: 'vk-1', hostClusterId: 'home', host: hostClient, remote: remote.kubeConfig(), reflectedKinds: [], podPolicy });
  t.teardown(() => provider.stop());
  const writes = (): string[] => remote.requests.filter((r) => r.method !== 'GET' && r.url.pathname !== '/api/v1/namespaces').map((r) => `${r.method} ${r.url.pathname}`);
  return { remote, provider, writes };
}

const squatted = { metadata: { name: 'shop-home', uid: 'ns-uid', labels: { 'kubernetes.io/metadata.name': 'shop-home' } } };

void t.test('a squatted suffix namespace gets no Secret, no ConfigMap and no pod; the creation says which namespace and why', async (t) => {
  const { provider, writes } = await world(t, squatted);
  const error = await provider.createPod(hostPod).then(() => undefined, (e: unknown) => e);
  t.ok(error, 'the creation fails');
  t.equal(providerKindOf(error), 'transient', 'retried with backoff: an admin may delete the namespace or list it as adoptable');
  t.equal(eventReasonOf(error), 'RemoteNamespaceNotOwned', 'a precise Event reason beside ProviderCreateFailed');
  t.match((error as Error).message, /remote namespace shop-home exists and was not created by Tether for host cluster home/);
  t.match((error as Error).message, /adoptNamespaces/, 'says how to allow it');
  t.same(writes(), [], 'nothing written into the namespace');
});

void t.test('a namespace carrying another host cluster\'s marks is refused too', async (t) => {
  const { provider, writes } = await world(t, { metadata: { name: 'shop-home', labels: { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'other' } } });
  const error = await provider.createPod(hostPod).then(() => undefined, (e: unknown) => e);
  t.match((error as Error).message, /host cluster other/);
  t.same(writes(), []);
});

void t.test('an existing namespace with Tether\'s marks for this host cluster is used', async (t) => {
  const { provider, writes } = await world(t, { metadata: { name: 'shop-home', labels: { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home' } } });
  await provider.createPod(hostPod);
  t.same(writes().sort(), ['POST /api/v1/namespaces/shop-home/configmaps', 'POST /api/v1/namespaces/shop-home/pods', 'POST /api/v1/namespaces/shop-home/secrets']);
});

void t.test('an unmarked namespace the node lists as adoptable is used, and its labels left alone', async (t) => {
  const { provider, writes, remote } = await world(t, squatted, { adoptNamespaces: ['shop-home'] });
  await provider.createPod(hostPod);
  t.equal(writes().filter((w) => w.endsWith('/pods')).length, 1, 'the pod is created');
  t.same(remote.requests.filter((r) => r.method === 'PATCH' || r.method === 'PUT'), [], 'the adopted namespace is not changed');
});

void t.test('a namespace Tether creates carries its marks and the Pod Security level', async (t) => {
  const { provider, remote } = await world(t, undefined, { podSecurityLevel: 'restricted' });
  await provider.createPod({ ...hostPod, spec: { containers: [{ name: 'app', image: 'x', securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } } }] } });
  const created = remote.matching('POST', '/api/v1/namespaces').map((r) => JSON.parse(r.body) as { metadata: { labels: Record<string, string>; annotations?: Record<string, string> } });
  t.match(created, [{ metadata: { name: 'shop-home', labels: {
    'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home', 'tether.dev/virtual-node': 'vk-1',
    'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest',
  }, annotations: { 'tether.dev/host-namespace': 'shop' } } }]);
});

void t.test('the ConfigMap/Secret reflector asks the same decision: a pod seen in a refused namespace gets no copy there', async (t) => {
  const writes: string[] = [];
  const source = { metadata: { name: 'app-config', namespace: 'shop', resourceVersion: '3' }, data: { a: 'b' } };
  const remote = {
    call: (_p: string, op: Operation, fn: (c: unknown) => Promise<unknown>) => asCalled(op, () => fn({
      createNamespacedConfigMap: async ({ body }: { body: HostObject }) => {
        writes.push(`${body.metadata?.namespace}/${body.metadata?.name}`);
        return body;
      },
    })),
  };
  const watches = new Map<string, FakeListWatch<HostObject>>();
  const asked: string[] = [];
  const reflector = new Reflector({
    host: {} as ClusterClient, remote: remote as unknown as ClusterClient, hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`,
    clock: new ManualClock(), log: silentLog as never,
    namespaceUsable: async (remoteNs) => {
      asked.push(remoteNs);
      throw transient(`remote namespace ${remoteNs} exists and was not created by Tether for host cluster home`, { reason: 'RemoteNamespaceNotOwned' });
    },
    watchFactory: (o: CachedListWatchOptions<HostObject>) => {
      const w = new FakeListWatch<HostObject>(o.path);
      watches.set(o.path, w);
      return w;
    },
  });
  t.teardown(() => reflector.stop());
  runReconcilers(t, reflector.reconcilers());
  // A pod with Tether's marks in the squatted namespace (made there by its squatter) is seen by the remote pod watch.
  reflector.track('shop/web-1', 'shop', { metadata: { name: 'web-1', namespace: 'shop-home' }, spec: { containers: [], volumes: [{ name: 'v', configMap: { name: 'app-config' } }] } });
  watches.get('/api/v1/namespaces/shop/configmaps')?.listed([source]);
  watches.get('/api/v1/configmaps')?.listed([]);
  await until('the reflector judged the copy', () => asked.length > 0 || writes.length > 0);
  await drain();
  t.same(writes, [], 'nothing copied into the refused namespace');
});
