/**
 * A pod's own projected ServiceAccount token (a `serviceAccountToken` source in any projected
 * volume but the automount's `kube-api-access-*`) is never sent as it is: the remote kubelet would
 * mount a token of the remote namespace's account in its place. By default the pod is refused
 * (invalid input, Event reason ProjectedServiceAccountTokenRefused); with
 * `podPolicy.projectedServiceAccountTokens: drop` the source is removed (the volume too when
 * nothing else is projected) and the host pod gets a Warning Event saying so.
 */
import t, { type Test } from 'tap';
import { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { KubernetesProvider } from '../../../../src/providers/kubernetes/index.js';
import type { PodPolicy } from '../../../../src/providers/kubernetes/pods/podPolicy.js';
import { projectedTokens, toRemotePod } from '../../../../src/providers/kubernetes/pods/podTranslation.js';
import { eventReasonOf, providerKindOf } from '../../../../src/providers/errors.js';
import { formatPath } from '../../../../src/lib/fieldProblem.js';
import { mockClusters } from '../mockClusters.js';

const withToken: Pod = {
  metadata: { name: 'web-1', namespace: 'shop', uid: 'host-uid' },
  spec: {
    containers: [{ name: 'app', image: 'x', volumeMounts: [{ name: 'vault-token', mountPath: '/var/run/vault' }, { name: 'mixed', mountPath: '/m' }] }],
    volumes: [
      { name: 'vault-token', projected: { sources: [{ serviceAccountToken: { audience: 'vault', path: 'token' } }] } },
      { name: 'mixed', projected: { sources: [{ configMap: { name: 'cfg' } }, { serviceAccountToken: { path: 't' } }] } },
      { name: 'kube-api-access-x1y2z', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
    ],
  },
};

void t.test('translation never keeps a projected token source; the pod\'s own ones are named', async (t) => {
  t.same(projectedTokens(withToken).map((p) => formatPath(p.field)), [
    'spec.volumes[vault-token].projected.sources[0].serviceAccountToken',
    'spec.volumes[mixed].projected.sources[1].serviceAccountToken',
  ], 'the automount volume is not the pod\'s own');
  const remote = toRemotePod(withToken, { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: 'shop-home' });
  t.same(remote.spec?.volumes, [{ name: 'mixed', projected: { sources: [{ configMap: { name: 'cfg' } }] } }], 'the token sources gone, a volume left empty gone');
  t.same(remote.spec?.containers[0]?.volumeMounts, [{ name: 'mixed', mountPath: '/m' }], 'and the mount of the volume that went');
});

async function world(t: Test, podPolicy: PodPolicy) {
  const { host, remote } = await mockClusters(t);
  host.route((r) => (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/configmaps/cfg' ? { body: { metadata: { name: 'cfg', namespace: 'shop' }, data: {} } } : undefined));
  remote.route((r) => {
    if (r.method === 'POST') return { status: 201, body: JSON.parse(r.body) as unknown };
    return undefined;
  });
  const hostClient = new ClusterClient(host.kubeConfig());
  t.teardown(() => hostClient.stop());
  const events: string[] = [];
  const provider = new KubernetesProvider({
    nodeName: 'vk-1', hostClusterId: 'home', host: hostClient, remote: remote.kubeConfig(), reflectedKinds: [], podPolicy,
    onRemoteEvent: (ref, type, reason, note) => events.push(`${ref.name} ${type} ${reason}: ${note}`),
  });
  t.teardown(() => provider.stop());
  return { remote, provider, events };
}

void t.test('by default the pod is refused, with a reason and the fields; nothing is created remotely', async (t) => {
  const { remote, provider } = await world(t, {});
  const error = await provider.createPod(withToken).then(() => undefined, (e: unknown) => e);
  t.equal(providerKindOf(error), 'invalid-input', 'rejected: the annotation and ProviderRejected, not retried until the spec changes');
  t.equal(eventReasonOf(error), 'ProjectedServiceAccountTokenRefused');
  t.match((error as Error).message, /projected ServiceAccount token sources spec\.volumes\[vault-token\]\.projected\.sources\[0\]\.serviceAccountToken, spec\.volumes\[mixed\]/);
  t.match((error as Error).message, /projectedServiceAccountTokens: drop/);
  t.same(remote.requests.filter((r) => r.method === 'POST'), [], 'no namespace, no pod');
});

void t.test('with drop, the pod goes without its token sources and the host pod gets a Warning Event', async (t) => {
  const { remote, provider, events } = await world(t, { projectedServiceAccountTokens: 'drop' });
  await provider.createPod(withToken);
  const sent = remote.matching('POST', '/api/v1/namespaces/shop-home/pods').map((r) => JSON.parse(r.body) as Pod);
  t.equal(sent.length, 1);
  t.notMatch(JSON.stringify(sent[0]?.spec?.volumes), /serviceAccountToken/, 'no token source reaches the remote');
  t.match(events, [/^web-1 Warning ProjectedServiceAccountTokenDropped: projected ServiceAccount token sources spec\.volumes\[vault-token\]/]);
});
