import t from 'tap';
import { firstServiceIp } from '../../src/harness/controlPlane.js';
import { blockAddresses } from '../../src/harness/networkNamespace.js';
import { isLive, uniqueNamespace, type SharedClustersState } from './sharedClusters.js';

void t.test('the kubernetes Service IP is the first address of the service range', async (t) => {
  t.equal(firstServiceIp('10.0.0.0/24'), '10.0.0.1');
  t.equal(firstServiceIp('10.96.0.0/12'), '10.96.0.1');
  t.equal(firstServiceIp('192.168.255.255/32'), '192.169.0.0');
  t.throws(() => firstServiceIp('fd00::/108'), /not an IPv4 CIDR/);
});

void t.test('namespace /30 blocks: host side .1, namespace side .2, inside 10.213.0.0/16', async (t) => {
  t.same(blockAddresses(0), { network: '10.213.0.0', hostAddress: '10.213.0.1', namespaceAddress: '10.213.0.2' });
  t.same(blockAddresses(65), { network: '10.213.1.4', hostAddress: '10.213.1.5', namespaceAddress: '10.213.1.6' });
  t.same(blockAddresses(16_383), { network: '10.213.255.252', hostAddress: '10.213.255.253', namespaceAddress: '10.213.255.254' });
  t.throws(() => blockAddresses(16_384), RangeError);
});

void t.test('unique namespaces are valid DNS labels with a random suffix', async (t) => {
  const a = uniqueNamespace('Control Plane_Test');
  t.match(a, /^control-plane-test-[0-9a-f]{6}$/);
  t.not(a, uniqueNamespace('Control Plane_Test'));
});

void t.test('a shared-cluster state is live only while every component runs', async (t) => {
  const pids = { 'etcd': 1, 'kube-apiserver': 2, 'kube-controller-manager': 3, 'kube-scheduler': 4 };
  const cluster = { name: 'x', dir: '/x', server: 's', kubeconfigPath: 'k', caCertPath: 'c', adminToken: 't', tokens: [], pids, kubectlPath: 'kubectl' };
  const state: SharedClustersState = { ownerPid: 1, watchdogPid: 1, startedAt: '', startupMs: 0, clusters: { host: cluster, remote: cluster } };
  t.ok(isLive(state, () => true));
  t.notOk(isLive(state, (pid) => pid !== 3));
  t.notOk(isLive({ ...state, clusters: { host: cluster, remote: { ...cluster, pids: { ...pids, etcd: 0 } } } }, () => true));
});
