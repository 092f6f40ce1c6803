/**
 * The node actor's decisions, message by message: readiness from pings, status writes and their
 * retries, registration and re-creation, shutdown. Pure: no runtime, no clock, no fakes.
 */
import t from 'tap';
import type { Node, NodeCondition, NodeStatus } from '../../../src/adapters/kubernetes/model.js';
import { withNodeDefaults } from '../../../src/actors/node/config.js';
import { decideNode, initialNodeState, startNode, type NodeStep } from '../../../src/actors/node/decide.js';
import type { NodeSettings } from '../../../src/actors/node/nodeObject.js';
import type { NodeEffect, NodeFacts, NodeMsg, NodeState } from '../../../src/actors/node/protocol.js';

const settings: NodeSettings = { config: withNodeDefaults({ nodeName: 'vn-1', internalIP: '10.0.0.7' }), providerName: 'sim' };
const facts: NodeFacts = {
  resources: { capacity: { cpu: '8', memory: '32Gi', pods: '110' }, allocatable: { cpu: '7', memory: '30Gi', pods: '110' } },
  info: { operatingSystem: 'linux', architecture: 'amd64', kernelVersion: '6.1', osImage: 'sim', containerRuntimeVersion: 'sim://1' },
};
const T0 = 1_000_000;

const ok: NodeMsg = { type: 'node.pinged' };
const fail = (error = 'connection refused'): NodeMsg => ({ type: 'node.ping-failed', error });
const storedNode = (uid: string, conditions: NodeCondition[] = []): Node => ({ metadata: { name: 'vn-1', uid }, status: { conditions } });
const registeredMsg = (uid = 'uid-1', created = true, conditions: NodeCondition[] = []): NodeMsg => ({ type: 'node.registered', node: storedNode(uid, conditions), facts, created });

/** Feeds messages one by one (one ms apart), collecting every effect. */
function run(state: NodeState, msgs: readonly NodeMsg[], now = T0): { state: NodeState; effects: NodeEffect[]; last: NodeEffect[] } {
  const effects: NodeEffect[] = [];
  let last: readonly NodeEffect[] = [];
  let s = state;
  msgs.forEach((msg, i) => {
    const step: NodeStep = decideNode(settings, s, msg, now + i);
    s = step.state;
    last = step.effects ?? [];
    effects.push(...last);
  });
  return { state: s, effects, last: [...last] };
}

const started = (): NodeState => startNode(settings, initialNodeState(), T0).state;
/** Started, registered, first status write done. */
const registered = (): NodeState => run(started(), [registeredMsg(), { type: 'node.status-written' }]).state;
/** Registered and Ready, with every write settled. */
const readyNode = (): NodeState => run(registered(), [ok, { type: 'node.status-written' }]).state;

const of = <K extends NodeEffect['type']>(effects: readonly NodeEffect[], type: K): Array<Extract<NodeEffect, { type: K }>> =>
  effects.filter((e): e is Extract<NodeEffect, { type: K }> => e.type === type);
const readyCondition = (status: Partial<NodeStatus> | undefined): NodeCondition | undefined => status?.conditions?.find((c) => c.type === 'Ready');

/** A first retry: 200 ms with ±20 % jitter (exactly 200 would mean no jitter, unless by chance). */
function jittered200(effects: readonly unknown[]): boolean {
  const ms = (effects[0] as { ms?: number } | undefined)?.ms ?? 0;
  return ms >= 160 && ms <= 240;
}

t.test('start: registers, pings at once, and starts the ping and status timers', async (t) => {
  const step = startNode(settings, initialNodeState(), T0);
  t.same(step.effects, [
    { type: 'register' },
    { type: 'ping' },
    { type: 'schedule', ms: 10_000, msg: { type: 'node.ping-tick' } },
    { type: 'schedule', ms: 60_000, msg: { type: 'node.status-tick' } },
  ]);
  t.equal(step.state.pingInFlight, true);
});

t.test('readiness from pings', async (t) => {
  const table: Array<{ name: string; from: () => NodeState; msgs: NodeMsg[]; ready: boolean | undefined; announced: boolean; message?: RegExp }> = [
    { name: 'the first successful ping makes the node Ready', from: registered, msgs: [ok], ready: true, announced: true },
    { name: 'the first failed ping makes a starting node NotReady at once', from: registered, msgs: [fail()], ready: false, announced: true, message: /connection refused/ },
    { name: '2 failed pings leave a Ready node Ready', from: readyNode, msgs: [fail(), fail()], ready: true, announced: false },
    { name: '3 failed pings turn Ready False with the ping\'s error as message', from: readyNode, msgs: [fail(), fail(), fail('ping timed out after 5000 ms')], ready: false, announced: true, message: /3 consecutive pings: ping timed out after 5000 ms/ },
    { name: 'a success between failures resets the failure count', from: readyNode, msgs: [fail(), fail(), ok, fail(), fail()], ready: true, announced: false },
  ];
  for (const row of table) {
    t.test(row.name, async (t) => {
      const { state, effects } = run(row.from(), row.msgs);
      t.equal(state.readiness?.ready, row.ready);
      t.equal(of(effects, 'announce').length, row.announced ? 1 : 0, 'announced only on a change');
      if (row.message) t.match(state.readiness?.message, row.message);
    });
  }
});

t.test('recovery needs successThreshold consecutive successes', async (t) => {
  const notReady = run(readyNode(), [fail(), fail(), fail(), { type: 'node.status-written' }]).state;
  t.equal(notReady.readiness?.ready, false);
  t.equal(notReady.readiness?.reason, 'ProviderUnreachable');

  const one = run(notReady, [ok]);
  t.equal(one.state.readiness?.ready, false, 'one success is not enough');
  t.same(of(one.effects, 'announce'), []);

  const two = run(notReady, [ok, ok]);
  t.equal(two.state.readiness?.ready, true, '2 successes after that turn it Ready');
  t.same(of(two.effects, 'announce').map((e) => e.readiness.reason), ['KubeletReady']);

  const interrupted = run(notReady, [ok, fail(), ok]);
  t.equal(interrupted.state.readiness?.ready, false, 'a failure between successes resets the count');
  t.equal(run(interrupted.state, [ok]).state.readiness?.ready, true, 'and two fresh successes are needed');
});

t.test('a readiness change writes status with a new transition time; a heartbeat keeps it', async (t) => {
  const ready = readyNode();
  const flip = run(ready, [fail(), fail(), fail()], T0 + 50_000);
  const write = of(flip.last, 'write-status')[0];
  const condition = readyCondition(write?.status);
  t.equal(condition?.status, 'False');
  t.equal(condition?.reason, 'ProviderUnreachable');
  t.equal(condition?.lastTransitionTime?.getTime(), T0 + 50_002, 'transition at the flip');
  t.equal(condition?.lastHeartbeatTime?.getTime(), T0 + 50_002);

  const settled = run(flip.state, [{ type: 'node.status-written' }]).state;
  const tick = run(settled, [{ type: 'node.status-tick' }, { type: 'node.facts-fetched', facts }], T0 + 120_000);
  const heartbeat = readyCondition(of(tick.effects, 'write-status')[0]?.status);
  t.equal(heartbeat?.lastHeartbeatTime?.getTime(), T0 + 120_001, 'fresh heartbeat');
  t.equal(heartbeat?.lastTransitionTime?.getTime(), T0 + 50_002, 'no flip, no new transition time');
  t.same(of(tick.effects, 'schedule').map((e) => e.msg.type), ['node.status-tick'], 'the next tick is scheduled');
});

t.test('the status patch carries only Tether\'s own condition types, plus addresses, capacity and node info', async (t) => {
  const step = run(registered(), [ok]);
  const status = of(step.effects, 'write-status')[0]?.status;
  t.same(status?.conditions?.map((c) => [c.type, c.status]), [['Ready', 'True'], ['MemoryPressure', 'False'], ['DiskPressure', 'False'], ['PIDPressure', 'False']]);
  t.same(status?.addresses, [{ type: 'InternalIP', address: '10.0.0.7' }]);
  t.same(status?.capacity, facts.resources.capacity);
  t.same(status?.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
  t.equal(status?.nodeInfo?.kubeletVersion, 'v1.36.3+tether.0.1.0');
  t.equal(status?.nodeInfo?.operatingSystem, 'linux');
});

t.test('Ready is not written before the first ping answers', async (t) => {
  const step = run({ ...started(), pingInFlight: false }, [registeredMsg()]);
  const status = of(step.effects, 'write-status')[0]?.status;
  t.ok(status, 'registration with no ping on its way writes status');
  t.equal(readyCondition(status), undefined, 'but without Ready');
});

t.test('a start writes the Node\'s status once, whichever of registration and the first ping answers first (issue 16)', async (t) => {
  const stored: NodeCondition[] = [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(T0 - 60_000) }];
  for (const [order, msgs] of [
    ['registration first', [registeredMsg('uid-1', false, stored), ok]],
    ['ping first', [ok, registeredMsg('uid-1', false, stored)]],
  ] as const) {
    const step = run(started(), msgs);
    const writes = of(step.effects, 'write-status');
    t.equal(writes.length, 1, `${order}: one status write`);
    t.equal(readyCondition(writes[0]?.status)?.status, 'True', `${order}: it carries Ready`);
    const settled = run(step.state, [{ type: 'node.status-written' }]);
    t.same(of(settled.effects, 'write-status'), [], `${order}: nothing asked again`);
  }
  const down = run(started(), [registeredMsg('uid-1', false, stored), fail()]);
  t.equal(readyCondition(of(down.effects, 'write-status')[0]?.status)?.status, 'False', 'a first ping that fails writes NotReady, once');
  t.equal(of(down.effects, 'write-status').length, 1);
});

t.test('readiness Events are judged against the Node as stored: one per change the Node shows, in either order', async (t) => {
  const storedReady: NodeCondition[] = [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(T0 - 60_000) }];
  const events = (msgs: readonly NodeMsg[]): string[] => of(run(started(), msgs).effects, 'event').map((e) => e.reason);
  const reg = registeredMsg('uid-1', false, storedReady);
  t.same(events([ok, fail(), fail(), fail(), reg]), ['NodeNotReady'], 'Ready then NotReady before the Node was read: one Event, against the stored Ready');
  t.same(events([ok, fail(), fail(), fail(), ok, ok, reg]), [], 'back to Ready before the Node was read: the Node never showed a change');
  t.same(events([reg, fail()]), ['NodeNotReady'], 'restarted during a provider outage (registration first)');
  t.same(events([fail(), reg]), ['NodeNotReady'], 'restarted during a provider outage (ping first)');
  t.same(events([reg, ok]), [], 'restarted beside the Ready Node it left');
});

t.test('status writes: one in flight, retried with backoff', async (t) => {
  const first = run(registered(), [ok]);
  t.equal(of(first.effects, 'write-status').length, 1);

  const failed = run(first.state, [{ type: 'node.status-write-failed', error: '503: unavailable', gone: false }]);
  t.match(failed.last, [{ type: 'schedule', msg: { type: 'node.retry-status' } }], 'status write failure schedules a retry');
  t.ok(jittered200(failed.last), 'after 200 ms ± 20 %');
  const again = run(failed.state, [{ type: 'node.retry-status' }, { type: 'node.status-write-failed', error: 'x', gone: false }]);
  const second = of(again.effects, 'schedule').map((e) => e.ms)[0] ?? 0;
  t.ok(second >= 320 && second <= 480, `the backoff doubles (400 ms ± 20 %: ${second})`);
  t.equal(of(again.effects, 'write-status').length, 1, 'the retry writes');

  let s = again.state;
  const delays: number[] = [];
  for (let i = 0; i < 6; i++) {
    const r = run(s, [{ type: 'node.retry-status' }, { type: 'node.status-write-failed', error: 'x', gone: false }]);
    delays.push(...of(r.effects, 'schedule').map((e) => e.ms));
    s = r.state;
  }
  const expected = [800, 1600, 3200, 6400, 7000, 7000];
  t.ok(delays.every((ms, i) => ms >= expected[i]! * 0.8 && ms <= Math.min(7000, expected[i]! * 1.2)), `doubling ± 20 %, capped at retry.maxMs: ${delays.join(', ')}`);

  const recovered = run(s, [{ type: 'node.retry-status' }, { type: 'node.status-written' }]);
  t.equal(recovered.state.status.failures, 0, 'a success resets the backoff');

  const overlapping = run(registered(), [ok, { type: 'node.status-tick' }, { type: 'node.facts-fetched', facts }]);
  t.equal(of(overlapping.effects, 'write-status').length, 1, 'no second write while one is in flight');
  const after = run(overlapping.state, [{ type: 'node.status-written' }]);
  t.equal(of(after.effects, 'write-status').length, 1, 'the write asked for meanwhile follows');
});

t.test('a failing provider does not hold up the heartbeat', async (t) => {
  const step = run(readyNode(), [{ type: 'node.status-tick' }, { type: 'node.facts-fetch-failed', error: 'provider sim: busy' }]);
  t.equal(of(step.effects, 'write-status').length, 1);
});

t.test('registration failure retries with backoff', async (t) => {
  const step = run(started(), [{ type: 'node.register-failed', error: '403 Forbidden' }]);
  t.match(step.last, [{ type: 'schedule', msg: { type: 'node.retry-register' } }]);
  t.ok(jittered200(step.last), 'after 200 ms ± 20 %');
  t.same(run(step.state, [{ type: 'node.retry-register' }]).last, [{ type: 'register' }]);
  t.equal(step.state.registration.lastError, '403 Forbidden');
});

t.test('registration reports the uid and keeps the stored transition time when it agrees', async (t) => {
  const since = new Date(T0 - 3_600_000);
  const conditions: NodeCondition[] = [{ type: 'Ready', status: 'True', lastTransitionTime: since }];
  const step = run(started(), [registeredMsg('uid-9', false, conditions), ok]);
  t.same(of(step.effects, 'registered'), [{ type: 'registered', uid: 'uid-9' }]);
  t.equal(step.state.readySince, since.getTime(), 'a restart does not move lastTransitionTime');

  const pingFirst = run(started(), [ok, registeredMsg('uid-9', false, conditions)]);
  t.equal(pingFirst.state.readySince, since.getTime(), 'also when the ping answered before the Node was read');

  const disagree = run(started(), [registeredMsg('uid-9', false, conditions), fail()]);
  t.equal(disagree.state.readySince, T0 + 1, 'a different status is a transition');
});

t.test('a Node deleted by someone is re-created', async (t) => {
  const ready = readyNode();
  const deleted = run(ready, [{ type: 'node.observed', node: undefined, deletedUid: 'uid-1' }]);
  t.same(deleted.last, [{ type: 'register' }], 'deleted node is re-created');
  t.equal(deleted.state.registered, false);

  const back = run(deleted.state, [registeredMsg('uid-2', true)]);
  t.match(of(back.effects, 'event'), [{ eventType: 'Warning', reason: 'NodeRecreated', uid: 'uid-2' }]);
  t.same(of(back.effects, 'registered'), [{ type: 'registered', uid: 'uid-2' }], 'the new uid goes to the lease');
  t.equal(readyCondition(of(back.effects, 'write-status')[0]?.status)?.status, 'True', 'and its status is applied again');

  t.same(run(back.state, [{ type: 'node.observed', node: undefined, deletedUid: 'uid-1' }]).last, [], 'a late deletion of the old Node is ignored');

  const gone = run(ready, [{ type: 'node.status-tick' }, { type: 'node.facts-fetched', facts }, { type: 'node.status-write-failed', error: '404', gone: true }]);
  t.same(gone.last, [{ type: 'register' }], 'a status patch that finds no Node registers it again');

  const during = run(deleted.state, [{ type: 'node.observed', node: undefined }]);
  t.same(during.last, [], 'a deletion seen while registering waits for that registration');
  t.same(run(during.state, [registeredMsg('uid-2', false)]).effects.filter((e) => e.type === 'register'), [{ type: 'register' }], 'then registers once more');

  t.same(run(ready, [{ type: 'node.observed', node: storedNode('uid-1') }]).last, [], 'an update of our own Node changes nothing');
  t.same(run(ready, [{ type: 'node.observed', node: storedNode('uid-7') }]).last, [{ type: 'register' }], 'a Node replaced by someone is adopted');
});

t.test('ping ticks: one ping at a time', async (t) => {
  const inFlight = run(readyNode(), [{ type: 'node.ping-tick' }]);
  t.same(inFlight.last.map((e) => e.type), ['schedule', 'ping']);
  const again = run(inFlight.state, [{ type: 'node.ping-tick' }]);
  t.same(again.last.map((e) => e.type), ['schedule'], 'no second ping while one is waiting for its answer');
});

t.test('shutdown stops pings and status writes, and deletes the Node only if asked', async (t) => {
  const keep = run(readyNode(), [{ type: 'node.shutdown', deleteNode: false }]);
  t.equal(keep.state.phase, 'stopped');
  t.same(keep.effects, []);
  const quiet = run(keep.state, [{ type: 'node.ping-tick' }, { type: 'node.status-tick' }, fail(), fail(), fail(), { type: 'node.observed', node: undefined }]);
  t.same(quiet.effects, [], 'no pings, status writes, announcements or re-creation after shutdown');

  const del = run(readyNode(), [{ type: 'node.shutdown', deleteNode: true }]);
  t.same(del.last, [{ type: 'delete-node' }]);
  const retried = run(del.state, [{ type: 'node.delete-failed', error: '503' }]);
  t.match(retried.last, [{ type: 'schedule', msg: { type: 'node.retry-delete' } }]);
  t.ok(jittered200(retried.last), 'after 200 ms ± 20 %');
  t.same(run(retried.state, [{ type: 'node.retry-delete' }]).last, [{ type: 'delete-node' }]);
  t.equal(run(del.state, [{ type: 'node.deleted' }]).state.phase, 'stopped');
});
