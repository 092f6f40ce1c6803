/**
 * PreStop hooks, decided as the kubelet runs them (kuberuntime killContainer): Tether waits out a
 * `sleep` on the actor's clock before it asks the provider, within the grace period, which the
 * hook's time counts against (the provider gets what is left, at least 2 s); a shorter grace given
 * during the hook cuts it; exec and httpGet hooks are the provider's to run, or the kubelet's Warning.
 * An incarnation that finds the deletion begun (a restart) has only the grace left to the
 * deletionTimestamp, and continues a sleep from the deletion.
 */
import t from 'tap';
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { decidePod, initialPodState, onPodStart } from '../../../src/actors/pod/decide.js';
import { deletionAskedAt, graceLeft } from '../../../src/actors/pod/podStatusView.js';
import type { PodEffect, PodMsg, PodState } from '../../../src/actors/pod/protocol.js';
import { defaultPodActorConfig, type PodActorConfig } from '../../../src/actors/pod/config.js';
import type { Transition } from '../../../src/runtime/behavior.js';

const NOW = Date.parse('2026-11-30T04:00:00Z');
const tetherConfig = defaultPodActorConfig('vnode-1');
const withHooks: PodActorConfig = { ...tetherConfig, containerDuties: { by: 'tether', hooks: true } };
const ownKubelet: PodActorConfig = { ...tetherConfig, containerDuties: { by: 'provider', hooks: false } };
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };

type PreStopHandler = NonNullable<NonNullable<NonNullable<Pod['spec']>['containers'][number]['lifecycle']>['preStop']>;

function hostPod(preStop: PreStopHandler | undefined, grace = 30): Pod {
  return {
    metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1' },
    spec: { nodeName: 'vnode-1', terminationGracePeriodSeconds: grace, containers: [{ name: 'app', image: 'nginx:1', ...(preStop ? { lifecycle: { preStop } } : {}) }] },
    status: { phase: 'Running' },
  };
}

const running: PodStatus = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }],
  containerStatuses: [{ name: 'app', image: 'nginx:1', imageID: 'x', containerID: 'sim://1', ready: true, restartCount: 0, state: { running: {} } }],
};

type Next = Transition<PodState, PodEffect>;
const effects = (next: Next): readonly PodEffect[] => (next.stop ? [] : next.effects ?? []);
const deletes = (next: Next): Array<number | undefined> =>
  effects(next).flatMap((e) => (e.type === 'provider.delete' ? [e.pod.metadata?.deletionGracePeriodSeconds] : []));
const timers = (next: Next): number[] => effects(next).flatMap((e) => (e.type === 'schedule' && e.msg.type === 'pod.prestop-due' ? [e.msg.at - NOW] : []));
const reasons = (next: Next): string[] => effects(next).flatMap((e) => (e.type === 'host.event' ? [`${e.reason}: ${e.note}`] : []));

/** A pod the provider runs, then deleted on the host with `grace` (its deletionGracePeriodSeconds). */
function deleted(config: PodActorConfig, preStop: PreStopHandler | undefined, grace = 30, podGrace = grace): { state: PodState; next: Next; step: (s: PodState, msg: PodMsg, at: number) => Next } {
  const step = (s: PodState, msg: PodMsg, at: number): Next => decidePod(config, s, msg, at);
  const pod = hostPod(preStop, podGrace);
  let state = initialPodState(pod, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  state = step(state, { type: 'pod.provider-fetched', pod: { ...pod, status: running } }, NOW - 60_000).state;
  const next = step(state, { type: 'pod.host-changed', pod: { ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date(NOW + grace * 1000), deletionGracePeriodSeconds: grace } } }, NOW);
  return { state: next.state, next, step };
}

const regrace = (state: PodState, grace: number): PodMsg => {
  const host = state.host as Pod;
  return { type: 'pod.host-changed', pod: { ...host, metadata: { ...host.metadata, deletionGracePeriodSeconds: grace } } };
};

t.test('a preStop sleep is waited out before the provider is asked, and the provider gets what is left of the grace period', async (t) => {
  const { next, step } = deleted(tetherConfig, { sleep: { seconds: 5 } });
  t.same(reasons(next), ['Killing: Stopping container app'], 'the kubelet says it stops the container');
  t.same(deletes(next), [], 'the provider is not asked during the sleep');
  t.same(timers(next), [5_000], 'the sleep\'s end is armed');
  const early = step(next.state, { type: 'pod.prestop-due', at: NOW + 5_000 }, NOW + 4_999);
  t.same(deletes(early), [], 'not a moment before the sleep ends');
  const over = step(next.state, { type: 'pod.prestop-due', at: NOW + 5_000 }, NOW + 5_000);
  t.same(deletes(over), [25], 'then asked, with 30 - 5 s');
});

t.test('a shorter grace period given during the sleep cuts it: the provider is asked when the new grace runs out, with the 2 s minimum', async (t) => {
  const { next, step } = deleted(tetherConfig, { sleep: { seconds: 5 } });
  const shortened = step(next.state, regrace(next.state, 2), NOW + 1_000);
  t.same(deletes(shortened), [], 'still within the new grace period');
  t.same(timers(shortened), [3_000], 'the cut is armed 2 s after the second delete');
  const cut = step(shortened.state, { type: 'pod.prestop-due', at: NOW + 3_000 }, NOW + 3_000);
  t.same(deletes(cut), [2], 'asked at the cut, with the kubelet\'s minimum of 2 s');
  const stale = step(cut.state, { type: 'pod.prestop-due', at: NOW + 5_000 }, NOW + 5_000);
  t.same(deletes(stale), [], 'the sleep\'s own end, later, asks nothing more');
});

t.test('a sleep longer than the grace period is cut by it', async (t) => {
  const { next, step } = deleted(tetherConfig, { sleep: { seconds: 60 } }, 10);
  t.same(timers(next), [10_000]);
  t.same(deletes(step(next.state, { type: 'pod.prestop-due', at: NOW + 10_000 }, NOW + 10_000)), [2]);
});

t.test('a grace period of 0 runs no hook: the provider is asked at once', async (t) => {
  const { next } = deleted(tetherConfig, { sleep: { seconds: 5 } }, 0, 30);
  t.same(deletes(next), [0]);
  t.same(timers(next), []);
});

t.test('a container that does not run gets no hook', async (t) => {
  const step = (s: PodState, msg: PodMsg, at: number): Next => decidePod(tetherConfig, s, msg, at);
  const pod = hostPod({ sleep: { seconds: 5 } });
  let state = initialPodState(pod, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  const waiting: PodStatus = { phase: 'Pending', containerStatuses: [{ name: 'app', image: 'nginx:1', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] };
  state = step(state, { type: 'pod.provider-fetched', pod: { ...pod, status: waiting } }, NOW - 1_000).state;
  const next = step(state, { type: 'pod.host-changed', pod: { ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date(NOW), deletionGracePeriodSeconds: 30 } } }, NOW);
  t.same(deletes(next), [30]);
  t.same(reasons(next), [], 'and no Killing: nothing runs');
});

t.test('an exec hook the provider cannot run is the kubelet\'s FailedPreStopHook, and the provider is asked at once', async (t) => {
  const { next } = deleted(tetherConfig, { exec: { command: ['nginx', '-s', 'quit'] } });
  t.same(reasons(next), ['Killing: Stopping container app', 'FailedPreStopHook: PreStopHook failed']);
  t.same(deletes(next), [30]);
});

t.test('an exec hook is the provider\'s to run: asked once it is over, with what is left; a failed one is the kubelet\'s Warning', async (t) => {
  const { next, step } = deleted(withHooks, { httpGet: { path: '/quit', port: 8080 } });
  t.match(effects(next).filter((e) => e.type === 'provider.run-hook'), [{ container: 'app', hook: 'preStop' }]);
  t.same(deletes(next), []);
  t.same(timers(next), [30_000], 'cut at the grace period if it never answers');
  const done = step(next.state, { type: 'pod.hook-finished', container: 'app', hook: 'preStop' }, NOW + 3_500);
  t.same(deletes(done), [27]);
  const failed = step(next.state, { type: 'pod.hook-finished', container: 'app', hook: 'preStop', error: 'connection refused' }, NOW + 1_000);
  t.same(reasons(failed), ['FailedPreStopHook: PreStopHook failed'], 'the kubelet\'s words, never the error');
  t.same(deletes(failed), [29]);
});

t.test('a provider whose pods run under their own kubelet runs the hooks itself: asked at once, no Events of the kubelet\'s', async (t) => {
  const { next } = deleted(ownKubelet, { sleep: { seconds: 5 } });
  t.same(deletes(next), [30]);
  t.same(reasons(next), []);
});

t.test('escalation at the deadline cuts whatever hook still runs', async (t) => {
  const { next, step } = deleted(withHooks, { exec: { command: ['sleep', '999'] } }, 5);
  const termination = next.state.stage === 'terminating' ? next.state.termination : undefined;
  const escalated = step(next.state, { type: 'pod.grace-expired', at: termination?.deadlineAt ?? 0 }, termination?.deadlineAt ?? 0);
  t.same(deletes(escalated), [0]);
  const late = step(escalated.state, { type: 'pod.hook-finished', container: 'app', hook: 'preStop' }, (termination?.deadlineAt ?? 0) + 1);
  t.same(deletes(late), [], 'the hook\'s late answer asks nothing more');
});

t.test('the grace left of a deletion found begun is the time to its deletionTimestamp (a watched RFC 3339 string), never more than its grace period', (t) => {
  const deleted = (at: string, grace: number): Pod => ({ ...hostPod(undefined), metadata: { ...hostPod(undefined).metadata, deletionTimestamp: at as unknown as Date, deletionGracePeriodSeconds: grace } });
  t.equal(graceLeft(deleted('2026-11-30T04:00:20Z', 30), NOW), 20, '20 s to the timestamp');
  t.equal(graceLeft(deleted('2026-11-30T04:01:00Z', 30), NOW), 30, 'a timestamp further away (another clock) gives no more than the grace');
  t.equal(graceLeft(deleted('2026-11-30T03:59:00Z', 30), NOW), 0, 'past: nothing left');
  t.equal(graceLeft(deleted('not a time', 30), NOW), 30, 'unreadable: the grace period');
  t.equal(graceLeft(hostPod(undefined, 45), NOW), 45, 'no deletion: the pod\'s grace period');
  t.equal(deletionAskedAt(deleted('2026-11-30T04:00:20Z', 30), NOW), NOW - 10_000, 'asked 10 s ago');
  t.end();
});

t.test('an incarnation that starts on a deletion with a preStop sleep waits for the provider\'s status, then continues the sleep from the deletion', (t) => {
  const pod = hostPod({ sleep: { seconds: 15 } });
  const host: Pod = { ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date(NOW + 20_000), deletionGracePeriodSeconds: 30 } };
  const started = onPodStart(tetherConfig, initialPodState(host, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready), NOW);
  t.same(deletes(started), [], 'the provider is not asked before its status says what runs');
  t.same(timers(started), [20_000], 'the hooks are cut at the deletionTimestamp');
  const read = decidePod(tetherConfig, started.state, { type: 'pod.provider-fetched', pod: { ...host, status: running } }, NOW);
  t.same(deletes(read), [], 'sleeping');
  t.same(timers(read), [5_000], 'the 15 s sleep began at the deletion, 10 s ago');
  t.ok(effects(read).some((e) => e.type === 'host.event' && e.reason === 'Killing'), 'the kubelet\'s Killing, as a restarted kubelet kills again');
  const due = decidePod(tetherConfig, read.state, { type: 'pod.prestop-due', at: NOW + 5_000 }, NOW + 5_000);
  t.same(deletes(due), [15], 'the provider gets what is left: 20 s less the 5 s slept');
  t.end();
});
