/**
 * ConfigMap/Secret reflection as reconcilers: a host deletion takes the copy with it, a failed
 * write is retried after its backoff (not only at the next change), and both loops are actors of
 * the node's subtree, with their summaries.
 */
import t from 'tap';
import { until, drain } from '../../../support/until.js';
import { configMapWorld, offloaded, type ConfigMapWorld } from './configMapWorld.js';

async function listed(world: ConfigMapWorld): Promise<void> {
  await offloaded(world);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([world.source]);
  world.watch('/api/v1/configmaps').listed([world.copy]);
  await drain();
}

void t.test('a referenced host ConfigMap deleted on the host takes its copy with it', async (t) => {
  const world = configMapWorld(t);
  await listed(world);
  world.watch('/api/v1/namespaces/shop/configmaps').deleted(world.source);
  await until('the copy deleted', () => world.writes.includes('delete shop-home/app-config'));
  t.same(world.writes, ['shop-home/app-config=v1', 'delete shop-home/app-config']);
  await world.reflector.stop();
});

void t.test('a write the remote fails is retried after its backoff, without waiting for another change', async (t) => {
  const world = configMapWorld(t);
  await listed(world);
  world.failNextWrite();
  const source = { ...world.source, metadata: { ...world.source.metadata, resourceVersion: '4' }, data: { 'app.conf': 'v2' } };
  world.watch('/api/v1/namespaces/shop/configmaps').modified(source);
  const attempts = (): number => world.writes.filter((w) => w.startsWith('replace shop-home/app-config=v2')).length;
  await until('the first attempt', () => attempts() === 1);
  await drain();
  const summary = (): Record<string, unknown> => world.system.registry.get('tether/node-test/reconcilers/config-reflection')?.snapshot().summary ?? {};
  await until('recorded as failing', () => summary()['failing'] === 1);
  t.equal(summary()['lastError'], 'shop/ConfigMap/app-config: write remote configmap shop-home/app-config: 500 InternalError: update remote configmap shop-home/app-config: HTTP 500');
  world.clock.advance(1_200); // the first backoff step: 1 s, jitter 0.2
  await until('retried', () => attempts() === 2);
  await until('in sync again', () => summary()['failing'] === 0);
  await world.reflector.stop();
});

void t.test('both reflection loops are actors of the node\'s subtree, shown with their summaries', async (t) => {
  const world = configMapWorld(t);
  await listed(world);
  const tree = world.system.snapshot({ root: 'tether/node-test/reconcilers' });
  t.same(tree.map((s) => `${s.name} ${s.kind} ${s.status}`), ['reconcilers reconcilers running', 'config-reflection config-reflector running', 'config-sweep config-sweep running']);
  t.match(tree[1]?.summary, { queued: 0, inFlight: 0, failing: 0, lastError: null });
  t.match(tree[2]?.summary, { keys: 1 }, 'the sweep is one key');
  await world.reflector.stop();
});
