/** The objects that make an out-of-cluster metrics-server the cluster's Metrics API. */
import t from 'tap';
import { METRICS_SERVER_IDENTITY, metricsServerManifest } from '../../src/harness/metricsServerManifests.js';

type Item = { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [key: string]: unknown };
const items = (JSON.parse(metricsServerManifest({ address: '10.213.0.1', port: 4443, caPem: 'PEM' })) as { kind: string; items: Item[] }).items;
const find = (kind: string, name?: string): Item | undefined => items.find((i) => i.kind === kind && (name === undefined || i.metadata.name === name));

void t.test('the RBAC of metrics-server\'s manifests, bound to its service account', async (t) => {
  t.equal(METRICS_SERVER_IDENTITY.user, 'system:serviceaccount:kube-system:metrics-server');
  t.match(find('ServiceAccount'), { metadata: { name: 'metrics-server', namespace: 'kube-system' } });
  t.match(find('ClusterRole', 'system:metrics-server'), { rules: [{ resources: ['nodes/metrics', 'nodes/stats'], verbs: ['get'] }, { resources: ['pods', 'nodes'] }] });
  const subjects = [{ kind: 'ServiceAccount', name: 'metrics-server', namespace: 'kube-system' }];
  t.match(find('ClusterRoleBinding', 'system:metrics-server'), { roleRef: { name: 'system:metrics-server' }, subjects });
  t.match(find('ClusterRoleBinding', 'metrics-server:system:auth-delegator'), { roleRef: { name: 'system:auth-delegator' }, subjects });
  t.match(find('RoleBinding'), { metadata: { namespace: 'kube-system' }, roleRef: { kind: 'Role', name: 'extension-apiserver-authentication-reader' }, subjects });
  t.match(find('ClusterRole', 'system:aggregated-metrics-reader'), { metadata: { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } } });
});

void t.test('a selector-less Service whose own EndpointSlice names the address; the APIService trusts the CA', async (t) => {
  const service = find('Service') as Item & { spec: Record<string, unknown> };
  t.match(service.spec, { type: 'ClusterIP', ports: [{ name: 'https', port: 443, targetPort: 4443 }] });
  t.notOk('selector' in service.spec, 'no pods to select');
  t.match(find('EndpointSlice'), {
    metadata: { labels: { 'kubernetes.io/service-name': 'metrics-server', 'endpointslice.kubernetes.io/managed-by': 'tether-harness' } },
    addressType: 'IPv4', ports: [{ name: 'https', port: 4443 }], endpoints: [{ addresses: ['10.213.0.1'], conditions: { ready: true } }],
  }, 'the port name matches the Service port\'s, which is how the aggregator picks it');
  t.match(find('APIService'), {
    metadata: { name: 'v1beta1.metrics.k8s.io' },
    spec: { service: { name: 'metrics-server', namespace: 'kube-system', port: 443 }, group: 'metrics.k8s.io', version: 'v1beta1', caBundle: Buffer.from('PEM').toString('base64') },
  });
  t.notOk((find('APIService') as Item & { spec: Record<string, unknown> }).spec['insecureSkipTLSVerify'], 'TLS is verified');
});
