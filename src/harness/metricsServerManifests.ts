/**
 * The API objects that make a metrics-server process outside the cluster serve the cluster's
 * Metrics API, as pure data: the RBAC of metrics-server's own manifests (its service account
 * reads pods and nodes, gets `nodes/metrics` and `nodes/stats` from kubelets, delegates authn/authz,
 * reads the requestheader CA), a Service without a selector whose hand-made EndpointSlice names
 * the address the process listens on (there are no pods to select; the API server's aggregator
 * routing dials that address), and the APIService v1beta1.metrics.k8s.io, with the CA that signed
 * the process's serving certificate.
 */

export const METRICS_SERVER_NAMESPACE = 'kube-system';
export const METRICS_SERVER_NAME = 'metrics-server';
export const METRICS_API_SERVICE = 'v1beta1.metrics.k8s.io';

/** The identity metrics-server acts as: its service account, as in the upstream manifests. */
export const METRICS_SERVER_IDENTITY = {
  user: `system:serviceaccount:${METRICS_SERVER_NAMESPACE}:${METRICS_SERVER_NAME}`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${METRICS_SERVER_NAMESPACE}`],
} as const;

/** The DNS name the aggregator verifies the serving certificate against (service.namespace.svc). */
export const METRICS_SERVER_DNS_NAME = `${METRICS_SERVER_NAME}.${METRICS_SERVER_NAMESPACE}.svc`;

export interface MetricsServerEndpoint {
  /** A non-loopback address the API server can dial (EndpointSlices refuse loopback). */
  readonly address: string;
  readonly port: number;
  /** PEM of the CA that signed the serving certificate. */
  readonly caPem: string;
}

type Manifest = Record<string, unknown>;

const subject = { kind: 'ServiceAccount', name: METRICS_SERVER_NAME, namespace: METRICS_SERVER_NAMESPACE };
const labels = { 'k8s-app': METRICS_SERVER_NAME };

export function metricsServerRbac(): Manifest[] {
  const rbac = 'rbac.authorization.k8s.io/v1';
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: METRICS_SERVER_NAME, namespace: METRICS_SERVER_NAMESPACE, labels } },
    {
      apiVersion: rbac, kind: 'ClusterRole',
      metadata: {
        name: 'system:aggregated-metrics-reader',
        labels: { ...labels, 'rbac.authorization.k8s.io/aggregate-to-view': 'true', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true', 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
      },
      rules: [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: rbac, kind: 'ClusterRole', metadata: { name: 'system:metrics-server', labels },
      rules: [
        { apiGroups: [''], resources: ['nodes/metrics', 'nodes/stats'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: rbac, kind: 'ClusterRoleBinding', metadata: { name: 'system:metrics-server', labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:metrics-server' }, subjects: [subject],
    },
    {
      apiVersion: rbac, kind: 'ClusterRoleBinding', metadata: { name: 'metrics-server:system:auth-delegator', labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' }, subjects: [subject],
    },
    {
      apiVersion: rbac, kind: 'RoleBinding', metadata: { name: 'metrics-server-auth-reader', namespace: METRICS_SERVER_NAMESPACE, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' }, subjects: [subject],
    },
  ];
}

export function metricsServerService(endpoint: MetricsServerEndpoint): Manifest[] {
  const metadata = { name: METRICS_SERVER_NAME, namespace: METRICS_SERVER_NAMESPACE, labels };
  return [
    {
      apiVersion: 'v1', kind: 'Service', metadata,
      spec: { type: 'ClusterIP', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: endpoint.port }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: {
        name: METRICS_SERVER_NAME, namespace: METRICS_SERVER_NAMESPACE,
        // managed-by anything but the endpointslice controller: the controller leaves the slice alone.
        labels: { ...labels, 'kubernetes.io/service-name': METRICS_SERVER_NAME, 'endpointslice.kubernetes.io/managed-by': 'tether-harness' },
      },
      addressType: 'IPv4',
      ports: [{ name: 'https', port: endpoint.port, protocol: 'TCP' }],
      endpoints: [{ addresses: [endpoint.address], conditions: { ready: true } }],
    },
    {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: METRICS_API_SERVICE, labels },
      spec: {
        service: { name: METRICS_SERVER_NAME, namespace: METRICS_SERVER_NAMESPACE, port: 443 },
        group: 'metrics.k8s.io', version: 'v1beta1',
        caBundle: Buffer.from(endpoint.caPem, 'utf8').toString('base64'),
        groupPriorityMinimum: 100, versionPriority: 100,
      },
    },
  ];
}

/** Every object, as one List for `kubectl apply -f -`. */
export function metricsServerManifest(endpoint: MetricsServerEndpoint): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...metricsServerRbac(), ...metricsServerService(endpoint)] });
}
