/**
 * Address safety learns both clusters' CIDRs again (addresses/addressSafety.ts): once at start,
 * then at each later hold of the node's lock and every REFRESH_NETWORKS_MS while the node is
 * driven, so ServiceCIDRs added to a cluster, or a side that could not be read at start, are
 * seen without a restart; a kind known before and unreadable now stays as it was known. Mock
 * API servers answer the Nodes and ServiceCIDRs.
 */
import t, { type Test } from 'tap';
import { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { noopKubeLog } from '../../../../src/adapters/kubernetes/log.js';
import { AddressSafety, REFRESH_NETWORKS_MS } from '../../../../src/providers/kubernetes/addresses/addressSafety.js';
import { KubernetesProvider } from '../../../../src/providers/kubernetes/index.js';
import { MockApiServer } from '../../../adapters/kubernetes/mockApiServer.js';
import { ManualClock } from '../../../support/manualClock.js';
import { until } from '../../../support/until.js';

const SERVICE_CIDRS = '/apis/networking.k8s.io/v1/servicecidrs';

/** A cluster whose ServiceCIDRs the test sets (`undefined`: the list is forbidden); lists of anything else answer empty, watches hang. */
async function cluster(t: Test, serviceCidrs: { now: string[] | undefined }, pods: string[] = []): Promise<MockApiServer> {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => {
    if (r.method !== 'GET') return undefined;
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.url.pathname === SERVICE_CIDRS) {
      return serviceCidrs.now
        ? { body: { metadata: {}, items: serviceCidrs.now.map((c, i) => ({ metadata: { name: `s${i}` }, spec: { cidrs: [c] } })) } }
        : { status: 403, body: { kind: 'Status', code: 403, reason: 'Forbidden', message: 'servicecidrs is forbidden' } };
    }
    if (r.url.pathname === '/api/v1/nodes') return { body: { metadata: {}, items: [{ metadata: { name: 'n' }, spec: { podCIDRs: pods } }] } };
    return { body: { metadata: { resourceVersion: '1' }, items: [] } };
  });
  return server;
}

async function safety(t: Test, remoteCidrs: { now: string[] | undefined }): Promise<AddressSafety> {
  const host = await cluster(t, { now: ['10.96.0.0/12'] }, ['10.244.0.0/16']);
  const remote = await cluster(t, remoteCidrs, ['10.88.0.0/16']);
  const clients = [new ClusterClient(host.kubeConfig()), new ClusterClient(remote.kubeConfig())] as const;
  t.teardown(() => Promise.all(clients.map((c) => c.stop())));
  return new AddressSafety({ nodeName: 'vk', host: clients[0], remote: clients[1], blankPodIPs: false, log: noopKubeLog });
}

const services = (n: Awaited<ReturnType<AddressSafety['learn']>>): unknown => (n.remote.services.known ? n.remote.services.cidrs.map((c) => c.text) : n.remote.services.why);

t.test('a ServiceCIDR added to the remote is seen at the next relearn, and its addresses are kept out of remote slices from then on', async (t) => {
  const remoteCidrs = { now: ['10.0.0.0/24'] as string[] | undefined };
  const s = await safety(t, remoteCidrs);
  t.same(services(await s.learn()), ['10.0.0.0/24']);
  t.equal(s.hostAddress('10.1.0.7'), '10.1.0.7', 'a host address outside the remote\'s CIDRs is copied');
  remoteCidrs.now = ['10.0.0.0/24', '10.1.0.0/24'];
  t.same(services(await s.learn()), ['10.0.0.0/24'], 'learn() answers from what was learnt');
  t.same(services(await s.relearn()), ['10.0.0.0/24', '10.1.0.0/24'], 'relearn() reads the clusters again');
  t.same(services(await s.learn()), ['10.0.0.0/24', '10.1.0.0/24'], 'and learn() answers the new CIDRs after it');
  t.equal(s.hostAddress('10.1.0.7'), undefined, 'an address inside the new remote ServiceCIDR is not copied');
});

t.test('a side unreadable at start is known once it can be read; a side known before keeps its CIDRs through a failed read', async (t) => {
  const remoteCidrs = { now: undefined as string[] | undefined };
  const s = await safety(t, remoteCidrs);
  t.match(services(await s.learn()), /forbidden/);
  remoteCidrs.now = ['10.0.0.0/24'];
  t.same(services(await s.relearn()), ['10.0.0.0/24'], 'readable now: known');
  remoteCidrs.now = undefined;
  t.same(services(await s.relearn()), ['10.0.0.0/24'], 'unreadable again: kept as known');
  t.equal(s.hostAddress('10.0.0.9'), undefined, 'and the filter still holds');
});

t.test('the provider reads both clusters\' CIDRs again at each later hold of the lock and on a bounded refresh while it drives', async (t) => {
  const clock = new ManualClock();
  const host = await cluster(t, { now: ['10.96.0.0/12'] });
  const remote = await cluster(t, { now: ['10.0.0.0/24'] });
  const provider = new KubernetesProvider({ nodeName: 'vk-1', hostClusterId: 'home', host: host.kubeConfig(), remote: remote.kubeConfig(), fenced: true, clock });
  t.teardown(() => provider.stop());
  const reads = (): number => remote.matching('GET', SERVICE_CIDRS).length;
  await provider.preflight();
  t.equal(reads(), 1, 'read once by the start checks');
  await provider.openWrites();
  provider.notifyPods(() => undefined);
  await until('the remote pods listed', () => provider.hasSynced(), 10_000);
  t.equal(reads(), 1, 'the first hold uses the start checks\' read');
  provider.fenceWrites('the lock of node vk-1 was lost');
  await provider.openWrites();
  await until('read again by the next hold', () => reads() === 2, 10_000);
  // The refresh timer is set once the hold's read is in: time moves on until it fires.
  await until('read again by the refresh', () => {
    clock.advance(REFRESH_NETWORKS_MS);
    return reads() === 3;
  }, 10_000);
});
