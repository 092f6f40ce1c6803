/**
 * The Service reflector's bookkeeping of namespaces with offloaded pods, on a manual clock: a
 * namespace whose last pod went keeps its copies for `lingerMs` (a Deployment replacing all its
 * pods at once keeps its Services), a pod coming back in time cancels the release, and with the
 * `none` switch nothing is tracked. The clusters are a mock API server that lists nothing.
 */
import t, { type Test } from 'tap';
import { ClusterClient } from '../../../src/providers/kubernetes/clusterClient.js';
import { REFLECTED_KINDS, type ReflectedKind } from '../../../src/providers/kubernetes/reflectionPlan.js';
import { ServiceReflector } from '../../../src/providers/kubernetes/serviceReflector.js';
import { MockApiServer } from '../../adapters/kubernetes/mockApiServer.js';
import { ManualClock } from '../../support/manualClock.js';

const silentLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

async function reflector(t: Test, kinds: readonly ReflectedKind[] = REFLECTED_KINDS): Promise<{ reflector: ServiceReflector; clock: ManualClock }> {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'GET' && r.url.searchParams.get('watch') !== 'true' ? { body: { metadata: { resourceVersion: '1' }, items: [] } } : 'hang'));
  const clock = new ManualClock();
  const client = new ClusterClient(server.kubeConfig(), { clock });
  t.teardown(() => client.stop());
  const r = new ServiceReflector({
    host: client, remote: client, marks: { hostClusterId: 'home', nodeName: 'vk-1' }, kinds: new Set(kinds),
    remoteNamespaceOf: (ns) => `${ns}-home`, lookup: () => undefined, events: { record: () => undefined },
    clock, log: silentLog, lingerMs: 30_000,
  });
  t.teardown(() => r.stop());
  return { reflector: r, clock };
}

const tracked = (r: ServiceReflector): Record<string, number> => Object.fromEntries(r.state().map((s) => [s.namespace, s.offloadedPods]));

t.test('the last pod gone: the namespace lingers for lingerMs, then is released', async (t) => {
  const { reflector: r, clock } = await reflector(t);
  r.podAppeared('shop/web-1', 'shop');
  r.podAppeared('shop/web-2', 'shop');
  t.same(tracked(r), { shop: 2 });
  r.podGone('shop/web-1', 'shop');
  r.podGone('shop/web-2', 'shop');
  const goneAt = clock.now();
  clock.advance(29_999);
  t.same(tracked(r), { shop: 0 }, 'still reflected just before lingerMs');
  t.equal(r.state()[0]?.releasesAt, goneAt + 30_000, 'the release is due lingerMs after the last pod went');
  r.podAppeared('shop/web-3', 'shop');
  clock.advance(60_000);
  t.same(tracked(r), { shop: 1 }, 'a pod back in time cancels the release');
  t.equal(r.state()[0]?.releasesAt, undefined);
  r.podGone('shop/web-3', 'shop');
  clock.advance(30_000);
  t.same(tracked(r), { shop: 0 }, 'released, with a pass pending to delete its copies');
  for (let i = 0; i < 3; i++) { // the coalescing delay, and the pass (asynchronous), which finds nothing to keep
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(50);
  }
  await new Promise((resolve) => setImmediate(resolve));
  t.same(tracked(r), {}, 'after the pass: nothing tracked, nothing wanted');
});

t.test('with the none switch nothing is tracked', async (t) => {
  const { reflector: r } = await reflector(t, []);
  t.notOk(r.enabled);
  r.podAppeared('shop/web-1', 'shop');
  t.same(r.state(), []);
});
