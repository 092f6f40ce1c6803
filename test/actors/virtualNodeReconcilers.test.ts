/**
 * A provider's reconcilers run in its node's subtree (`<node>/reconcilers/<name>`), like any actor:
 * listed in the tree with their summary, and reconciling the provider's keys. A provider without
 * any adds nothing to the tree.
 */
import { Subject } from 'rxjs';
import t from 'tap';
import type { NodeWatch, PodWatch } from '../../src/adapters/kubernetes/watch.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { startVirtualNode, type VirtualNodeDeps } from '../../src/actors/virtualNode.js';
import { virtualNodeConfig } from '../../src/actors/virtualNodeConfig.js';
import { done, reconcileTrigger, type Reconciler } from '../../src/lib/reconcile.js';
import type { Provider } from '../../src/providers/provider.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import { ManualClock } from '../support/manualClock.js';
import { until } from '../support/until.js';
import { FakeEvents } from './fakes/fakeEvents.js';

/** An API whose every call waits for ever: the node's own actors are not what this test is about. */
const hanging = <T>(): T => new Proxy({}, { get: () => () => new Promise(() => undefined) }) as T;

function fakeWatch<W>(): W {
  return { events: new Subject(), start: () => undefined, stop: async () => 'clean', ready: new Promise(() => undefined), hasSynced: () => false, list: () => [], get: () => undefined } as unknown as W;
}

function deps(provider: Provider, clock: ManualClock): VirtualNodeDeps {
  return {
    provider, nodeApi: hanging(), leaseApi: hanging(), podApi: hanging(), events: new FakeEvents() as unknown as VirtualNodeDeps['events'],
    podWatch: fakeWatch<PodWatch>(), nodeWatch: fakeWatch<NodeWatch>(), clock, logger: silentLogger,
  };
}

function provider(extra: object): Provider {
  const wait = (): Promise<never> => new Promise(() => undefined);
  const methods = ['createPod', 'updatePod', 'deletePod', 'getPod', 'getPodStatus', 'listPods', 'ping', 'capacity', 'nodeInfo'];
  return { name: 'fake', notifyPods: () => undefined, ...Object.fromEntries(methods.map((m) => [m, wait])), ...extra } as unknown as Provider;
}

void t.test('a provider\'s reconcilers are actors of its node\'s subtree, shown in the tree, reconciling its keys', async (t) => {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {} });
  t.teardown(() => sys.stop());
  const seen: string[] = [];
  const trigger = reconcileTrigger();
  const copies: Reconciler = {
    name: 'config-reflection', kind: 'config-reflector', keys: () => ['ConfigMap/shop/app'], connect: trigger.connect,
    reconcile: async (key) => (seen.push(key), done),
  };
  startVirtualNode(sys.root, virtualNodeConfig({ name: 'vn', internalIP: '10.0.0.1' }), deps(provider({ reconcilers: () => [copies] }), clock));
  await until('the level source reconciled', () => seen.length === 1);
  trigger.enqueue('Secret/shop/db');
  await until('an event reconciled', () => seen.length === 2);
  const node = sys.snapshot({ root: 'tether/node-vn', depth: 1 }).map((s) => s.path);
  t.ok(node.includes('tether/node-vn/reconcilers'), 'a group of the node\'s subtree');
  t.match(sys.registry.get('tether/node-vn/reconcilers/config-reflection')?.snapshot(), { kind: 'config-reflector', status: 'running', summary: { keys: 1, failing: 0 } });
});

void t.test('a provider without reconcilers adds nothing to the node\'s subtree', async (t) => {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {} });
  t.teardown(() => sys.stop());
  startVirtualNode(sys.root, virtualNodeConfig({ name: 'vn', internalIP: '10.0.0.1' }), deps(provider({}), clock));
  await until('started', () => sys.registry.get('tether/node-vn/node') !== undefined);
  t.notOk(sys.registry.get('tether/node-vn/reconcilers'));
});
