/**
 * The command lines of the four control-plane components, as pure functions of a cluster's layout
 * (ports and file paths), so the flags are reviewable in one place and unit-tested.
 * docs/control-plane.md explains each non-obvious flag.
 */
import { FRONT_PROXY_CLIENT, type ClusterCredentials } from './certificates.js';

export interface ComponentPorts {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
  scheduler: number;
}

export interface NodeLifecycleTuning {
  /** How long a node may go without a heartbeat before it is marked Unknown (upstream: 50s). */
  nodeMonitorGracePeriod: string;
  /** How often the node lifecycle controller checks heartbeats (upstream: 5s). */
  nodeMonitorPeriod: string;
}

export const TEST_NODE_LIFECYCLE: NodeLifecycleTuning = { nodeMonitorGracePeriod: '20s', nodeMonitorPeriod: '2s' };

export interface ClusterLayout {
  name: string;
  dir: string;
  ports: ComponentPorts;
  /** 127.0.0.1 normally; 0.0.0.0 when a network namespace must reach the API server. */
  apiserverBindAddress: string;
  serviceClusterIpRange: string;
  /**
   * When set, the node IPAM controller gives every Node a /24 of it as `spec.podCIDRs` (as kubeadm
   * with `--pod-network-cidr` does), so Tether can learn the cluster's pod CIDR; unset, Nodes get none.
   */
  clusterCidr?: string;
  credentials: ClusterCredentials;
  etcdDataDir: string;
  controllerManagerKubeconfig: string;
  schedulerKubeconfig: string;
  schedulerConfigPath: string;
  nodeLifecycle: NodeLifecycleTuning;
}

export function etcdArgs(layout: ClusterLayout): string[] {
  const client = `http://127.0.0.1:${layout.ports.etcdClient}`;
  const peer = `http://127.0.0.1:${layout.ports.etcdPeer}`;
  return [
    `--name=${layout.name}`,
    `--data-dir=${layout.etcdDataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${layout.name}=${peer}`,
    // Test data is disposable; fsync dominates etcd latency on shared disks.
    '--unsafe-no-fsync=true',
    // The API server's consistent reads from cache need progress notifications (upstream uses 5s).
    '--watch-progress-notify-interval=5s',
    '--log-level=warn',
  ];
}

export function apiserverArgs(layout: ClusterLayout): string[] {
  const c = layout.credentials;
  return [
    `--etcd-servers=http://127.0.0.1:${layout.ports.etcdClient}`,
    `--bind-address=${layout.apiserverBindAddress}`,
    `--secure-port=${layout.ports.apiserver}`,
    // Mandatory on a machine without a default route; loopback is always there.
    '--advertise-address=127.0.0.1',
    // A loopback advertise address is not a valid Endpoints address; no reconciler, no problem.
    '--endpoint-reconciler-type=none',
    `--cert-dir=${c.dir}`,
    `--tls-cert-file=${c.serving.certPath}`,
    `--tls-private-key-file=${c.serving.keyPath}`,
    `--client-ca-file=${c.ca.certPath}`,
    `--token-auth-file=${c.tokenFilePath}`,
    '--authorization-mode=Node,RBAC',
    // Tether is a kubelet: node credentials get exactly the restrictions a real kubelet's get.
    '--enable-admission-plugins=NodeRestriction',
    `--kubelet-client-certificate=${c.kubeletClient.certPath}`,
    `--kubelet-client-key=${c.kubeletClient.keyPath}`,
    // A virtual node's Hostname address (its name) resolves nowhere; its InternalIP is where the
    // kubelet API listens. Upstream's default order tries Hostname first.
    '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname',
    `--service-cluster-ip-range=${layout.serviceClusterIpRange}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${c.serviceAccountPublicKeyPath}`,
    `--service-account-signing-key-file=${c.serviceAccountKeyPath}`,
    ...aggregationLayerArgs(c),
    '--allow-privileged=true',
    '--profiling=false',
    // Without a watch-drain period the API server waits on open watches (the controller manager's,
    // the scheduler's) for up to a minute after SIGTERM; with one it closes them and exits in ~1 s.
    '--shutdown-watch-termination-grace-period=1s',
  ];
}

/**
 * The aggregation layer, as kubeadm configures it, so an APIService (metrics-server's
 * v1beta1.metrics.k8s.io) can be served: the API server authenticates to the extension server with
 * the front-proxy client certificate and passes the user in X-Remote-* headers, which the extension
 * server trusts because the certificate chains to the requestheader CA. Aggregator routing makes
 * the API server dial the Service's endpoint address (from its EndpointSlice) instead of the
 * ClusterIP, which nothing routes here: there is no kube-proxy.
 */
export function aggregationLayerArgs(c: ClusterCredentials): string[] {
  return [
    `--requestheader-client-ca-file=${c.frontProxyCa.certPath}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CLIENT}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${c.frontProxyClient.certPath}`,
    `--proxy-client-key-file=${c.frontProxyClient.keyPath}`,
    '--enable-aggregator-routing=true',
  ];
}

export function controllerManagerArgs(layout: ClusterLayout): string[] {
  const c = layout.credentials;
  const kubeconfig = layout.controllerManagerKubeconfig;
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${layout.ports.controllerManager}`,
    `--tls-cert-file=${c.serving.certPath}`,
    `--tls-private-key-file=${c.serving.keyPath}`,
    `--cert-dir=${c.dir}`,
    '--leader-elect=false',
    '--controllers=*',
    // As kubeadm does: each controller acts as its own service account, so RBAC is exercised.
    '--use-service-account-credentials=true',
    `--service-account-private-key-file=${c.serviceAccountKeyPath}`,
    `--root-ca-file=${c.ca.certPath}`,
    `--service-cluster-ip-range=${layout.serviceClusterIpRange}`,
    // Lets CertificateSigningRequests (e.g. a node's client certificate) be signed.
    `--cluster-signing-cert-file=${c.ca.certPath}`,
    `--cluster-signing-key-file=${c.ca.keyPath}`,
    `--node-monitor-grace-period=${layout.nodeLifecycle.nodeMonitorGracePeriod}`,
    `--node-monitor-period=${layout.nodeLifecycle.nodeMonitorPeriod}`,
    ...(layout.clusterCidr === undefined ? [] : ['--allocate-node-cidrs=true', `--cluster-cidr=${layout.clusterCidr}`, '--node-cidr-mask-size=24']),
    '--profiling=false',
  ];
}

export function schedulerArgs(layout: ClusterLayout): string[] {
  const c = layout.credentials;
  return [
    `--config=${layout.schedulerConfigPath}`,
    `--authentication-kubeconfig=${layout.schedulerKubeconfig}`,
    `--authorization-kubeconfig=${layout.schedulerKubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${layout.ports.scheduler}`,
    `--tls-cert-file=${c.serving.certPath}`,
    `--tls-private-key-file=${c.serving.keyPath}`,
    `--cert-dir=${c.dir}`,
  ];
}

/** The scheduler's configuration file: its kubeconfig and no leader election (one replica). */
export function schedulerConfig(kubeconfigPath: string): string {
  return JSON.stringify({
    apiVersion: 'kubescheduler.config.k8s.io/v1',
    kind: 'KubeSchedulerConfiguration',
    clientConnection: { kubeconfig: kubeconfigPath },
    leaderElection: { leaderElect: false },
  }, null, 2) + '\n';
}

export interface MetricsServerLayout {
  /** Its identity's kubeconfig: for the API server, for delegated authn/authz and for the kubelets. */
  kubeconfig: string;
  address: string;
  port: number;
  serving: { certPath: string; keyPath: string };
  /** How often it scrapes every kubelet (at least 10s; upstream's manifests use 15s). */
  metricResolution: string;
  kubeletRequestTimeout: string;
}

/** metrics-server outside the cluster, as its manifests run it inside one (docs/control-plane.md). */
export function metricsServerArgs(layout: MetricsServerLayout): string[] {
  return [
    `--kubeconfig=${layout.kubeconfig}`,
    `--authentication-kubeconfig=${layout.kubeconfig}`,
    `--authorization-kubeconfig=${layout.kubeconfig}`,
    `--bind-address=${layout.address}`,
    `--secure-port=${layout.port}`,
    `--tls-cert-file=${layout.serving.certPath}`,
    `--tls-private-key-file=${layout.serving.keyPath}`,
    // Kubelets serve self-signed certificates (Tether's do unless given one), as in kind and minikube.
    '--kubelet-insecure-tls',
    // A virtual node's InternalIP is where its kubelet API listens; its Hostname resolves nowhere.
    '--kubelet-preferred-address-types=InternalIP',
    // Each Tether node's kubelet API has a port of its own, which the Node advertises.
    '--kubelet-use-node-status-port',
    `--metric-resolution=${layout.metricResolution}`,
    `--kubelet-request-timeout=${layout.kubeletRequestTimeout}`,
  ];
}
