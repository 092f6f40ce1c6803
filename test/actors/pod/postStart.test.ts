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

/** A Pending status the actor holds a moment before it writes it: its hold runs out at once here. */
function heldOut(config: PodActorConfig, next: Next, at: number): Next {
  const hold = effects(next).flatMap((e) => (e.type === 'schedule' && e.msg.type === 'pod.hold-expired' ? [e.msg] : []))[0];
  if (next.stop || hold === undefined) return next;
  const expired = decidePod(config, next.state, hold, at);
  return { state: expired.state, effects: [...effects(next), ...effects(expired)] };
}

/** A pod created at the provider, then its first status (the container running). */
function started(config: PodActorConfig, postStart: Handler | undefined, run = 0): { next: Next; step: (s: PodState, msg: PodMsg, at: number) => Next } {
  const step = (s: PodState, msg: PodMsg, at: number): Next => {
    const next = heldOut(config, decidePod(config, s, msg, at), at);
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
  t.match(held?.containerStatuses?.[0], { name: 'app', image: 'nginx:1', imageID: '', ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }, 'shown as the kubelet\'s status shows it while its sync is in the hook: the container not created yet');
  t.notOk(held?.containerStatuses?.[0]?.containerID, 'no containerID the kubelet has not written');
  t.equal(held?.phase, 'Pending', 'the kubelet\'s phase of a pod whose container waits');
  const [due] = dueTimers(next);
  t.equal((due?.at ?? 0) - NOW, 5_000, 'the sleep\'s end is armed');
  const over = step(next.state, due as PodMsg, NOW + 5_000);
  t.equal(readyOf(writes(over)[0]), 'True', 'Ready once the sleep is over');
  t.match(writes(over)[0]?.containerStatuses?.[0], { ready: true, started: true, containerID: 'sim://0', state: { running: {} } });
  t.equal(writes(over)[0]?.phase, 'Running');
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

type Lifecycle = NonNullable<NonNullable<Pod['spec']>['containers'][number]['lifecycle']>;

/** The steps of `started`, for a pod of the test's own: each write lands at once. */
function stepper(config: PodActorConfig): (s: PodState, msg: PodMsg, at: number) => Next {
  return (s, msg, at) => {
    const next = heldOut(config, decidePod(config, s, msg, at), at);
    const written = writes(next).at(-1);
    if (next.stop || !written) return next;
    const landed = decidePod(config, next.state, { type: 'pod.status-written', written: fingerprint(written), stored: ownedFingerprint(written) }, at);
    return { state: landed.state, effects: [...effects(next), ...effects(landed)] };
  };
}

function createdState(config: PodActorConfig, pod: Pod): PodState {
  const step = stepper(config);
  let state = initialPodState(pod, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  state = step(state, { type: 'pod.provider-fetched', pod: undefined }, NOW - 2_000).state;
  state = step(state, { type: 'pod.admitted' }, NOW - 2_000).state;
  return step(state, { type: 'pod.create-succeeded' }, NOW - 1_000).state;
}

const kills = (next: Next): PodEffect[] => effects(next).filter((e) => e.type === 'provider.kill-container');
const hooksRun = (next: Next): PodEffect[] => effects(next).filter((e) => e.type === 'provider.run-hook');
const fieldPaths = (next: Next): string[] => effects(next).flatMap((e) => (e.type === 'host.event' ? [`${e.reason} ${e.fieldPath ?? ''}`] : []));

t.test('the kill after a failed postStart runs the container\'s preStop sleep first, then kills it with what is left of the grace period', async (t) => {
  const lifecycle: Lifecycle = { postStart: { exec: { command: ['sh', '-c', 'exit 3'] } }, preStop: { sleep: { seconds: 3 } } };
  const pod: Pod = { ...hostPod(undefined), spec: { nodeName: 'vnode-1', terminationGracePeriodSeconds: 20, containers: [{ name: 'app', image: 'nginx:1', lifecycle }] } };
  const step = stepper(withHooks);
  const first = step(createdState(withHooks, pod), { type: 'pod.provider-status', status: runningStatus(0) }, NOW);
  const failed = step(first.state, { type: 'pod.hook-finished', container: 'app', hook: 'postStart', run: 'sim://0#0', error: 'exit 3' }, NOW + 1_000);
  t.same(reasons(failed), ['FailedPostStartHook: PostStartHook failed', 'Killing: FailedPostStartHook'], 'Killing comes first, as killContainer records it before the preStop hook');
  t.same(kills(failed), [], 'no kill while the preStop sleep runs');
  const [sleepEnd] = dueTimers(failed);
  t.equal((sleepEnd?.at ?? 0) - (NOW + 1_000), 3_000, 'the sleep is armed');
  t.same(writes(failed), [], 'still held');
  const over = step(failed.state, sleepEnd as PodMsg, NOW + 4_000);
  t.match(kills(over), [{ container: 'app', graceSeconds: 17 }], 'the grace period less the 3 s the hook took');
  t.same(kills(step(over.state, sleepEnd as PodMsg, NOW + 4_500)), [], 'killed once');
});

t.test('a preStop exec hook before the kill is the provider\'s; its failure is the kubelet\'s FailedPreStopHook, and the kill follows', async (t) => {
  const lifecycle: Lifecycle = { postStart: { exec: { command: ['false'] } }, preStop: { exec: { command: ['sh', '-c', 'drain'] } } };
  const pod: Pod = { ...hostPod(undefined), spec: { nodeName: 'vnode-1', terminationGracePeriodSeconds: 20, containers: [{ name: 'app', image: 'nginx:1', lifecycle }] } };
  const step = stepper(withHooks);
  const first = step(createdState(withHooks, pod), { type: 'pod.provider-status', status: runningStatus(0) }, NOW);
  const failed = step(first.state, { type: 'pod.hook-finished', container: 'app', hook: 'postStart', run: 'sim://0#0', error: 'exit 1' }, NOW + 1_000);
  t.match(hooksRun(failed), [{ container: 'app', hook: 'preStop', run: 'sim://0#0' }]);
  t.same(kills(failed), []);
  const preStopFailed = step(failed.state, { type: 'pod.hook-finished', container: 'app', hook: 'preStop', run: 'sim://0#0', error: 'drain: not found' }, NOW + 3_500);
  t.same(reasons(preStopFailed), ['FailedPreStopHook: PreStopHook failed']);
  t.match(kills(preStopFailed), [{ container: 'app', graceSeconds: 18 }]);
});

t.test('a preStop hook before the kill that outlasts the grace period is cut: the kill gets the kubelet\'s minimum 2 s', async (t) => {
  const lifecycle: Lifecycle = { postStart: { exec: { command: ['false'] } }, preStop: { httpGet: { path: '/drain', port: 8080 } } };
  const pod: Pod = { ...hostPod(undefined), spec: { nodeName: 'vnode-1', terminationGracePeriodSeconds: 5, containers: [{ name: 'app', image: 'nginx:1', lifecycle }] } };
  const step = stepper(withHooks);
  const first = step(createdState(withHooks, pod), { type: 'pod.provider-status', status: runningStatus(0) }, NOW);
  const failed = step(first.state, { type: 'pod.hook-finished', container: 'app', hook: 'postStart', run: 'sim://0#0', error: 'exit 1' }, NOW);
  const [cut] = dueTimers(failed);
  t.equal((cut?.at ?? 0) - NOW, 5_000, 'bounded by the grace period');
  const cutOff = step(failed.state, cut as PodMsg, NOW + 5_000);
  t.match(kills(cutOff), [{ container: 'app', graceSeconds: 2 }]);
  const late = step(cutOff.state, { type: 'pod.hook-finished', container: 'app', hook: 'preStop', run: 'sim://0#0' }, NOW + 6_000);
  t.same(kills(late), [], 'a late answer kills nothing again');
});

t.test('with a grace period of 0 the kill after a failed postStart runs no preStop hook, as killContainer', async (t) => {
  const lifecycle: Lifecycle = { postStart: { exec: { command: ['false'] } }, preStop: { exec: { command: ['drain'] } } };
  const zeroGrace: Pod = { ...hostPod(undefined), spec: { nodeName: 'vnode-1', terminationGracePeriodSeconds: 0, containers: [{ name: 'app', image: 'nginx:1', lifecycle }] } };
  const step = stepper(withHooks);
  const first = step(createdState(withHooks, zeroGrace), { type: 'pod.provider-status', status: runningStatus(0) }, NOW);
  const failed = step(first.state, { type: 'pod.hook-finished', container: 'app', hook: 'postStart', run: 'sim://0#0', error: 'exit 1' }, NOW);
  t.same(hooksRun(failed), [], 'no preStop hook');
  t.match(kills(failed), [{ container: 'app', graceSeconds: 0 }]);
});

/** A pod with a sidecar `proxy` (with `lifecycle`) before its main container `app`. */
function sidecarPod(lifecycle: Lifecycle): Pod {
  return {
    metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1', generation: 1 },
    spec: { nodeName: 'vnode-1', terminationGracePeriodSeconds: 20, initContainers: [{ name: 'proxy', image: 'envoy:1', restartPolicy: 'Always', lifecycle }], containers: [{ name: 'app', image: 'nginx:1' }] },
    status: { phase: 'Pending' },
  };
}

/** The provider's status while the sidecar `proxy` runs (its `run`-th instance) and `app` waits for it. */
function sidecarRunning(run = 0): PodStatus {
  return {
    phase: 'Pending',
    conditions: [{ type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized' }, { type: 'ContainersReady', status: 'False' }, { type: 'Ready', status: 'False' }],
    initContainerStatuses: [{ name: 'proxy', image: 'envoy:1', imageID: 'y', containerID: `sim://proxy-${run}`, ready: true, started: true, restartCount: run, state: { running: { startedAt: new Date(NOW) } } }],
    containerStatuses: [{ name: 'app', image: 'nginx:1', imageID: '', ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
  };
}

t.test('a sidecar\'s postStart sleep runs before what follows it: held not started, then the provider is told it is over', async (t) => {
  const step = stepper(withHooks);
  const first = step(createdState(withHooks, sidecarPod({ postStart: { sleep: { seconds: 5 } } })), { type: 'pod.provider-status', status: sidecarRunning(0) }, NOW);
  const [due] = dueTimers(first);
  t.equal((due?.at ?? 0) - NOW, 5_000, 'the sidecar\'s sleep is armed');
  t.match(writes(first)[0]?.initContainerStatuses?.[0], { name: 'proxy', ready: false, started: false, state: { waiting: { reason: 'PodInitializing' } } }, 'the sidecar shown as the kubelet shows it in its hook');
  t.same(effects(first).filter((e) => e.type === 'provider.poststart-done'), [], 'what follows it is held');
  const over = step(first.state, due as PodMsg, NOW + 5_000);
  t.match(effects(over).filter((e) => e.type === 'provider.poststart-done'), [{ container: 'proxy', containerID: 'sim://proxy-0' }], 'the provider starts what follows now');
  t.match(writes(over)[0]?.initContainerStatuses?.[0], { name: 'proxy', started: true, state: { running: {} } });
});

t.test('a sidecar\'s failed postStart is the kubelet\'s FailedPostStartHook and Killing on the init container; what follows stays held', async (t) => {
  const step = stepper(withHooks);
  const first = step(createdState(withHooks, sidecarPod({ postStart: { exec: { command: ['false'] } } })), { type: 'pod.provider-status', status: sidecarRunning(0) }, NOW);
  t.match(hooksRun(first), [{ container: 'proxy', hook: 'postStart', run: 'sim://proxy-0#0' }]);
  const failed = step(first.state, { type: 'pod.hook-finished', container: 'proxy', hook: 'postStart', run: 'sim://proxy-0#0', error: 'exit 1' }, NOW + 1_000);
  t.same(fieldPaths(failed), ['FailedPostStartHook spec.initContainers{proxy}', 'Killing spec.initContainers{proxy}']);
  t.match(kills(failed), [{ container: 'proxy', graceSeconds: 20 }]);
  t.same(effects(failed).filter((e) => e.type === 'provider.poststart-done'), []);
  const again = step(failed.state, { type: 'pod.provider-status', status: sidecarRunning(1) }, NOW + 11_000);
  t.match(hooksRun(again), [{ container: 'proxy', hook: 'postStart', run: 'sim://proxy-1#1' }], 'its next run runs the hook again');
  const done = step(again.state, { type: 'pod.hook-finished', container: 'proxy', hook: 'postStart', run: 'sim://proxy-1#1' }, NOW + 12_000);
  t.match(effects(done).filter((e) => e.type === 'provider.poststart-done'), [{ container: 'proxy', containerID: 'sim://proxy-1' }]);
});

t.test('a restarted container held in its hook keeps the status the host last showed for it, as the kubelet\'s last written status', async (t) => {
  const step = stepper(withHooks);
  const pod = hostPod({ exec: { command: ['false'] } });
  const first = step(createdState(withHooks, pod), { type: 'pod.provider-status', status: runningStatus(0) }, NOW);
  const done = step(first.state, { type: 'pod.hook-finished', container: 'app', hook: 'postStart', run: 'sim://0#0' }, NOW + 1_000);
  const shown = writes(done).at(-1);
  t.match(shown?.containerStatuses?.[0], { state: { running: {} } });
  // The host pod now shows what was written; then the container exits and the provider says so.
  const terminated: PodStatus = { ...runningStatus(0), phase: 'Running', containerStatuses: [{ name: 'app', image: 'nginx:1', imageID: 'x', containerID: 'sim://0', ready: false, started: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] };
  const hostNow: Pod = { ...pod, status: shown ?? {} };
  const seen = step({ ...done.state, host: hostNow }, { type: 'pod.provider-status', status: terminated }, NOW + 2_000);
  const exitShown: Pod = { ...pod, status: writes(seen).at(-1) ?? {} };
  const restarted = step({ ...seen.state, host: exitShown }, { type: 'pod.provider-status', status: { ...runningStatus(1), containerStatuses: [{ ...(runningStatus(1).containerStatuses?.[0] as NonNullable<PodStatus['containerStatuses']>[number]), lastState: { terminated: { exitCode: 1, reason: 'Error' } } }] } }, NOW + 3_000);
  const held = writes(restarted).at(-1);
  t.match(held?.containerStatuses?.[0], { containerID: 'sim://0', restartCount: 0, ready: false, started: false, state: { terminated: { exitCode: 1 } } }, 'the exit the host showed, not the new run');
  t.equal(held?.phase, 'Running', 'a container that ran before keeps the pod Running');
});

t.test('a failed call telling the provider a sidecar\'s hook is over is made again after a backoff while that run is current, never for a later run', async (t) => {
  const step = stepper(withHooks);
  const first = step(createdState(withHooks, sidecarPod({ postStart: { exec: { command: ['true'] } } })), { type: 'pod.provider-status', status: sidecarRunning(0) }, NOW);
  const done = step(first.state, { type: 'pod.hook-finished', container: 'proxy', hook: 'postStart', run: 'sim://proxy-0#0' }, NOW + 1_000);
  t.match(effects(done).filter((e) => e.type === 'provider.poststart-done'), [{ container: 'proxy', containerID: 'sim://proxy-0' }]);
  const failed = step(done.state, { type: 'pod.poststart-done-failed', container: 'proxy', containerID: 'sim://proxy-0', attempt: 0 }, NOW + 1_100);
  const [retry] = effects(failed).filter((e): e is Extract<PodEffect, { type: 'schedule' }> => e.type === 'schedule');
  t.match(retry?.msg, { type: 'pod.retry-poststart-done', container: 'proxy', containerID: 'sim://proxy-0', attempt: 1 }, 'a retry armed');
  t.ok((retry?.ms ?? 0) > 0 && (retry?.ms ?? Infinity) <= withHooks.retry.maxMs, 'after a backoff within the cap');
  const again = step(failed.state, retry?.msg as PodMsg, NOW + 1_100 + (retry?.ms ?? 0));
  t.match(effects(again).filter((e) => e.type === 'provider.poststart-done'), [{ container: 'proxy', containerID: 'sim://proxy-0', attempt: 1 }], 'told again');
  const later = step(again.state, { type: 'pod.provider-status', status: sidecarRunning(1) }, NOW + 20_000);
  const stale = step(later.state, { type: 'pod.retry-poststart-done', container: 'proxy', containerID: 'sim://proxy-0', attempt: 2 }, NOW + 21_000);
  t.same(effects(stale).filter((e) => e.type === 'provider.poststart-done'), [], 'a retry for a run that is over is dropped');
  const staleFailure = step(later.state, { type: 'pod.poststart-done-failed', container: 'proxy', containerID: 'sim://proxy-0', attempt: 1 }, NOW + 21_000);
  t.same(effects(staleFailure), [], 'and so is the failure of one');
});
