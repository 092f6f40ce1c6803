import t from 'tap';
import type { ClusterCredentials } from '../../src/harness/certificates.js';
import {
  apiserverArgs, controllerManagerArgs, etcdArgs, metricsServerArgs, schedulerArgs, schedulerConfig, TEST_NODE_LIFECYCLE, type ClusterLayout,
} from '../../src/harness/componentFlags.js';

const pair = (n: string): { certPath: string; keyPath: string } => ({ certPath: `/c/${n}.crt`, keyPath: `/c/${n}.key` });
const credentials: ClusterCredentials = {
  dir: '/c', ca: pair('ca'), serving: pair('apiserver'), admin: pair('admin'), kubeletClient: pair('kubelet-client'),
  frontProxyCa: pair('front-proxy-ca'), frontProxyClient: pair('front-proxy-client'),
  serviceAccountKeyPath: '/c/sa.key', serviceAccountPublicKeyPath: '/c/sa.pub', tokenFilePath: '/c/tokens.csv', adminToken: 't', tokens: [],
};
const layout: ClusterLayout = {
  name: 'host', dir: '/d',
  ports: { etcdClient: 1001, etcdPeer: 1002, apiserver: 1003, controllerManager: 1004, scheduler: 1005 },
  apiserverBindAddress: '127.0.0.1', serviceClusterIpRange: '10.0.0.0/24', credentials,
  etcdDataDir: '/d/etcd', controllerManagerKubeconfig: '/d/cm.kubeconfig', schedulerKubeconfig: '/d/s.kubeconfig',
  schedulerConfigPath: '/d/s.json', nodeLifecycle: TEST_NODE_LIFECYCLE,
};

void t.test('etcd listens on its own loopback ports with the test settings', async (t) => {
  const args = etcdArgs(layout);
  for (const flag of ['--listen-client-urls=http://127.0.0.1:1001', '--initial-cluster=host=http://127.0.0.1:1002',
    '--unsafe-no-fsync=true', '--watch-progress-notify-interval=5s', '--data-dir=/d/etcd']) t.ok(args.includes(flag), flag);
});

void t.test('the API server uses client-cert and token auth, Node+RBAC, and no endpoint reconciler', async (t) => {
  const args = apiserverArgs(layout);
  for (const flag of ['--etcd-servers=http://127.0.0.1:1001', '--secure-port=1003', '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1', '--endpoint-reconciler-type=none', '--authorization-mode=Node,RBAC',
    '--client-ca-file=/c/ca.crt', '--token-auth-file=/c/tokens.csv', '--service-cluster-ip-range=10.0.0.0/24',
    '--service-account-signing-key-file=/c/sa.key', '--service-account-key-file=/c/sa.pub',
    '--shutdown-watch-termination-grace-period=1s', '--enable-admission-plugins=NodeRestriction']) t.ok(args.includes(flag), flag);
  t.ok(apiserverArgs({ ...layout, apiserverBindAddress: '0.0.0.0' }).includes('--bind-address=0.0.0.0'));
});

void t.test('the API server runs the aggregation layer: requestheader CA, front-proxy client certificate, endpoint routing', async (t) => {
  const args = apiserverArgs(layout);
  for (const flag of ['--requestheader-client-ca-file=/c/front-proxy-ca.crt', '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-', '--proxy-client-cert-file=/c/front-proxy-client.crt',
    '--proxy-client-key-file=/c/front-proxy-client.key', '--enable-aggregator-routing=true']) t.ok(args.includes(flag), flag);
});

void t.test('the controller manager runs every controller, without leader election, with test node timings', async (t) => {
  const args = controllerManagerArgs(layout);
  for (const flag of ['--controllers=*', '--leader-elect=false', '--secure-port=1004', '--kubeconfig=/d/cm.kubeconfig',
    '--node-monitor-grace-period=20s', '--node-monitor-period=2s', '--root-ca-file=/c/ca.crt']) t.ok(args.includes(flag), flag);
});

void t.test('a cluster CIDR makes the node IPAM controller give Nodes spec.podCIDRs; without one, none (the shared clusters)', async (t) => {
  t.notOk(controllerManagerArgs(layout).some((f) => f.startsWith('--allocate-node-cidrs') || f.startsWith('--cluster-cidr')));
  const args = controllerManagerArgs({ ...layout, clusterCidr: '10.244.0.0/16' });
  for (const flag of ['--allocate-node-cidrs=true', '--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size=24']) t.ok(args.includes(flag), flag);
});

void t.test('the scheduler reads a config file without leader election', async (t) => {
  t.ok(schedulerArgs(layout).includes('--config=/d/s.json'));
  t.ok(schedulerArgs(layout).includes('--secure-port=1005'));
  const config = JSON.parse(schedulerConfig('/d/s.kubeconfig')) as Record<string, unknown>;
  t.same(config, {
    apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'KubeSchedulerConfiguration',
    clientConnection: { kubeconfig: '/d/s.kubeconfig' }, leaderElection: { leaderElect: false },
  });
});

void t.test('metrics-server runs as its identity, on its address, scraping kubelets at InternalIP and their advertised port', async (t) => {
  const args = metricsServerArgs({
    kubeconfig: '/d/ms.kubeconfig', address: '10.213.0.1', port: 4443, serving: pair('ms'), metricResolution: '10s', kubeletRequestTimeout: '5s',
  });
  for (const flag of ['--kubeconfig=/d/ms.kubeconfig', '--authentication-kubeconfig=/d/ms.kubeconfig', '--authorization-kubeconfig=/d/ms.kubeconfig',
    '--bind-address=10.213.0.1', '--secure-port=4443', '--tls-cert-file=/c/ms.crt', '--tls-private-key-file=/c/ms.key',
    '--kubelet-preferred-address-types=InternalIP', '--kubelet-use-node-status-port', '--kubelet-insecure-tls',
    '--metric-resolution=10s', '--kubelet-request-timeout=5s']) t.ok(args.includes(flag), flag);
});
