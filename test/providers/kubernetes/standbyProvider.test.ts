/**
 * High availability at the provider (issue 26): a Kubernetes provider built `fenced` is a standby
 * from construction. Whatever calls it (the kubelet API's logs, the node's pod calls), it runs no
 * informer, sweep or reflection pass and sends no write to either cluster; kubelet sessions are
 * answered with reads. `openWrites` (the lock is held) lets it drive; `fenceWrites` (the lock is
 * lost) closes its watches, and the next `openWrites` starts them again. Two mock API servers.
 */
import t, { type Test } from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { KubernetesProvider } from '../../../src/providers/kubernetes/index.js';
import { providerKindOf } from '../../../src/providers/errors.js';
import type { PodNotification } from '../../../src/providers/provider.js';
import { MockApiServer, type Recorded } from '../../adapters/kubernetes/mockApiServer.js';
import { until } from '../../support/until.js';
import { ownedRemotePod } from '../../support/ownedRemotePod.js';

const remotePod = ownedRemotePod();

const hostPod: Pod = {
  metadata: { name: 'web-2', namespace: 'shop', uid: 'host-uid-2' },
  spec: { containers: [{ name: 'app', image: 'x' }], volumes: [{ name: 'conf', configMap: { name: 'app-config' } }] },
};

/** Every GET with `watch=true` is held open; every list answers empty, but the remote pods. */
function serve(server: MockApiServer, pods: readonly unknown[]): void {
  server.route((r) => {
    if (r.method !== 'GET') return undefined;
    if (r.url.searchParams.get('watch') === 'true') return 'watch';
    if (r.url.pathname === '/api/v1/pods') return { body: { metadata: { resourceVersion: '7' }, items: pods } };
    if (r.url.pathname === '/api/v1/namespaces/shop-home/pods/web-1') return { body: remotePod };
    if (r.url.pathname.endsWith('/log')) return { body: 'hello' };
    if (r.url.pathname === '/api/v1/namespaces/shop/configmaps/app-config') return { body: { metadata: { name: 'app-config', namespace: 'shop', uid: 'cm' }, data: { a: 'b' } } };
    if (/\/(services|endpointslices|configmaps|secrets|events)$/.test(r.url.pathname)) return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    return undefined;
  });
}

async function world(t: Test) {
  const host = await MockApiServer.start();
  const remote = await MockApiServer.start();
  t.teardown(() => Promise.all([host.close(), remote.close()]));
  serve(remote, [remotePod]);
  serve(host, []);
  const provider = new KubernetesProvider({
    nodeName: 'vk-1', hostClusterId: 'home', host: host.kubeConfig(), remote: remote.kubeConfig(), fenced: true,
    onRemoteEvent: () => undefined, reflection: { sweepMs: 60_000, minAgeMs: 0, sweepDelayMs: 0 },
  });
  t.teardown(() => provider.stop());
  return { host, remote, provider };
}

const writes = (server: MockApiServer): Recorded[] => server.requests.filter((r) => r.method !== 'GET');
const watchesOf = (server: MockApiServer): Recorded[] => server.requests.filter((r) => r.url.searchParams.get('watch') === 'true');
const lists = (server: MockApiServer, pathname: string): number => server.matching('GET', pathname).filter((r) => r.url.searchParams.get('watch') !== 'true').length;

async function drain(iterable: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const chunk of iterable) out += chunk;
  return out;
}

t.test('a provider built fenced is a standby: a kubelet session reads the pod, and nothing starts an informer, a sweep or a write', async (t) => {
  const { host, remote, provider } = await world(t);
  const notified: PodNotification[] = [];
  provider.notifyPods((n) => notified.push(n));
  const pod = await provider.getPod('shop', 'web-1');
  t.equal(pod?.metadata?.uid, 'host-uid', 'the kubelet session finds the pod under its host identity');
  t.match(await drain(await provider.getContainerLogs('shop', 'web-1', 'app', {})), /hello/, 'its logs are read through the remote API');
  const created = await provider.createPod(hostPod).then(() => undefined, (e: unknown) => e);
  t.equal(providerKindOf(created), 'transient', 'a pod call on a standby is refused, to retry');
  t.equal(providerKindOf(await provider.listPods().then(() => undefined, (e: unknown) => e)), 'transient', 'a standby lists no pods: it runs no informer');
  t.equal(providerKindOf(await provider.getStatsSummary().then(() => undefined, (e: unknown) => e)), 'transient', 'nor stats');
  t.same(writes(remote), [], 'no write reached the remote');
  t.same(writes(host), [], 'no write reached the host');
  t.same(watchesOf(remote), [], 'no remote watch');
  t.same(watchesOf(host), [], 'no host watch');
  t.equal(lists(remote, '/api/v1/pods'), 0, 'the remote pods were not listed');
  t.notOk(provider.driving, 'the provider does not drive the node');
  t.same(notified, [], 'nothing was notified');
});

t.test('openWrites drives the node; fenceWrites closes every watch, fenced first; openWrites starts them again, fresh', async (t) => {
  const { host, remote, provider } = await world(t);
  const notified: PodNotification[] = [];
  await provider.openWrites();
  provider.notifyPods((n) => notified.push(n));
  const firstLoops = provider.reconcilers();
  await until('the remote pods listed and watched', () => provider.hasSynced() && remote.openWatches().some((w) => w.url.pathname === '/api/v1/pods'), 10_000);
  await until('the Service copies and the namespace\'s host Services watched', () => remote.openWatches().length >= 3 && host.openWatches().length >= 1, 10_000);
  const created = await provider.createPod(hostPod).then(() => 'created', (e: unknown) => e);
  t.not(writes(remote).length, 0, `a driving provider writes to the remote (${String(created)})`);

  provider.fenceWrites('the lock of node vk-1 was lost');
  const remoteWritesAtFence = writes(remote).length;
  const hostWritesAtFence = writes(host).length;
  t.notOk(provider.driving, 'no longer driving');
  await until('every watch closed', () => remote.openWatches().length === 0 && host.openWatches().length === 0, 10_000);
  t.equal(providerKindOf(await provider.createPod(hostPod).then(() => undefined, (e: unknown) => e)), 'transient', 'a pod call after the loss is refused');
  t.equal((await provider.getPod('shop', 'web-1'))?.metadata?.uid, 'host-uid', 'a kubelet session is still answered, by a read');
  t.equal(remote.openWatches().length + host.openWatches().length, 0, 'and it opened no watch');
  t.equal(writes(remote).length, remoteWritesAtFence, 'no remote write after the fence');
  t.equal(writes(host).length, hostWritesAtFence, 'no host write after the fence');

  const watchesBefore = remote.watches.length;
  await provider.openWrites();
  provider.notifyPods((n) => notified.push(n));
  t.not(provider.reconcilers()[0], firstLoops[0], 'the next hold has loops of its own');
  await until('the remote pods watched again', () => remote.openWatches().some((w) => w.url.pathname === '/api/v1/pods') && remote.watches.length > watchesBefore, 10_000);
  t.ok(provider.driving);
});

t.test('a lock lost and taken back at once: writes reopen only once the last hold\'s parts have stopped, so its pod call still running writes nothing', async (t) => {
  const { host, remote, provider } = await world(t);
  remote.route((r) => (r.method === 'POST' ? { status: 201, body: JSON.parse(r.body) as unknown } : undefined));
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const configMap = '/api/v1/namespaces/shop/configmaps/app-config';
  host.route((r) => (r.method === 'GET' && r.url.pathname === configMap
    ? released.then(() => ({ body: { metadata: { name: 'app-config', namespace: 'shop', uid: 'cm', resourceVersion: '3' }, data: { a: 'b' } } }))
    : undefined));
  await provider.openWrites();
  provider.notifyPods(() => undefined);
  await until('the remote pods listed', () => provider.hasSynced(), 10_000);
  const call = provider.createPod(hostPod).then(() => 'created', (e: unknown) => e);
  await until('the first hold\'s create is reading the ConfigMap from the host', () => host.matching('GET', configMap).length > 0, 10_000);

  provider.fenceWrites('the lock of node vk-1 was lost');
  const reopened = provider.openWrites();
  release();
  t.equal(providerKindOf(await call), 'transient', 'the first hold\'s call, still running, is refused by the fence');
  t.same(remote.matching('POST', '/api/v1/namespaces/shop-home/pods'), [], 'its pod never reached the remote');
  t.same(remote.matching('POST', '/api/v1/namespaces/shop-home/configmaps'), [], 'nor its ConfigMap copy');
  await reopened;
  t.ok(provider.driving, 'the next hold drives the node once the first one\'s parts stopped');
  t.equal(await provider.createPod(hostPod).then(() => 'created', (e: unknown) => e), 'created', 'and its own calls write');
});
