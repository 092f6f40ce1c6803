/**
 * PostStart hooks, decided as the kubelet runs them (kuberuntime startContainer, step 4): once the
 * provider says a container runs, its postStart hook runs before the container counts as started
 * or ready; a `sleep` is waited out on the actor's clock, an `exec` or `httpGet` hook is the
 * provider's to run; a failed one is the kubelet's Warning `FailedPostStartHook` and the container
 * is killed (`Killing` "FailedPostStartHook"), its restartPolicy deciding whether it runs again,
 * when its hook runs again too. A provider that cannot run the hook gets the Warning instead.
 */
import t from 'tap';
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { decidePod, initialPodState } from '../../../src/actors/pod/decide.js';
import type { PodEffect, PodMsg, PodState } from '../../../src/actors/pod/protocol.js';
import { defaultPodActorConfig, type PodActorConfig } from '../../../src/actors/pod/config.js';
import type { Transition } from '../../../src/runtime/behavior.js';
import { fingerprint } from '../../../src/lib/fingerprint.js';
import { ownedFingerprint } from '../../../src/actors/pod/podStatusView.js';

const NOW = Date.parse('2026-12-03T04:00:00Z');
const tetherConfig = defaultPodActorConfig('vnode-1');
const withHooks: PodActorConfig = { ...tetherConfig, containerDuties: { by: 'tether', hooks: true } };
const ownKubelet: PodActorConfig = { ...tetherConfig, containerDuties: { by: 'provider', hooks: false } };
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };

type Handler = NonNullable<NonNullable<NonNullable<Pod['spec']>['containers'][number]['lifecycle']>['postStart']>;
type Next = Transition<PodState, PodEffect>;

function hostPod(postStart: Handler | undefined): Pod {
  return {
    metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1', generation: 1 },
    spec: { nodeName: 'vnode-1', terminationGracePeriodSeconds: 20, containers: [{ name: 'app', image: 'nginx:1', ...(postStart ? { lifecycle: { postStart } } : {}) }] },
    status: { phase: 'Pending' },
  };
}

/** The provider's status of a running pod whose container is in its `run`-th instance, ready. */
function runningStatus(run = 0): PodStatus {
  return {
    phase: 'Running',
    conditions: [{ type: 'ContainersReady', status: 'True' }, { type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'app', image: 'nginx:1', imageID: 'x', containerID: `sim://${run}`, ready: true, started: true, restartCount: run, state: { running: { startedAt: new Date(NOW) } } }],
  };
}

const effects = (next: Next): readonly PodEffect[] => (next.stop ? [] : next.effects ?? []);
const writes = (next: Next): PodStatus[] => effects(next).flatMap((e) => (e.type === 'host.write-status' ? [e.status] : []));
const reasons = (next: Next): string[] => effects(next).flatMap((e) => (e.type === 'host.event' ? [`${e.reason}: ${e.note}`] : []));
const readyOf = (status: PodStatus | undefined): string | undefined => status?.conditions?.find((c) => c.type === 'Ready')?.status;
const dueTimers = (next: Next): Array<Extract<PodMsg, { type: 'pod.poststart-due' }>> =>
  effects(next).flatMap((e) => (e.type === 'schedule' && e.msg.type === 'pod.poststart-due' ? [e.msg] : []));

/** A pod created at the provider, then its first status (the container running). */
function started(config: PodActorConfig, postStart: Handler | undefined, run = 0): { next: Next; step: (s: PodState, msg: PodMsg, at: number) => Next } {
  const step = (s: PodState, msg: PodMsg, at: number): Next => {
    const next = decidePod(config, s, msg, at);
    // Every write lands at once: the host pod shows it.
    const written = writes(next).at(-1);
    if (next.stop || !written) return next;
    const landed = decidePod(config, next.state, { type: 'pod.status-written', written: fingerprint(written), stored: ownedFingerprint(written) }, at);
    return { state: landed.state, effects: [...effects(next), ...effects(landed)] };
  };
  const pod = hostPod(postStart);
  let state = initialPodState(pod, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  state = step(state, { type: 'pod.provider-fetched', pod: undefined }, NOW - 2_000).state;
  state = step(state, { type: 'pod.admitted' }, NOW - 2_000).state;
  state = step(state, { type: 'pod.create-succeeded' }, NOW - 1_000).state;
  return { next: step(state, { type: 'pod.provider-status', status: runningStatus(run) }, NOW), step };
}

t.test('a postStart sleep holds the container not started and the pod not Ready until it ends', async (t) => {
  const { next, step } = started(tetherConfig, { sleep: { seconds: 5 } });
  const [held] = writes(next);
  t.equal(readyOf(held), 'False', 'Ready False during the hook');
  t.match(held?.conditions?.find((c) => c.type === 'Ready'), { reason: 'ContainersNotReady', message: 'containers with unready status: [app]' }, 'in the kubelet\'s words');
  t.match(held?.containerStatuses?.[0], { ready: false, started: false, state: { running: {} } }, 'the container runs, but has not started as the kubelet counts it');
  const [due] = dueTimers(next);
  t.equal((due?.at ?? 0) - NOW, 5_000, 'the sleep\'s end is armed');
  const over = step(next.state, due as PodMsg, NOW + 5_000);
  t.equal(readyOf(writes(over)[0]), 'True', 'Ready once the sleep is over');
  t.match(writes(over)[0]?.containerStatuses?.[0], { ready: true, started: true });
  const again = step(over.state, { type: 'pod.provider-status', status: runningStatus(0) }, NOW + 6_000);
  t.same(dueTimers(again), [], 'the same run of the container sleeps once');
});

t.test('a container without a postStart hook is Ready at once', async (t) => {
  const { next } = started(tetherConfig, undefined);
  t.equal(readyOf(writes(next)[0]), 'True');
});

t.test('an exec postStart is the provider\'s to run; the container is started once it succeeded', async (t) => {
  const { next, step } = started(withHooks, { exec: { command: ['sh', '-c', 'touch /ready'] } });
  t.match(effects(next).filter((e) => e.type === 'provider.run-hook'), [{ container: 'app', hook: 'postStart' }]);
  t.equal(readyOf(writes(next)[0]), 'False', 'held while it runs');
  const done = step(next.state, { type: 'pod.hook-finished', container: 'app', hook: 'postStart', run: 'sim://0#0' }, NOW + 1_000);
  t.equal(readyOf(writes(done)[0]), 'True');
  t.same(reasons(done), []);
});

t.test('a failed exec postStart is the kubelet\'s FailedPostStartHook, then Killing, and the provider kills the container; its next run runs the hook again', async (t) => {
  const { next, step } = started(withHooks, { exec: { command: ['sh', '-c', 'exit 3'] } });
  const failed = step(next.state, { type: 'pod.hook-finished', container: 'app', hook: 'postStart', run: 'sim://0#0', error: 'Exec lifecycle hook ([sh -c exit 3]) failed - secret' }, NOW + 1_000);
  t.same(reasons(failed), ['FailedPostStartHook: PostStartHook failed', 'Killing: FailedPostStartHook'], 'the kubelet\'s words, never the error');
  t.match(effects(failed).filter((e) => e.type === 'provider.kill-container'), [{ container: 'app', graceSeconds: 20 }], 'with the pod\'s grace period');
  t.same(writes(failed), [], 'still not started: nothing new to write');
  const restarted = step(failed.state, { type: 'pod.provider-status', status: runningStatus(1) }, NOW + 12_000);
  t.match(effects(restarted).filter((e) => e.type === 'provider.run-hook'), [{ container: 'app', hook: 'postStart', run: 'sim://1#1' }], 'the new run\'s hook');
  const stale = step(restarted.state, { type: 'pod.hook-finished', container: 'app', hook: 'postStart', run: 'sim://0#0' }, NOW + 12_500);
  t.same(writes(stale), [], 'a late answer about the run before changes nothing');
});

t.test('an exec postStart the provider cannot run is the kubelet\'s FailedPostStartHook; the container is not held', async (t) => {
  const { next } = started(tetherConfig, { httpGet: { path: '/warm', port: 8080 } });
  t.same(reasons(next).filter((r) => r.startsWith('FailedPostStartHook')), ['FailedPostStartHook: PostStartHook failed']);
  t.same(effects(next).filter((e) => e.type === 'provider.run-hook' || e.type === 'provider.kill-container'), []);
  t.equal(readyOf(writes(next)[0]), 'True');
});

t.test('a provider whose pods run under their own kubelet runs postStart itself', async (t) => {
  const { next } = started(ownKubelet, { sleep: { seconds: 5 } });
  t.same(dueTimers(next), []);
  t.equal(readyOf(writes(next)[0]), 'True');
});

t.test('an incarnation that finds the container already shown started does not run its hook again', async (t) => {
  const pod: Pod = { ...hostPod({ sleep: { seconds: 5 } }), status: { ...runningStatus(0) } };
  const state = initialPodState(pod, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  const adopted = decidePod(tetherConfig, state, { type: 'pod.provider-fetched', pod: { ...pod, status: runningStatus(0) } }, NOW + 60_000);
  t.same(dueTimers(adopted), []);
  t.same(writes(adopted).map(readyOf).filter((r) => r === 'False'), [], 'never held');
});
