import t from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { hostUidMark, virtualNodeMark } from '../../../src/actors/pod/annotations.js';
import { decideController, startController } from '../../../src/actors/podController/decide.js';
import type { ControllerEffect, ControllerMsg, ControllerState } from '../../../src/actors/podController/protocol.js';
import type { ControllerConfig } from '../../../src/actors/podController/config.js';
import type { Transition } from '../../../src/runtime/behavior.js';
import { podMarksOf } from '../../../src/providers/podMarks.js';

const config: ControllerConfig = { nodeName: 'vnode-1', sweepIntervalMs: 60_000 };
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const pod = (name: string, uid: string, annotations?: Record<string, string>): Pod => ({ metadata: { namespace: 'ns', name, uid, annotations } });
type Next = Transition<ControllerState, ControllerEffect>;
const effects = (n: Next): readonly ControllerEffect[] => (n.stop ? [] : n.effects ?? []);
const step = (s: ControllerState, msg: ControllerMsg): Next => decideController(config, s, msg);

t.test('start indexes the cached pods and makes sure each has an actor', async (t) => {
  const started = startController(config, [pod('a', 'u1'), pod('b', 'u2'), { metadata: {} }], ready, true);
  t.equal(started.state.index.size, 2, 'a pod without identity is skipped');
  t.same(effects(started).filter((e) => e.type === 'spawn').map((e) => (e.type === 'spawn' ? e.key.uid : '')), ['u1', 'u2']);
  t.ok(effects(started).some((e) => e.type === 'schedule'), 'the orphan sweep is scheduled');
});

t.test('watch events spawn on first sight, then go straight to the pod actor', async (t) => {
  const s = startController(config, [], ready, false).state;
  t.same(effects(step(s, { type: 'pods.watch', event: { type: 'added', pod: pod('a', 'u1') } })), [{ type: 'spawn', key: { namespace: 'ns', name: 'a', uid: 'u1' } }]);
  const updated = step(s, { type: 'pods.watch', event: { type: 'updated', pod: pod('a', 'u1') } });
  t.match(effects(updated), [{ type: 'tell', uid: 'u1', msg: { type: 'pod.host-changed' } }]);
  const deleted = step(s, { type: 'pods.watch', event: { type: 'deleted', pod: pod('a', 'u1') } });
  t.match(effects(deleted), [{ type: 'tell', uid: 'u1', msg: { type: 'pod.host-deleted' } }, { type: 'release-failed', uid: 'u1' }]);
  t.equal(s.index.size, 0);
  t.same(effects(step(s, { type: 'pods.watch', event: { type: 'deleted', pod: pod('a', 'u1') } })), [], 'unknown pods are ignored');
});

t.test('a pod re-created under the same name is a new actor', async (t) => {
  const s = startController(config, [pod('a', 'old')], ready, true).state;
  step(s, { type: 'pods.watch', event: { type: 'deleted', pod: pod('a', 'old') } });
  t.match(effects(step(s, { type: 'pods.watch', event: { type: 'added', pod: pod('a', 'new') } })), [{ type: 'spawn', key: { uid: 'new' } }]);
});

t.test('provider notifications are routed by host uid (ownership mark or own uid)', async (t) => {
  const s = startController(config, [pod('a', 'u1'), pod('b', 'u2')], ready, true).state;
  const remote: Pod = { metadata: { namespace: 'ns-remote', name: 'a', uid: 'remote-uid', annotations: { [hostUidMark]: 'u1' } }, status: { phase: 'Running' } };
  t.match(effects(step(s, { type: 'pods.notification', notification: { type: 'status', pod: remote } })), [{ type: 'tell', uid: 'u1', msg: { type: 'pod.provider-status', status: { phase: 'Running' } } }]);
  t.match(effects(step(s, { type: 'pods.notification', notification: { type: 'status', pod: { ...pod('b', 'u2'), status: { phase: 'Running' } } } })), [{ type: 'tell', uid: 'u2' }]);
  const gone = step(s, { type: 'pods.notification', notification: { type: 'gone', namespace: 'ns', name: 'a', uid: 'u1', reason: 'NotFound' } });
  t.match(effects(gone), [{ type: 'tell', uid: 'u1', msg: { type: 'pod.provider-gone', reason: 'NotFound' } }]);
  t.same(effects(step(s, { type: 'pods.notification', notification: { type: 'status', pod: pod('zzz', 'x') } })), []);
});

t.test('a notification for a predecessor of the same name never reaches the new pod', async (t) => {
  // db-0 was deleted and re-created with a new uid; the old remote pod still reports.
  const s = startController(config, [pod('db-0', 'new')], ready, true).state;
  const predecessor: Pod = { metadata: { namespace: 'ns', name: 'db-0', uid: 'remote-old', annotations: { [hostUidMark]: 'old' } }, status: { phase: 'Failed' } };
  t.same(effects(step(s, { type: 'pods.notification', notification: { type: 'status', pod: predecessor } })), [], 'terminal status of the old pod is not written onto the new one');
  t.same(effects(step(s, { type: 'pods.notification', notification: { type: 'status', pod: { metadata: { namespace: 'ns', name: 'db-0' }, status: { phase: 'Failed' } } } })), [], 'no uid at all: nobody');
  t.same(effects(step(s, { type: 'pods.notification', notification: { type: 'gone', namespace: 'ns', name: 'db-0', uid: 'old', reason: 'RemotePodDeleted' } })), [], 'gone for the old uid');
  t.same(effects(step(s, { type: 'pods.notification', notification: { type: 'gone', namespace: 'ns', name: 'db-0', uid: undefined, reason: 'NotFound' } })), [], 'gone without a uid');
});

t.test("the node's readiness goes to every pod", async (t) => {
  const s = startController(config, [pod('a', 'u1'), pod('b', 'u2')], ready, true).state;
  const down = step(s, { type: 'pods.node-readiness', readiness: { ready: false, reason: 'ProviderUnreachable', message: 'x' } });
  t.match(effects(down), [{ type: 'broadcast', uids: ['u1', 'u2'], msg: { type: 'pod.node-readiness' } }]);
  t.equal(down.state.readiness.ready, false);
});

t.test('orphans: only marked pods of this node with no host pod, and never before a successful list', async (t) => {
  const marked = (uid: string, node = 'vnode-1'): Pod => pod(`p-${uid}`, `remote-${uid}`, { [virtualNodeMark]: node, [hostUidMark]: uid });
  const listed = [marked('u1'), marked('gone'), marked('other', 'vnode-2'), pod('unmarked', 'x')].map(podMarksOf);
  const unsynced = startController(config, [pod('a', 'u1')], ready, false).state;
  t.same(effects(step(unsynced, { type: 'pods.provider-listed', pods: listed, hostUids: new Set(['u1']) })), [], 'no sweep before the host list succeeded');
  t.same(effects(step(unsynced, { type: 'pods.sweep' })).map((e) => e.type), ['schedule'], 'the periodic sweep does not even list');

  const synced = step(unsynced, { type: 'pods.watch', event: { type: 'synced' } });
  t.match(effects(synced), [{ type: 'list-provider' }]);
  const swept = step(synced.state, { type: 'pods.provider-listed', pods: listed, hostUids: new Set(['u1']) });
  t.same(effects(swept).map((e) => (e.type === 'delete-orphan' ? e.orphan.marks[hostUidMark] : e.type)), ['gone']);
  t.equal(swept.state.orphansDeleted, 1);

  const broken = step(synced.state, { type: 'pods.watch', event: { type: 'error', error: new Error('list failed') } });
  t.same(effects(step(broken.state, { type: 'pods.provider-listed', pods: listed, hostUids: new Set() })), [], 'a failed list never deletes healthy pods');
});
