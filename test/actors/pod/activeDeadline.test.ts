/**
 * activeDeadlineSeconds, decided as the kubelet enforces it (pkg/kubelet/active_deadline.go):
 * counted from status.startTime, a running pod past its deadline gets the kubelet's Event, is
 * stopped at the provider with its grace period, and ends Failed with reason DeadlineExceeded and
 * the kubelet's message; a lowered deadline re-arms the timer; a restarted actor counts from
 * startTime, not from its own start.
 */
import t from 'tap';
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import { decidePod, initialPodState, onPodStart } from '../../../src/actors/pod/decide.js';
import type { PodEffect, PodMsg, PodState } from '../../../src/actors/pod/protocol.js';
import type { Transition } from '../../../src/runtime/behavior.js';

const config = defaultPodActorConfig('vnode-1');
const START = Date.parse('2026-11-30T04:00:00Z');
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const MESSAGE = 'Pod was active on the node longer than the specified deadline';

function hostPod(deadline: number | undefined, status: PodStatus = { phase: 'Pending' }, meta: Partial<NonNullable<Pod['metadata']>> = {}): Pod {
  return {
    metadata: { namespace: 'shop', name: 'job-1', uid: 'uid-1', generation: 1, ...meta },
    spec: { nodeName: 'vnode-1', terminationGracePeriodSeconds: 20, containers: [{ name: 'app', image: 'busybox' }], ...(deadline !== undefined ? { activeDeadlineSeconds: deadline } : {}) },
    status,
  };
}
const running = (startTime: Date | string = new Date(START)): PodStatus => ({
  phase: 'Running',
  // A watch event carries strings where the model says Date.
  startTime: startTime as Date,
  conditions: [{ type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }],
  containerStatuses: [{ name: 'app', image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: new Date(START) } } }],
});
const terminated: PodStatus = {
  ...running(),
  phase: 'Failed',
  conditions: [{ type: 'Ready', status: 'False', reason: 'PodFailed' }],
  containerStatuses: [{ name: 'app', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 143, reason: 'Error' } } }],
};

type Next = Transition<PodState, PodEffect>;
const step = (state: PodState, msg: PodMsg, now: number): Next => decidePod(config, state, msg, now);
const effects = (next: Next): readonly PodEffect[] => (next.stop ? [] : next.effects ?? []);
const ofType = <T extends PodEffect['type']>(next: Next, type: T): Array<Extract<PodEffect, { type: T }>> =>
  effects(next).filter((e): e is Extract<PodEffect, { type: T }> => e.type === type);
const timers = (next: Next): unknown[] => ofType(next, 'schedule').filter((e) => e.msg.type === 'pod.active-deadline-reached').map((e) => ({ ms: e.ms, msg: e.msg }));

/** The pod running at the provider since START, its status on the host, `deadline` seconds allowed. */
function runningPod(deadline: number | undefined, now = START + 1_000): Next {
  const host = hostPod(deadline);
  return step(initialPodState(host, { namespace: 'shop', name: 'job-1', uid: 'uid-1' }, ready), { type: 'pod.provider-fetched', pod: { ...host, status: running() } }, now);
}

t.test('a running pod with activeDeadlineSeconds arms a timer for startTime plus the deadline; one without arms none', async (t) => {
  t.same(timers(runningPod(10)), [{ ms: 9_000, msg: { type: 'pod.active-deadline-reached', at: START + 10_000 } }]);
  t.same(timers(runningPod(undefined)), []);
});

t.test("at the deadline: the kubelet's Event, the provider asked to stop the pod with its grace period, and nothing faked meanwhile", async (t) => {
  const armed = runningPod(10);
  const due = step(armed.state, { type: 'pod.active-deadline-reached', at: START + 10_000 }, START + 10_000);
  t.match(ofType(due, 'host.event'), [{ eventType: 'Normal', reason: 'DeadlineExceeded', note: MESSAGE }]);
  t.same(ofType(due, 'provider.delete').map((e) => e.pod.metadata?.deletionGracePeriodSeconds), [20], "the pod's terminationGracePeriodSeconds");
  t.same(ofType(due, 'host.write-status'), [], 'the phase turns Failed only once the provider has ended the pod (as the kubelet waits for its containers)');
  t.equal(due.state.stage, 'terminating');

  const ended = step(due.state, { type: 'pod.provider-status', status: terminated }, START + 12_000);
  const [failed] = ofType(ended, 'host.write-status');
  t.match(failed?.status, { phase: 'Failed', reason: 'DeadlineExceeded', message: MESSAGE });
  t.match(failed?.status.conditions?.find((c) => c.type === 'Ready'), { status: 'False', reason: 'PodFailed' });
  t.match(failed?.status.containerStatuses, [{ state: { terminated: { exitCode: 143 } } }], "the provider's container statuses");
  t.equal(ended.state.stage, 'done', 'nothing more runs');
  t.same(ofType(ended, 'host.delete'), [], 'the host pod stays (its owner, a Job say, sees it Failed)');
});

t.test("a provider that loses the pod instead: Failed/DeadlineExceeded, containers the kubelet's ContainerStatusUnknown", async (t) => {
  const due = step(runningPod(10).state, { type: 'pod.active-deadline-reached', at: START + 10_000 }, START + 10_000);
  const gone = step(due.state, { type: 'pod.provider-gone', reason: 'NotFound', message: 'gone' }, START + 11_000);
  const [failed] = ofType(gone, 'host.write-status');
  t.match(failed?.status, { phase: 'Failed', reason: 'DeadlineExceeded' });
  t.match(failed?.status.containerStatuses, [{ ready: false, state: { terminated: { reason: 'ContainerStatusUnknown', exitCode: 137 } } }]);
  t.notMatch(failed?.status.reason, 'ProviderPodLost');
});

t.test('a stale timer (the deadline moved) or a pod no longer running does nothing', async (t) => {
  const armed = runningPod(10);
  t.same(effects(step(armed.state, { type: 'pod.active-deadline-reached', at: START + 99_000 }, START + 99_000)), []);
  const deleted = step(armed.state, { type: 'pod.host-changed', pod: hostPod(10, running(), { deletionTimestamp: new Date(START), deletionGracePeriodSeconds: 5 }) }, START + 2_000);
  t.same(ofType(step(deleted.state, { type: 'pod.active-deadline-reached', at: START + 10_000 }, START + 10_000), 'host.event'), []);
});

t.test('a lowered activeDeadlineSeconds re-arms the timer from startTime; an already passed one stops the pod at once', async (t) => {
  const armed = runningPod(60);
  const lowered = step(armed.state, { type: 'pod.host-changed', pod: hostPod(30, running(), { generation: 2 }) }, START + 5_000);
  t.same(timers(lowered), [{ ms: 25_000, msg: { type: 'pod.active-deadline-reached', at: START + 30_000 } }]);
  t.same(effects(step(lowered.state, { type: 'pod.active-deadline-reached', at: START + 60_000 }, START + 60_000)), [], 'the old timer is stale');
  const passed = step(lowered.state, { type: 'pod.host-changed', pod: hostPod(3, running(), { generation: 3 }) }, START + 5_000);
  t.same(timers(passed), [{ ms: 0, msg: { type: 'pod.active-deadline-reached', at: START + 3_000 } }], 'due now');
  t.match(ofType(step(passed.state, { type: 'pod.active-deadline-reached', at: START + 3_000 }, START + 5_000), 'provider.delete'), [{}]);
});

t.test("a restarted actor counts from the host pod's startTime (a watched RFC 3339 string), not from its own start", async (t) => {
  const host = hostPod(10, running(new Date(START).toISOString()));
  const restarted = onPodStart(config, initialPodState(host, { namespace: 'shop', name: 'job-1', uid: 'uid-1' }, ready), START + 8_000);
  const adopted = step(restarted.state, { type: 'pod.provider-fetched', pod: { ...host, status: running(new Date(START + 500)) } }, START + 8_000);
  t.same(timers(adopted), [{ ms: 2_000, msg: { type: 'pod.active-deadline-reached', at: START + 10_000 } }]);
  const late = step(restarted.state, { type: 'pod.provider-fetched', pod: { ...host, status: running() } }, START + 50_000);
  t.same(ofType(late, 'host.write-status'), [], 'past the deadline already: no Running written first');
  t.match(ofType(late, 'host.event'), [{ reason: 'DeadlineExceeded' }]);
  t.ok(ofType(late, 'provider.delete').length === 1, 'stopped at the provider');
});

t.test('deleting a pod that is being stopped for its deadline lets it leave the host once ended', async (t) => {
  const due = step(runningPod(10).state, { type: 'pod.active-deadline-reached', at: START + 10_000 }, START + 10_000);
  const deleted = step(due.state, { type: 'pod.host-changed', pod: hostPod(10, running(), { deletionTimestamp: new Date(START + 11_000), deletionGracePeriodSeconds: 30 }) }, START + 11_000);
  const ended = step(deleted.state, { type: 'pod.provider-status', status: terminated }, START + 12_000);
  t.equal(ended.state.stage, 'finishing');
  t.ok(ofType(ended, 'host.delete').length + ofType(ended, 'host.write-status').length > 0);
});
