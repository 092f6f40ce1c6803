/**
 * What the pod actor answers, as a kubelet that cannot, when the spec asks for what no provider
 * does yet: an ephemeral container (kubectl debug) and an in-place resize.
 */
import t from 'tap';
import type { Pod, PodCondition, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { decidePod, initialPodState } from '../../../src/actors/pod/decide.js';
import type { PodEffect, PodMsg, PodState } from '../../../src/actors/pod/protocol.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import { cannotResize, cannotRunEphemeral } from '../../../src/actors/pod/unsupportedDuties.js';
import type { Transition } from '../../../src/runtime/behavior.js';
import { fingerprint } from '../../../src/lib/fingerprint.js';
import { ownedFingerprint } from '../../../src/actors/pod/podStatusView.js';

const config = defaultPodActorConfig('vnode-1');
const NOW = Date.parse('2026-11-30T04:00:00Z');
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const identity = { namespace: 'data', name: 'db-0', uid: 'uid-1' };
const running: PodStatus = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }],
  containerStatuses: [{ name: 'app', image: 'db:1', imageID: '', ready: true, restartCount: 0, state: { running: {} } }],
};
const host = (generation: number, cpu: string, extra: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({
  metadata: { ...identity, generation },
  spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'db:1', resources: { requests: { cpu } } }], ...extra },
  status: { phase: 'Running' },
});
type Next = Transition<PodState, PodEffect>;
const step = (state: PodState, msg: PodMsg, now = NOW): Next => decidePod(config, state, msg, now);
const effects = (next: Next): readonly PodEffect[] => (next.stop ? [] : next.effects ?? []);
const writes = (next: Next): PodStatus[] => effects(next).flatMap((e) => (e.type === 'host.write-status' ? [e.status] : []));
const events = (next: Next) => effects(next).flatMap((e) => (e.type === 'host.event' ? [e] : []));
const resizeCondition = (status: PodStatus | undefined): PodCondition | undefined => status?.conditions?.find((c) => c.type === 'PodResizePending');

/** A pod running at the provider, its first status written. */
function runningPod(pod: Pod): PodState {
  const fetched = step(initialPodState(pod, identity, ready), { type: 'pod.provider-fetched', pod: { ...pod, status: running } });
  return confirmed(fetched);
}

/** `next` with its status write confirmed. */
function confirmed(next: Next): PodState {
  const status = writes(next).at(-1);
  return status ? step(next.state, { type: 'pod.status-written', written: fingerprint(status), stored: ownedFingerprint(status) }).state : next.state;
}

t.test('an ephemeral container the provider does not report is shown terminated with StartError and a message, with one Failed Event', async (t) => {
  const s = runningPod(host(1, '100m'));
  const debugged = host(2, '100m', { ephemeralContainers: [{ name: 'debugger-x', image: 'busybox' }] });
  const next = step(s, { type: 'pod.host-changed', pod: debugged });
  const [written] = writes(next);
  const shown = written?.ephemeralContainerStatuses?.find((c) => c.name === 'debugger-x');
  t.same(shown?.state?.terminated, { exitCode: 128, reason: 'StartError', message: cannotRunEphemeral }, 'a start that failed, saying why');
  t.equal(shown?.ready, false);
  t.same(events(next).map((e) => [e.eventType, e.reason, e.note, e.fieldPath, e.source?.component]), [
    ['Warning', 'Failed', `Error: ${cannotRunEphemeral}`, 'spec.ephemeralContainers{debugger-x}', 'kubelet'],
  ]);
  const later = step(confirmed(next), { type: 'pod.provider-status', status: running });
  t.same(writes(later), [], 'not written again');
  t.same(events(later), [], 'nor said again');
});

t.test('an ephemeral container the provider reports is left as the provider says', async (t) => {
  const debugged = host(2, '100m', { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] });
  const reported = { ...running, ephemeralContainerStatuses: [{ name: 'dbg', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { running: {} } }] };
  const s = runningPod(host(1, '100m'));
  const next = step(step(s, { type: 'pod.host-changed', pod: debugged }).state, { type: 'pod.provider-status', status: reported });
  t.same(writes(next).at(-1)?.ephemeralContainerStatuses, reported.ephemeralContainerStatuses);
});

t.test('a resize the provider cannot apply gets PodResizePending Infeasible and one ResizeInfeasible Event; it clears when the spec is back', async (t) => {
  const s = runningPod(host(1, '100m'));
  const resized = step(s, { type: 'pod.host-changed', pod: host(2, '200m') }, NOW + 1_000);
  const condition = resizeCondition(writes(resized)[0]);
  t.same(condition && { ...condition, lastTransitionTime: new Date(condition.lastTransitionTime as Date).getTime() }, {
    type: 'PodResizePending', status: 'True', reason: 'Infeasible', message: cannotResize, lastTransitionTime: NOW + 1_000, observedGeneration: 2,
  });
  t.same(events(resized).map((e) => [e.eventType, e.reason, e.source?.component]), [['Warning', 'ResizeInfeasible', 'kubelet']]);
  t.match(events(resized)[0]?.note, /^Pod resize Infeasible: \{.*"cpu":"200m".*"generation":2/);
  t.same(effects(resized).filter((e) => e.type === 'provider.update').length, 1, 'the provider is still given the spec');
  t.same(writes(resized)[0]?.containerStatuses, running.containerStatuses, 'no resources the provider did not report');

  const again = step(confirmed(resized), { type: 'pod.provider-status', status: running }, NOW + 2_000);
  t.same(writes(again), [], 'not written again');
  t.same(events(again), [], 'nor said again');

  const back = step(again.state, { type: 'pod.host-changed', pod: { ...host(3, '100m'), status: { phase: 'Running', conditions: [resizeCondition(writes(resized)[0]) as PodCondition] } } }, NOW + 3_000);
  t.same(resizeCondition(writes(back)[0])?.status, 'False', 'no longer pending');
  t.same(events(back), []);
});

t.test('a resize before the provider has the pod is no resize: the provider is given the new spec', async (t) => {
  const s = initialPodState(host(1, '100m'), identity, ready);
  const changed = step(s, { type: 'pod.host-changed', pod: host(2, '200m') }).state;
  const fetched = step(changed, { type: 'pod.provider-fetched', pod: { ...host(2, '200m'), status: running } });
  t.equal(resizeCondition(writes(fetched)[0]), undefined);
});

/** A provider that resizes in place and runs ephemeral containers (an InPlaceUpdateProvider): its word is the status. */
const capable = { ...config, containerDuties: { ...config.containerDuties, inPlace: { resize: true, ephemeralContainers: true } } };
const stepCapable = (state: PodState, msg: PodMsg, now = NOW): Next => decidePod(capable, state, msg, now);
function runningAtCapable(pod: Pod): PodState {
  const fetched = stepCapable(initialPodState(pod, identity, ready, capable.containerDuties.inPlace), { type: 'pod.provider-fetched', pod: { ...pod, status: running } });
  const status = writes(fetched).at(-1);
  return status ? stepCapable(fetched.state, { type: 'pod.status-written', written: fingerprint(status), stored: ownedFingerprint(status) }).state : fetched.state;
}

t.test('a provider that runs ephemeral containers: one it has not reported yet is not shown failed, and no Failed Event is said', async (t) => {
  const s = runningAtCapable(host(1, '100m'));
  const debugged = host(2, '100m', { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] });
  const next = stepCapable(s, { type: 'pod.host-changed', pod: debugged });
  t.equal(writes(next).at(-1)?.ephemeralContainerStatuses, undefined, 'nothing invented');
  t.same(events(next), []);
  t.same(effects(next).filter((e) => e.type === 'provider.update').length, 1, 'the provider is given the spec with the container');
  const reported = { ...running, ephemeralContainerStatuses: [{ name: 'dbg', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { running: {} } }] };
  const later = stepCapable(next.state, { type: 'pod.provider-status', status: reported });
  t.same(writes(later).at(-1)?.ephemeralContainerStatuses, reported.ephemeralContainerStatuses, 'shown as the provider says');
});

t.test('a provider that resizes in place: no Infeasible of Tether\'s; its resize conditions and container resources are mirrored as it reports them', async (t) => {
  const s = runningAtCapable(host(1, '100m'));
  const resized = stepCapable(s, { type: 'pod.host-changed', pod: host(2, '200m') }, NOW + 1_000);
  t.equal(resizeCondition(writes(resized).at(-1)), undefined, 'no condition until the provider says');
  t.same(events(resized), [], 'no ResizeInfeasible');
  t.same(effects(resized).filter((e) => e.type === 'provider.update').length, 1, 'the provider is given the new resources');
  const inProgress: PodStatus = {
    ...running,
    conditions: [...(running.conditions ?? []), { type: 'PodResizeInProgress', status: 'True', reason: '', message: '', observedGeneration: 2 }],
    containerStatuses: [{ ...running.containerStatuses![0]!, allocatedResources: { cpu: '200m' }, resources: { requests: { cpu: '100m' } } }],
  };
  const progressing = stepCapable(resized.state, { type: 'pod.provider-status', status: inProgress }, NOW + 2_000);
  const shown = writes(progressing).at(-1);
  t.same(shown?.conditions?.find((c) => c.type === 'PodResizeInProgress')?.status, 'True');
  t.equal(resizeCondition(shown), undefined);
  t.same(shown?.containerStatuses?.[0]?.allocatedResources, { cpu: '200m' });
  const deferred: PodStatus = { ...running, conditions: [...(running.conditions ?? []), { type: 'PodResizePending', status: 'True', reason: 'Deferred', message: 'Node didn\'t have enough resource: cpu', observedGeneration: 2 }] };
  const pending = stepCapable(progressing.state, { type: 'pod.provider-status', status: deferred }, NOW + 3_000);
  t.same(resizeCondition(writes(pending).at(-1)), deferred.conditions?.at(-1), 'the provider\'s Deferred, as it says');
  t.same(events(pending), [], 'the provider\'s kubelet says its own Events');
});

t.test('a provider that resizes in place: a resize condition it stops reporting (the kubelet removes it) is turned False on the host, which a merge would keep', async (t) => {
  const s = runningAtCapable(host(1, '100m'));
  const inProgress = { type: 'PodResizeInProgress', status: 'True', reason: '', message: '', lastTransitionTime: new Date(NOW) };
  const shown = { ...host(2, '200m'), status: { phase: 'Running', conditions: [inProgress] } };
  const changed = stepCapable(s, { type: 'pod.host-changed', pod: shown }, NOW + 1_000);
  const done = stepCapable(changed.state, { type: 'pod.provider-status', status: running }, NOW + 2_000);
  const written = writes(done).at(-1) ?? writes(changed).at(-1);
  const condition = written?.conditions?.find((c) => c.type === 'PodResizeInProgress');
  t.same(condition && { type: condition.type, status: condition.status, reason: condition.reason, message: condition.message }, { type: 'PodResizeInProgress', status: 'False', reason: '', message: '' });
});
