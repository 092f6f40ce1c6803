/**
 * The node actor running under an ActorSystem with in-memory adapters and a manual clock:
 * what ends up on the Node, how pings drive readiness, re-creation, crashes and shutdown.
 */
import t, { type Test } from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import { silentLogger } from '../../../src/adapters/logger.js';
import { transient } from '../../../src/providers/errors.js';
import type { NodeProvider, NodeResources, ProviderNodeInfo } from '../../../src/providers/provider.js';
import { nodeActor } from '../../../src/actors/node/behavior.js';
import { withNodeDefaults, type NodeConfigInput } from '../../../src/actors/node/config.js';
import type { NodeMsg, Readiness } from '../../../src/actors/node/protocol.js';
import { ActorSystem } from '../../../src/supervisors/actorSystem.js';
import type { ActorRef } from '../../../src/runtime/behavior.js';
import { drain, until } from '../../support/until.js';
import { FakeEvents } from '../fakes/fakeEvents.js';
import { FakeNodeApi } from '../fakes/fakeNodeApi.js';
import { kubeError } from '../fakes/kubeErrors.js';

/** A provider whose ping answers as told: 'ok', a classified failure, a bug, or never. */
class FakeProvider implements NodeProvider {
  readonly name = 'sim';
  mode: 'ok' | 'fail' | 'bug' | 'hang' = 'ok';
  /** Capacity and node info fail too (the whole backend is down), not only ping. */
  factsFail = false;
  /** Capacity never answers (a backend too slow for the deadline). */
  factsHang = false;
  pings = 0;
  resources: NodeResources = { capacity: { cpu: '16', memory: '64Gi', pods: '200' }, allocatable: { cpu: '15', memory: '60Gi', pods: '200' } };

  async ping(signal?: AbortSignal): Promise<void> {
    this.pings++;
    switch (this.mode) {
      case 'ok':
        return;
      case 'fail':
        throw transient('backend unreachable');
      case 'bug':
        throw new TypeError('cannot read properties of undefined');
      case 'hang':
        return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error)));
    }
  }

  async capacity(): Promise<NodeResources> {
    if (this.factsFail) throw transient('backend unreachable');
    if (this.factsHang) return new Promise<never>(() => undefined);
    return this.resources;
  }

  async nodeInfo(): Promise<ProviderNodeInfo> {
    if (this.factsFail) throw transient('backend unreachable');
    return { operatingSystem: 'linux', architecture: 'arm64', kernelVersion: '6.6', osImage: 'Simulated', containerRuntimeVersion: 'sim://0.1' };
  }
}

function setup(t: Test, input: Partial<NodeConfigInput> = {}, before: (api: FakeNodeApi, provider: FakeProvider) => void = () => undefined) {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  t.teardown(() => sys.stop());
  const api = new FakeNodeApi();
  const events = new FakeEvents();
  const provider = new FakeProvider();
  before(api, provider);
  const changes: Readiness[] = [];
  const uids: string[] = [];
  const config = withNodeDefaults({ nodeName: 'vn-1', internalIP: '10.1.2.3', ...input });
  const behavior = nodeActor(
    { nodeApi: api, provider, events, logger: silentLogger, onReadinessChange: (r) => changes.push(r), onRegistered: (n) => uids.push(n.uid) },
    config,
  );
  const ref: ActorRef<NodeMsg> = sys.root.spawn('vn-1', behavior);
  const node = () => api.nodes.get('vn-1');
  const ready = () => node()?.status?.conditions?.find((c) => c.type === 'Ready');
  const summary = () => sys.registry.get(ref.path)?.snapshot().summary;
  return { clock, sys, api, events, provider, changes, uids, ref, node, ready, summary };
}

/** Advances the clock one ping interval at a time, letting the actor work in between. */
async function pingRounds(clock: ManualClock, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    clock.advance(10_000);
    await drain();
  }
}

t.test('the Node registers with the right labels, taint, capacity, addresses and conditions', async (t) => {
  const { node, ready, uids, events, changes } = setup(t, { labels: { team: 'infra' }, kubeletPort: 10260 });
  await until('Ready written', () => ready()?.status === 'True');
  const n = node();
  t.match(n?.metadata?.labels, {
    team: 'infra',
    type: 'virtual-kubelet',
    'kubernetes.io/role': 'agent',
    'node.kubernetes.io/exclude-from-external-load-balancers': 'true',
    'kubernetes.io/hostname': 'vn-1',
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'arm64',
    'tether.dev/provider': 'sim',
  });
  t.same(n?.spec?.taints, [{ key: 'virtual-kubelet.io/provider', value: 'sim', effect: 'NoSchedule' }]);
  t.same(n?.status?.capacity, { cpu: '16', memory: '64Gi', pods: '200' });
  t.same(n?.status?.allocatable, { cpu: '15', memory: '60Gi', pods: '200' });
  t.same(n?.status?.addresses, [{ type: 'InternalIP', address: '10.1.2.3' }]);
  t.same(n?.status?.daemonEndpoints, { kubeletEndpoint: { Port: 10260 } });
  t.match(n?.status?.nodeInfo, { kubeletVersion: 'v1.36.3+tether.0.1.0', architecture: 'arm64', osImage: 'Simulated' });
  t.same(n?.status?.conditions?.map((c) => [c.type, c.status]).sort(), [['DiskPressure', 'False'], ['MemoryPressure', 'False'], ['PIDPressure', 'False'], ['Ready', 'True']]);
  t.equal(ready()?.reason, 'KubeletReady');
  t.same(uids, [n?.metadata?.uid], 'the uid is handed on for the lease');
  t.same(events.reasons(), ['NodeReady']);
  t.same(changes.map((c) => c.ready), [true]);
});

t.test('an existing Node is relabelled, keeping other labels and dropping labels Tether no longer owns', async (t) => {
  const api = new FakeNodeApi();
  await api.createNode({
    metadata: { name: 'vn-1', labels: { mine: 'x', old: 'y', keep: 'z' }, annotations: { 'tether.dev/owned-labels': 'mine,old' } },
    spec: { taints: [] },
  });
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {} });
  t.teardown(() => sys.stop());
  const provider = new FakeProvider();
  sys.root.spawn('vn-1', nodeActor({ nodeApi: api, provider, events: new FakeEvents(), logger: silentLogger }, withNodeDefaults({ nodeName: 'vn-1', internalIP: '10.1.2.3', labels: { mine: 'x2' } })));
  const creates = api.count('createNode');
  await until('registered', () => api.count('patchNodeStatus') > 0);
  const labels = api.nodes.get('vn-1')?.metadata?.labels;
  t.match(labels, { mine: 'x2', keep: 'z', type: 'virtual-kubelet' });
  t.notOk(labels && 'old' in labels, 'a label Tether set before but no longer wants is removed');
  t.equal(api.count('createNode'), creates, 'nothing is created');
  t.same(api.nodes.get('vn-1')?.spec?.taints, [], 'an operator\'s taints on an existing Node are left alone');
});

t.test('failing pings make the node NotReady, recovering pings Ready again; other writers\' conditions survive', async (t) => {
  const { clock, api, provider, ready, changes, events, summary } = setup(t);
  await until('Ready', () => ready()?.status === 'True');
  const node = api.nodes.get('vn-1');
  node?.status?.conditions?.push({ type: 'example.com/NetworkHealthy', status: 'True', reason: 'Probe' });

  provider.mode = 'fail';
  await pingRounds(clock, 2);
  t.equal(ready()?.status, 'True', 'two failures are tolerated');
  await pingRounds(clock, 1);
  await until('NotReady written', () => ready()?.status === 'False');
  t.equal(ready()?.reason, 'ProviderUnreachable');
  t.match(ready()?.message, /backend unreachable/);
  t.match(summary(), { ready: false, consecutiveFailures: 3, lastPing: 'backend unreachable', registered: true });
  t.same(changes.map((c) => c.ready), [true, false]);
  t.same(events.reasons(), ['NodeReady', 'NodeNotReady']);

  provider.mode = 'ok';
  await pingRounds(clock, 1);
  t.equal(ready()?.status, 'False', 'one success is not enough');
  await pingRounds(clock, 1);
  await until('Ready again', () => ready()?.status === 'True');
  t.same(changes.map((c) => c.ready), [true, false, true]);
  t.ok(
    api.nodes.get('vn-1')?.status?.conditions?.some((c) => c.type === 'example.com/NetworkHealthy'),
    'a condition added by another writer survives Tether\'s status updates',
  );
});

t.test('a ping that does not answer in time is aborted and counts as a failure', async (t) => {
  const { clock, provider, ready, summary } = setup(t, { ping: { failureThreshold: 1 } });
  await until('Ready', () => ready()?.status === 'True');
  provider.mode = 'hang';
  await pingRounds(clock, 1);
  clock.advance(5_000);
  await until('NotReady written', () => ready()?.status === 'False');
  t.match(ready()?.message, /ping timed out after 5000 ms/);
  t.match(summary(), { lastPing: 'ping timed out after 5000 ms' });
});

t.test('the heartbeat is written every statusIntervalMs', async (t) => {
  const { clock, api, ready } = setup(t);
  await until('Ready', () => ready()?.status === 'True');
  const writes = api.count('patchNodeStatus');
  const transition = ready()?.lastTransitionTime?.getTime();
  await pingRounds(clock, 5);
  t.equal(api.count('patchNodeStatus'), writes, 'no writes without a change before the interval');
  await pingRounds(clock, 1);
  await until('heartbeat', () => api.count('patchNodeStatus') === writes + 1);
  t.equal(ready()?.lastHeartbeatTime?.getTime(), clock.now());
  t.equal(ready()?.lastTransitionTime?.getTime(), transition, 'lastTransitionTime only changes on a flip');
});

t.test('a failed status write is retried with backoff', async (t) => {
  const { clock, api, ready, provider } = setup(t, { ping: { failureThreshold: 1 } });
  await until('Ready', () => ready()?.status === 'True');
  const writes = api.count('patchNodeStatus');
  api.failNext('patchNodeStatus', kubeError('transient'));
  provider.mode = 'fail';
  await pingRounds(clock, 1);
  await until('the write was attempted', () => api.count('patchNodeStatus') === writes + 1);
  await drain();
  t.equal(ready()?.status, 'True', 'the failed write left the old status');
  clock.advance(159);
  await drain();
  t.equal(api.count('patchNodeStatus'), writes + 1, 'not before the backoff (200 ms less its 20 % jitter)');
  clock.advance(81);
  await until('retried', () => ready()?.status === 'False');
});

t.test('deleting the Node makes Tether re-create it', async (t) => {
  const { ref, api, ready, uids, events } = setup(t);
  await until('Ready', () => ready()?.status === 'True');
  const old = api.remove('vn-1');
  ref.tell({ type: 'node.observed', node: undefined, deletedUid: old?.metadata?.uid ?? '' });
  await until('re-created and Ready', () => ready()?.status === 'True');
  t.equal(api.count('createNode'), 2);
  t.not(api.nodes.get('vn-1')?.metadata?.uid, old?.metadata?.uid);
  t.equal(uids.length, 2, 'the new uid is handed on');
  t.ok(events.reasons().includes('NodeRecreated'));
});

t.test('an unclassified provider error crashes the actor; a classified one does not', async (t) => {
  const { clock, sys, ref, provider, ready } = setup(t);
  await until('Ready', () => ready()?.status === 'True');
  provider.mode = 'fail';
  await pingRounds(clock, 1);
  t.equal(sys.registry.get(ref.path)?.snapshot().restarts, 0, 'a classified failure is an unhealthy ping');
  provider.mode = 'bug';
  await pingRounds(clock, 1);
  await until('crashed', () => sys.registry.get(ref.path)?.snapshot().lastError !== null);
  t.match(sys.registry.get(ref.path)?.snapshot().lastError, { message: /cannot read properties/ });
});

t.test('shutdown stops pinging and deletes the Node only if asked', async (t) => {
  const { clock, ref, api, provider, ready } = setup(t);
  await until('Ready', () => ready()?.status === 'True');
  ref.tell({ type: 'node.shutdown', deleteNode: false });
  await drain();
  const pings = provider.pings;
  const writes = api.count('patchNodeStatus');
  await pingRounds(clock, 7);
  t.equal(provider.pings, pings, 'no more pings');
  t.equal(api.count('patchNodeStatus'), writes, 'no more status writes');
  t.ok(api.nodes.has('vn-1'), 'the Node stays');

  const other = setup(t);
  await until('Ready', () => other.ready()?.status === 'True');
  other.ref.tell({ type: 'node.shutdown', deleteNode: true });
  await until('deleted and stopped', () => other.summary()?.phase === 'stopped');
  t.notOk(other.api.nodes.has('vn-1'), 'deleted when asked');
});

t.test('started during a provider outage, Tether adopts the existing Node and writes NotReady (issue 13)', async (t) => {
  const { clock, ready, uids } = setup(t, {}, (api, provider) => {
    // A Node left Ready=True by a Tether that was killed; the provider is down when the new one starts.
    api.nodes.set('vn-1', { metadata: { name: 'vn-1', uid: 'old-uid', resourceVersion: '1', labels: { type: 'virtual-kubelet' } }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } });
    provider.mode = 'fail';
    provider.factsFail = true;
  });
  await pingRounds(clock, 4);
  await until('NotReady written', () => ready()?.status === 'False');
  t.equal(ready()?.reason, 'ProviderUnreachable');
  t.same(uids, ['old-uid'], 'registered (so the Lease is renewed) without the provider\'s facts');
});

t.test('provider facts that miss their deadline are a failed refresh, not a crash that re-stamps Ready (issue 13)', async (t) => {
  const { clock, provider, ready, ref, sys } = setup(t);
  await until('Ready', () => ready()?.status === 'True');
  const since = ready()?.lastTransitionTime;
  provider.factsHang = true;
  await pingRounds(clock, 8);
  t.equal(sys.registry.get(ref.path)?.snapshot().restarts, 0, 'the node actor did not crash');
  t.equal(ready()?.status, 'True');
  t.same(ready()?.lastTransitionTime, since, 'the Ready transition time stands');
});

/** A Tether that ran Ready with `before`, shut down keeping its Node, and one started beside it with `after`. */
async function restartedBeside(t: Test, before: Partial<NodeConfigInput>, after: Partial<NodeConfigInput>) {
  const first = setup(t, before);
  await until('Ready', () => first.ready()?.status === 'True');
  first.ref.tell({ type: 'node.shutdown', deleteNode: false });
  await drain();
  const left = first.api.nodes.get('vn-1')!;
  const again = setup(t, after, (api) => void api.nodes.set('vn-1', structuredClone(left)));
  await until('the heartbeat written', () => again.api.count('patchNodeStatus') > 0);
  return { left, again };
}

t.test('restarted beside the Ready Node it left, Tether writes its status heartbeat only: no label patch, no NodeReady Event (issue 16)', async (t) => {
  const { left, again } = await restartedBeside(t, { labels: { team: 'infra' } }, { labels: { team: 'infra' } });
  await pingRounds(again.clock, 2);
  t.equal(again.api.count('patchNodeMetadata'), 0, 'the labels are already what Tether wants: nothing to patch');
  t.equal(again.api.count('createNode'), 0);
  t.same(again.events.reasons(), [], 'Ready before the restart and after: no NodeReady Event');
  t.equal(again.ready()?.status, 'True');
  t.same(again.ready()?.lastTransitionTime, left.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime, 'the transition time stands');
  t.equal(again.api.count('patchNodeStatus'), 1, 'one status write: the heartbeat a starting kubelet also writes');
});

t.test('restarted beside a Node whose labels are not Tether\'s any more, Tether patches them once', async (t) => {
  const { again } = await restartedBeside(t, { labels: { team: 'infra' } }, { labels: { team: 'web' } });
  t.equal(again.api.count('patchNodeMetadata'), 1);
  t.equal(again.node()?.metadata?.labels?.['team'], 'web');
});

t.test('restarted beside a Node left NotReady, Tether records NodeReady once the provider answers', async (t) => {
  const again = setup(t, {}, (api) => {
    api.nodes.set('vn-1', { metadata: { name: 'vn-1', uid: 'old-uid', resourceVersion: '1', labels: { type: 'virtual-kubelet' } }, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'ProviderUnreachable', lastTransitionTime: new Date(Date.now() - 60_000) }] } });
  });
  await until('Ready written', () => again.ready()?.status === 'True');
  t.same(again.events.reasons(), ['NodeReady']);
});
