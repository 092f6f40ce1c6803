import t from 'tap';
import { admittingEverything } from '../../support/admittedStep.js';
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { createErrorAnnotation, createErrorAtAnnotation, hostUidMark, virtualNodeMark } from '../../../src/actors/pod/annotations.js';
import { decidePod, initialPodState, onPodStart, retryDelay } from '../../../src/actors/pod/decide.js';
import { type PodEffect, type PodMsg, type PodState } from '../../../src/actors/pod/protocol.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import type { StateSummary, Transition } from '../../../src/runtime/behavior.js';
import { podActor, type PodActorDeps } from '../../../src/actors/pod/behavior.js';
import { fingerprint } from '../../../src/lib/fingerprint.js';
import { ownedFingerprint } from '../../../src/actors/pod/podStatusView.js';

const config = defaultPodActorConfig('vnode-1');
const NOW = Date.parse('2026-11-30T04:00:00Z');
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const notReady = { ready: false, reason: 'ProviderUnreachable', message: 'ping timed out after 5000 ms' };

function hostPod(over: Partial<Pod['metadata']> = {}, spec: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return {
    metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1', labels: { app: 'web' }, ...over },
    spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'nginx:1' }], ...spec },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
  };
}

const running: PodStatus = {
  phase: 'Running',
  podIP: '10.244.0.7',
  podIPs: [{ ip: '10.244.0.7' }],
  conditions: [
    { type: 'PodScheduled', status: 'True' },
    { type: 'Ready', status: 'True' },
    { type: 'ContainersReady', status: 'True' },
  ],
  containerStatuses: [{ name: 'app', image: 'nginx:1', imageID: '', ready: true, restartCount: 0, state: { running: {} } }],
};

type Next = Transition<PodState, PodEffect>;
const fresh = (pod: Pod = hostPod()): PodState => initialPodState(pod, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
const step = admittingEverything((state: PodState, msg: PodMsg, now = NOW): Next => decidePod(config, state, msg, now));
const effects = (next: Next): readonly PodEffect[] => (next.stop ? [] : next.effects ?? []);
const types = (next: Next): string[] => effects(next).map((e) => e.type);
function only<T extends PodEffect['type']>(next: Next, type: T): Extract<PodEffect, { type: T }> {
  const found = effects(next).filter((e) => e.type === type);
  if (found.length !== 1) throw new Error(`expected one ${type} effect, got ${JSON.stringify(types(next))}`);
  return found[0] as Extract<PodEffect, { type: T }>;
}

/** The creation-error annotation patch came back written with `value`. */
const annotationLanded = (state: PodState, value: string | null): PodState => step(state, { type: 'pod.annotation-written', value }).state;
/** The actor's summary in the live actor tree. */
const tree = (state: PodState): StateSummary => podActor({} as PodActorDeps, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }).summarize?.(state) ?? {};

/** A pod that the provider runs and whose status Tether has written. */
function runningState(): PodState {
  let s = step(fresh(), { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } }).state;
  s = step(s, { type: 'pod.status-written', written: 'x', stored: 'y' }).state;
  return s;
}

t.test('every incarnation starts by re-reading the provider', async (t) => {
  const next = onPodStart(config, runningState(), NOW);
  t.equal(next.state.stage, 'starting');
  t.same(types(next), ['provider.get']);
});

t.test('a pod the provider does not have is created from a marked copy without status', async (t) => {
  const host = hostPod();
  const next = step(fresh(host), { type: 'pod.provider-fetched', pod: undefined });
  t.equal(next.state.stage, 'creating');
  const { pod } = only(next, 'provider.create');
  t.not(pod, host, 'a copy, not the cached object');
  t.equal(pod.status, undefined);
  t.equal(pod.metadata?.annotations?.[virtualNodeMark], 'vnode-1');
  t.equal(pod.metadata?.annotations?.[hostUidMark], 'uid-1');
  t.equal(host.metadata?.annotations, undefined, 'the host pod object is untouched');
});

t.test('a creation failure is an annotation and an Event, retried with backoff; status is never faked', async (t) => {
  const creating = step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state;
  const failed = step(creating, { type: 'pod.create-failed', kind: 'transient', message: 'exceeded quota: compute' });
  t.equal(failed.state.stage, 'backoff');
  t.match(tree(failed.state), { stage: 'backoff', createAttempts: 1 }, 'the actor tree counts the failed attempt');
  t.same(only(failed, 'host.annotate').annotations, {
    [createErrorAnnotation]: 'exceeded quota: compute',
    [createErrorAtAnnotation]: '2026-11-30T04:00:00.000Z',
  });
  t.match(only(failed, 'host.event'), { eventType: 'Warning', reason: 'ProviderCreateFailed', note: /exceeded quota: compute/ });
  const timer = only(failed, 'schedule');
  t.same(timer.msg, { type: 'pod.retry-create' });
  t.equal(tree(failed.state).nextAttemptAt, new Date(NOW + timer.ms).toISOString(), 'and shows when the next is due');
  t.notOk(types(failed).includes('host.write-status'), 'no phase or condition carries the error');

  const annotated = step(failed.state, { type: 'pod.annotation-written', value: 'exceeded quota: compute' }).state;
  const retried = step(annotated, { type: 'pod.retry-create' });
  t.equal(retried.state.stage, 'creating');
  t.ok(only(retried, 'provider.create'));
  t.same(only(retried, 'schedule').msg, { type: 'pod.create-deadline', attempt: 1 }, 'the second attempt, with its own deadline');
  t.equal(only(retried, 'provider.create').deadlineMs, only(retried, 'schedule').ms, 'the call itself is abandoned at that deadline, so a queued create is never sent late');

  const failedAgain = step(retried.state, { type: 'pod.create-failed', kind: 'transient', message: 'exceeded quota: compute' });
  t.ok(only(failedAgain, 'schedule').ms > timer.ms, 'the delay grows');
  t.notOk(types(failedAgain).includes('host.annotate'), 'the same error is not annotated twice');

  const created = step(step(failedAgain.state, { type: 'pod.retry-create' }).state, { type: 'pod.create-succeeded' });
  t.equal(created.state.stage, 'running');
  t.same(only(created, 'host.annotate').annotations, { [createErrorAnnotation]: null, [createErrorAtAnnotation]: null }, 'cleared on success');
  t.match(only(created, 'host.event'), { eventType: 'Normal', reason: 'ProviderCreated', note: /after 2 failed attempt/ });
});

t.test('a creation failure with the provider\'s own reason (virtual-kubelet\'s MandatoryConfigMapNotFound) records that Event beside ProviderCreateFailed', async (t) => {
  const creating = step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state;
  const failed = step(creating, { type: 'pod.create-failed', kind: 'transient', message: 'configmap "app-config" not found', reason: 'MandatoryConfigMapNotFound' });
  const events = effects(failed).filter((e) => e.type === 'host.event');
  t.match(events, [
    { eventType: 'Warning', reason: 'MandatoryConfigMapNotFound', note: 'configmap "app-config" not found' },
    { eventType: 'Warning', reason: 'ProviderCreateFailed' },
  ]);
  t.equal(failed.state.stage, 'backoff', 'still retried: the ConfigMap may appear');
  const rejected = step(creating, { type: 'pod.create-failed', kind: 'invalid-input', message: 'no', reason: 'InvalidEnvironmentVariableNames' });
  t.match(effects(rejected).filter((e) => e.type === 'host.event'), [{ reason: 'InvalidEnvironmentVariableNames' }, { reason: 'ProviderRejected' }]);
});

t.test('an invalid spec is not retried until the spec changes', async (t) => {
  const creating = step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state;
  const rejected = step(creating, { type: 'pod.create-failed', kind: 'invalid-input', message: 'image "bad" is not allowed' });
  t.equal(rejected.state.stage, 'rejected');
  t.notOk(types(rejected).includes('schedule'));
  t.match(only(rejected, 'host.event'), { reason: 'ProviderRejected' });
  const annotated = annotationLanded(rejected.state, 'image "bad" is not allowed');
  t.same(types(step(annotated, { type: 'pod.host-changed', pod: { ...hostPod(), status: { phase: 'Pending' } } })), [], 'status-only change: nothing');
  const fixed = step(annotated, { type: 'pod.host-changed', pod: hostPod({}, { containers: [{ name: 'app', image: 'good' }] }) });
  t.equal(fixed.state.stage, 'creating');
  t.equal(only(fixed, 'provider.create').pod.spec?.containers[0]?.image, 'good');
});

t.test('provider status is written as Tether-owned fields only, newest first, never twice', async (t) => {
  const s = step(step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state, { type: 'pod.create-succeeded' }).state;
  const first = step(s, { type: 'pod.provider-status', status: running });
  const written = only(first, 'host.write-status').status;
  t.same(written.conditions?.map((c) => c.type), ['Ready', 'ContainersReady'], 'PodScheduled is the scheduler\'s, not ours');
  t.equal(written.podIP, '10.244.0.7');
  t.same(written.conditions?.map((c) => [c.reason, c.message]), [['', ''], ['', '']], 'reason and message are always sent, so a merge cannot keep stale ones');

  const second = step(first.state, { type: 'pod.provider-status', status: { ...running, podIP: '10.244.0.8' } });
  const third = step(second.state, { type: 'pod.provider-status', status: { ...running, podIP: '10.244.0.9' } });
  t.equal(only(second, 'host.write-status').status.podIP, '10.244.0.8', 'sent at once: the queue drops the older one still waiting');
  const latest = only(third, 'host.write-status').status;
  t.equal(latest.podIP, '10.244.0.9');
  t.same(types(step(third.state, { type: 'pod.provider-status', status: { ...running, podIP: '10.244.0.9' } })), [], 'the newest on its way is not sent twice');
  const dropped = step(step(third.state, { type: 'pod.status-write-superseded' }).state, { type: 'pod.status-write-superseded' }).state;
  const settled = step(dropped, { type: 'pod.status-written', written: fingerprint(latest), stored: 'd' }).state;
  const repeat = step(settled, { type: 'pod.provider-status', status: { ...running, podIP: '10.244.0.9' } });
  t.same(types(repeat), [], 'the status just written is not written again');
  t.equal(repeat.state.writes.inFlight, 0);
});

t.test('the time from a provider status to the host is observed once it lands', async (t) => {
  const s = runningState();
  const arrived = step(s, { type: 'pod.provider-status', status: { ...running, podIP: '10.9.9.9' } }, NOW);
  const written = only(arrived, 'host.write-status').status;
  const landed = step(arrived.state, { type: 'pod.status-written', written: fingerprint(written), stored: 'y1' }, NOW + 250);
  t.same(only(landed, 'observe-status-latency'), { type: 'observe-status-latency', ms: 250 });
  const again = step(landed.state, { type: 'pod.provider-status', status: { ...running, podIP: '10.9.9.9' } }, NOW + 300);
  t.same(types(again), [], 'an unchanged status is not written, and not timed');
  t.equal(again.state.writes.waitingSince, null);
});

t.test('a failed status write is retried with the newest status', async (t) => {
  const s = runningState();
  const w = step(s, { type: 'pod.provider-status', status: { ...running, podIP: '10.1.1.1' } });
  const failed = step(w.state, { type: 'pod.status-write-failed', message: 'etcd timeout', podGone: false });
  t.same(only(failed, 'schedule').msg, { type: 'pod.retry-write' });
  const retry = step(failed.state, { type: 'pod.retry-write' });
  t.equal(only(retry, 'host.write-status').status.podIP, '10.1.1.1');
});

t.test('virtual node NotReady: pods become Ready=False, stale statuses are held, Ready again re-reads the provider', async (t) => {
  const s = runningState();
  const down = step(s, { type: 'pod.node-readiness', readiness: notReady });
  const status = only(down, 'host.write-status').status;
  for (const type of ['Ready', 'ContainersReady']) {
    t.match(status.conditions?.find((c) => c.type === type), { status: 'False', reason: 'VirtualNodeNotReady', message: /ping timed out/ });
  }
  t.equal(status.phase, 'Running', 'the phase stays the provider\'s');
  const settled = step(down.state, { type: 'pod.status-written', written: 'n', stored: 'n' }).state;
  t.same(types(step(settled, { type: 'pod.provider-status', status: running })), [], 'a stale Ready=True is not written while NotReady');

  const up = step(settled, { type: 'pod.node-readiness', readiness: ready });
  t.same(types(up), ['provider.get']);
  const fetched = step(up.state, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } });
  t.match(only(fetched, 'host.write-status').status.conditions?.find((c) => c.type === 'Ready'), { status: 'True' });
});

t.test('graceful deletion: delete at the provider, mirror termination, then delete the host pod with grace 0', async (t) => {
  const s = runningState();
  const deleting = hostPod({ deletionTimestamp: new Date(NOW), deletionGracePeriodSeconds: 20 });
  const started = step(s, { type: 'pod.host-changed', pod: deleting });
  t.equal(started.state.stage, 'terminating');
  t.equal(only(started, 'provider.delete').pod.metadata?.deletionGracePeriodSeconds, 20);
  t.same(only(started, 'schedule'), { type: 'schedule', ms: 30_000, msg: { type: 'pod.grace-expired', at: NOW + 30_000 } }, 'the deadline: grace + margin');

  const stopping = step(started.state, { type: 'pod.provider-status', status: { ...running, phase: 'Running' } });
  t.ok(only(stopping, 'host.write-status'), 'the status keeps being mirrored while it terminates');
  const afterWrite = step(stopping.state, { type: 'pod.status-written', written: 'a', stored: 'a' }).state;
  const ended = step(afterWrite, { type: 'pod.provider-status', status: { ...running, phase: 'Succeeded' } });
  t.equal(ended.state.stage, 'finishing');
  t.equal(only(ended, 'host.write-status').status.phase, 'Succeeded');
  t.notOk(types(ended).includes('host.delete'), 'the final status lands first');
  const del = step(ended.state, { type: 'pod.status-written', written: 'b', stored: 'b' });
  t.same(types(del), ['host.delete']);
  t.ok(step(del.state, { type: 'pod.host-delete-finished' }).stop, 'the actor finishes');
});

t.test('deletion of a pod the provider may have: asked at the provider, finished on its answer; never created: at once', async (t) => {
  const pending = step(step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state, { type: 'pod.create-succeeded' }).state;
  const del = step(pending, { type: 'pod.host-changed', pod: hostPod({ deletionTimestamp: new Date(NOW) }) });
  t.same(types(del).sort(), ['provider.delete', 'schedule']);
  t.same(types(step(del.state, { type: 'pod.provider-gone', reason: 'RemotePodDeleted', message: 'deleted' })), ['host.delete']);

  const backoff = step(step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state, { type: 'pod.create-failed', kind: 'transient', message: 'x' }).state;
  const del2 = step(annotationLanded(backoff, 'x'), { type: 'pod.host-changed', pod: hostPod({ deletionTimestamp: new Date(NOW) }) });
  t.same(types(del2).sort(), ['provider.delete', 'schedule'], 'a failed create may still have happened');
  t.same(types(step(del2.state, { type: 'pod.delete-failed', kind: 'not-found', message: 'no such pod' })), ['host.delete']);

  const rejected = step(step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state, { type: 'pod.create-failed', kind: 'invalid-input', message: 'x' }).state;
  const del3 = step(annotationLanded(rejected, 'x'), { type: 'pod.host-changed', pod: hostPod({ deletionTimestamp: new Date(NOW) }) });
  t.same(types(del3), ['host.delete'], 'refused by the provider: nothing runs');
});

t.test('a pod deleted on the host without us (force delete) is still removed at the provider', async (t) => {
  const s = runningState();
  const gone = step(s, { type: 'pod.host-deleted' });
  t.equal(gone.state.stage, 'orphaned');
  t.equal(only(gone, 'provider.delete').pod.metadata?.uid, 'uid-1');
  t.ok(step(gone.state, { type: 'pod.delete-accepted' }).stop);
  const notFound = step(gone.state, { type: 'pod.delete-failed', kind: 'not-found', message: 'gone' });
  t.ok(notFound.stop, 'not found at the provider counts as deleted');
  const transient = step(gone.state, { type: 'pod.delete-failed', kind: 'transient', message: 'timeout' });
  t.same(only(transient, 'schedule').msg, { type: 'pod.retry-delete' });
});

t.test('a pod the provider lost is reported Failed with the reason, not re-created', async (t) => {
  const lost = step(runningState(), { type: 'pod.provider-gone', reason: 'NotFound', message: 'deleted remotely by someone else' });
  t.equal(lost.state.stage, 'done');
  const status = only(lost, 'host.write-status').status;
  t.match(status, { phase: 'Failed', reason: 'NotFound', message: /deleted remotely/ });
  t.notOk(types(lost).includes('provider.create'));
  t.match(only(lost, 'host.event'), { reason: 'ProviderPodLost' });
});

t.test('after a restart, a pod the provider already runs is adopted, not created again', async (t) => {
  const adopted = step(fresh(), { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } });
  t.equal(adopted.state.stage, 'running');
  t.notOk(types(adopted).includes('provider.create'));
  t.ok(only(adopted, 'host.write-status'));
});

t.test('a pod that is already terminating when Tether starts is finished the same way', async (t) => {
  const host = hostPod({ deletionTimestamp: new Date(NOW), deletionGracePeriodSeconds: 30 });
  const fetched = step(fresh(host), { type: 'pod.provider-fetched', pod: { ...host, status: running } });
  t.equal(fetched.state.stage, 'terminating');
  t.ok(only(fetched, 'provider.delete'));
  const none = step(fresh(host), { type: 'pod.provider-fetched', pod: undefined });
  t.same(types(none), ['host.delete'], 'nothing at the provider: finish at once');
});

t.test('an actor whose host pod is gone cleans up the provider and stops', async (t) => {
  const orphan = initialPodState(undefined, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  const found = step(orphan, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } });
  t.equal(found.state.stage, 'orphaned');
  t.ok(only(found, 'provider.delete'));
  t.ok(step(orphan, { type: 'pod.provider-fetched', pod: undefined }).stop);
});

t.test('spec changes reach the provider; status-only changes and resyncs do not', async (t) => {
  const s = runningState();
  const resync = step(s, { type: 'pod.host-changed', pod: { ...hostPod(), status: { phase: 'Running' } } });
  t.notOk(types(resync).includes('provider.update'));
  const relabelled = step(s, { type: 'pod.host-changed', pod: hostPod({ labels: { app: 'web', tier: 'front' } }) });
  t.equal(only(relabelled, 'provider.update').pod.metadata?.labels?.['tier'], 'front');
  const annotatedByUs = step(s, { type: 'pod.host-changed', pod: hostPod({ annotations: { [createErrorAnnotation]: 'x' } }) });
  t.notOk(types(annotatedByUs).includes('provider.update'), "Tether's own annotations are not spec changes");
});

t.test("another writer's change to Tether's status fields is overwritten", async (t) => {
  const s = step(runningState(), { type: 'pod.provider-status', status: running }).state;
  const settled = step(s, { type: 'pod.status-written', written: 'w', stored: JSON.stringify({}) }).state;
  const tampered = step(settled, { type: 'pod.host-changed', pod: { ...hostPod(), status: { phase: 'Failed', reason: 'Tampered' } } });
  t.equal(only(tampered, 'host.write-status').status.phase, 'Running');
});

t.test('a watch event older than our own write is not mistaken for another writer', async (t) => {
  const s = step(runningState(), { type: 'pod.provider-status', status: running }).state;
  const settled = step(s, { type: 'pod.status-written', written: 'w', stored: JSON.stringify({}), storedVersion: '120' }).state;
  const stale = step(settled, { type: 'pod.host-changed', pod: { ...hostPod({ resourceVersion: '110' }), status: { phase: 'Pending' } } });
  t.same(types(stale), [], 'an event from before the write: nothing to repair');
  const newer = step(settled, { type: 'pod.host-changed', pod: { ...hostPod({ resourceVersion: '130' }), status: { phase: 'Failed' } } });
  t.equal(only(newer, 'host.write-status').status.phase, 'Running', 'a later change by someone else is repaired');
});

t.test('retry delays grow, are capped, and are the same for the same pod and attempt', async (t) => {
  const a = [0, 1, 2, 3].map((n) => retryDelay(config, { uid: 'uid-1' }, n));
  t.ok(a[0]! >= 800 && a[0]! <= 1_200, `first delay ${a[0]} is about the minimum`);
  t.ok(a[3]! > a[0]!);
  t.equal(retryDelay(config, { uid: 'uid-1' }, 2), a[2]);
  t.ok(retryDelay(config, { uid: 'uid-1' }, 30) <= config.retry.maxMs);
});

// --- issue 13: NotReady marking holds in every stage ------------------------------------------

const readyCondition = (status: PodStatus | undefined): string | undefined => status?.conditions?.find((c) => c.type === 'Ready')?.status;
const writtenStatuses = (next: Next): PodStatus[] => effects(next).flatMap((e) => (e.type === 'host.write-status' ? [e.status] : []));
/** A host pod whose status Tether wrote Ready=True in an earlier incarnation. */
const readyHostPod = (): Pod => ({ ...hostPod(), status: { ...running } });

t.test('an actor in starting marks its pod NotReady when the node goes NotReady, and adopts it without a Ready=True', async (t) => {
  const starting = onPodStart(config, fresh(readyHostPod()), NOW).state;
  const down = step(starting, { type: 'pod.node-readiness', readiness: notReady });
  const marked = only(down, 'host.write-status').status;
  t.equal(readyCondition(marked), 'False', 'marked while the provider has not answered yet');
  t.match(marked.conditions?.find((c) => c.type === 'ContainersReady'), { status: 'False', reason: 'VirtualNodeNotReady' });
  t.equal(marked.phase, 'Running', 'the phase the host already showed is kept');
  const settled = step(down.state, { type: 'pod.status-written', written: fingerprint(marked), stored: 'n' }).state;
  const adopted = step(settled, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } });
  t.equal(adopted.state.stage, 'running');
  for (const status of writtenStatuses(adopted)) t.equal(readyCondition(status), 'False', 'never Ready=True while the node is NotReady');
});

t.test('an actor started while its node is NotReady marks its pod at once, even when the provider cannot be read', async (t) => {
  const s = initialPodState(readyHostPod(), { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, notReady);
  const started = onPodStart(config, s, NOW);
  t.ok(types(started).includes('provider.get'));
  t.equal(readyCondition(only(started, 'host.write-status').status), 'False');
  const failed = step(started.state, { type: 'pod.provider-fetch-failed', message: 'informer not synced; remote unreachable' });
  t.same(types(failed), ['schedule'], 'the read is retried; the mark is not written again');
  const adopted = step(step(failed.state, { type: 'pod.status-written', written: 'm', stored: 'm' }).state, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } });
  t.equal(adopted.state.stage, 'running');
  for (const status of writtenStatuses(adopted)) t.equal(readyCondition(status), 'False');
});

t.test('pods of a NotReady node are marked in every stage where the host pod lives', async (t) => {
  const creating = step(fresh(readyHostPod()), { type: 'pod.provider-fetched', pod: undefined }).state;
  const backoff = annotationLanded(step(creating, { type: 'pod.create-failed', kind: 'transient', message: 'x' }).state, 'x');
  const rejected = annotationLanded(step(creating, { type: 'pod.create-failed', kind: 'invalid-input', message: 'x' }).state, 'x');
  const terminating = step(runningState(), { type: 'pod.host-changed', pod: hostPod({ deletionTimestamp: new Date(NOW) }) }).state;
  for (const s of [creating, backoff, rejected, terminating]) {
    const down = step(s, { type: 'pod.node-readiness', readiness: notReady });
    t.equal(readyCondition(only(down, 'host.write-status').status), 'False', `stage ${s.stage}`);
  }
});

t.test('the real status comes back when the node is Ready again, in stages that have no provider status', async (t) => {
  const creating = step(fresh(readyHostPod()), { type: 'pod.provider-fetched', pod: undefined }).state;
  const backoff = annotationLanded(step(creating, { type: 'pod.create-failed', kind: 'transient', message: 'x' }).state, 'x');
  const down = step(backoff, { type: 'pod.node-readiness', readiness: notReady });
  const mark = only(down, 'host.write-status').status;
  const settled = step(down.state, { type: 'pod.status-written', written: fingerprint(mark), stored: 'm' }).state;
  const up = step(settled, { type: 'pod.node-readiness', readiness: ready });
  const back = only(up, 'host.write-status').status;
  t.match(back.conditions?.find((c) => c.type === 'Ready'), { status: 'False', reason: 'ContainersNotReady' }, 'not the NotReady mark any more, and not a faked Ready');
});

t.test('the NotReady mark of a starting actor is lifted once its node is Ready: it re-reads the provider at once', async (t) => {
  const s = initialPodState(readyHostPod(), { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, notReady);
  const started = onPodStart(config, s, NOW).state;
  const up = step(started, { type: 'pod.node-readiness', readiness: ready });
  t.ok(types(up).includes('provider.get'));
  const adopted = step(up.state, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } });
  t.equal(readyCondition(only(adopted, 'host.write-status').status), 'True');
});

// --- issue 13: superseded writes ----------------------------------------------------------------

t.test('a NotReady write still waiting to be sent is superseded by the current status once the node is Ready', async (t) => {
  const down = step(runningState(), { type: 'pod.node-readiness', readiness: notReady });
  t.ok(only(down, 'host.write-status'), 'the mark is queued (its outcome has not come back)');
  const up = step(down.state, { type: 'pod.node-readiness', readiness: ready });
  const fetched = step(up.state, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } });
  const current = only(fetched, 'host.write-status').status;
  t.equal(readyCondition(current), 'True', 'sent now, so the queue can drop the queued mark, not after it lands');
  const superseded = step(fetched.state, { type: 'pod.status-write-superseded' });
  t.same(types(superseded), [], 'the dropped write needs nothing');
  const landed = step(superseded.state, { type: 'pod.status-written', written: fingerprint(current), stored: 's' });
  t.equal(landed.state.writes.inFlight, 0);
  t.same(types(step(landed.state, { type: 'pod.provider-status', status: running })), [], 'and nothing is written twice');
});

t.test('a failed write is not retried when a newer one is on its way', async (t) => {
  const s = runningState();
  const a = step(s, { type: 'pod.provider-status', status: { ...running, podIP: '10.1.1.1' } });
  const b = step(a.state, { type: 'pod.provider-status', status: { ...running, podIP: '10.1.1.2' } });
  t.equal(only(b, 'host.write-status').status.podIP, '10.1.1.2');
  const failed = step(b.state, { type: 'pod.status-write-failed', message: 'timeout', podGone: false });
  t.same(types(failed), []);
  const failedToo = step(failed.state, { type: 'pod.status-write-failed', message: 'timeout', podGone: false });
  t.same(only(failedToo, 'schedule').msg, { type: 'pod.retry-write' });
  t.equal(only(step(failedToo.state, { type: 'pod.retry-write' }), 'host.write-status').status.podIP, '10.1.1.2', 'the newest is retried');
});

// --- issue 13: deletion ends on the provider's word ---------------------------------------------

const deleting = (grace = 5): Pod => hostPod({ deletionTimestamp: new Date(NOW), deletionGracePeriodSeconds: grace });

t.test('at the grace deadline Tether escalates at the provider with grace 0 and keeps asking; it never forgets the pod', async (t) => {
  const started = step(runningState(), { type: 'pod.host-changed', pod: deleting(5) });
  const deadline = only(started, 'schedule');
  t.equal(deadline.ms, 5_000 + config.graceMarginMs);
  const expired = step(started.state, deadline.msg, NOW + deadline.ms);
  t.notOk(types(expired).includes('host.delete'), 'the host pod is not deleted on a timer');
  t.equal(expired.state.stage, 'terminating');
  t.equal(only(expired, 'provider.delete').pod.metadata?.deletionGracePeriodSeconds, 0, 'escalated: grace 0');
  t.match(only(expired, 'host.event'), { reason: 'GracePeriodExceeded' });
  const again = only(expired, 'schedule');
  const second = step(expired.state, again.msg, NOW + deadline.ms + again.ms);
  t.equal(only(second, 'provider.delete').pod.metadata?.deletionGracePeriodSeconds, 0, 'asked again');
  t.ok(only(second, 'schedule').ms > again.ms, 'with backoff');
  t.notOk(types(second).includes('host.event'), 'the Event is not repeated');

  const failed = step(second.state, { type: 'pod.delete-failed', kind: 'transient', message: 'connection refused' });
  t.notOk(types(failed).includes('host.delete'), 'unreachable: stays Terminating');
  t.equal(failed.state.stage, 'terminating');
  const gone = step(failed.state, { type: 'pod.provider-gone', reason: 'NotFound', message: 'deleted' });
  t.ok(types(gone).includes('host.delete'), 'finished once the provider reports it gone');
});

t.test('a running pod whose provider reports no container statuses is not finished at once', async (t) => {
  const pending = step(step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state, { type: 'pod.create-succeeded' }).state;
  const withStatus = step(pending, { type: 'pod.provider-status', status: { phase: 'Running', conditions: [] } }).state;
  const settled = step(withStatus, { type: 'pod.status-written', written: 'x', stored: 'x' }).state;
  const del = step(settled, { type: 'pod.host-changed', pod: deleting(30) });
  t.equal(del.state.stage, 'terminating');
  t.ok(only(del, 'provider.delete'));
  t.notOk(types(del).includes('host.delete'));
  const terminal = step(del.state, { type: 'pod.provider-status', status: { phase: 'Succeeded' } });
  t.equal(terminal.state.stage, 'finishing');
});

t.test('a terminating pod the provider no longer has (read after an outage) is finished', async (t) => {
  const s = step(runningState(), { type: 'pod.host-changed', pod: deleting(5) }).state;
  const down = step(s, { type: 'pod.node-readiness', readiness: notReady }).state;
  const up = step({ ...down, writes: { ...down.writes, inFlight: 0 } }, { type: 'pod.node-readiness', readiness: ready });
  t.ok(types(up).includes('provider.get'));
  t.ok(types(up).includes('provider.delete'), 'the delete is asked again when the provider is back');
  const none = step(up.state, { type: 'pod.provider-fetched', pod: undefined });
  t.equal(none.state.stage, 'finishing');
});

t.test('a pod deleted while its creation hangs: creation has a deadline, then the deletion proceeds at the provider', async (t) => {
  const creating = step(fresh(), { type: 'pod.provider-fetched', pod: undefined });
  const createDeadline = only(creating, 'schedule');
  const del = step(creating.state, { type: 'pod.host-changed', pod: deleting(5) });
  t.equal(del.state.stage, 'creating', 'waits for the answer in flight');
  const timedOut = step(del.state, createDeadline.msg, NOW + createDeadline.ms);
  t.equal(timedOut.state.stage, 'terminating', 'the create may have happened: stop it at the provider');
  t.ok(only(timedOut, 'provider.delete'));
  t.notOk(types(timedOut).includes('host.delete'));
  const notFound = step(timedOut.state, { type: 'pod.delete-failed', kind: 'not-found', message: 'no such pod' });
  t.ok(types(notFound).includes('host.delete'), 'the provider says it has no such pod: finished');
});

t.test('a creation with no answer is retried after its deadline', async (t) => {
  const creating = step(fresh(), { type: 'pod.provider-fetched', pod: undefined });
  const timedOut = step(creating.state, only(creating, 'schedule').msg);
  t.equal(timedOut.state.stage, 'backoff');
  t.match(only(timedOut, 'host.event'), { reason: 'ProviderCreateFailed' });
  const late = step(timedOut.state, { type: 'pod.create-succeeded' });
  t.equal(late.state.stage, 'running', 'a late success still counts');
});

t.test('a pod deleted after a failed creation is finished only on the provider\'s word', async (t) => {
  const creating = step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state;
  const del = step(creating, { type: 'pod.host-changed', pod: deleting(5) }).state;
  const failed = step(del, { type: 'pod.create-failed', kind: 'transient', message: 'timeout' });
  t.equal(failed.state.stage, 'terminating');
  t.ok(only(failed, 'provider.delete'));
  const rejected = step(del, { type: 'pod.create-failed', kind: 'invalid-input', message: 'bad image' });
  t.ok(types(rejected).includes('host.delete'), 'rejected outright: nothing runs, finish at once');
});

t.test('a shorter grace period for a terminating pod re-asks the provider and shortens the deadline', async (t) => {
  const started = step(runningState(), { type: 'pod.host-changed', pod: deleting(30) });
  const oldDeadline = only(started, 'schedule');
  const shorter = step(started.state, { type: 'pod.host-changed', pod: deleting(1) }, NOW + 2_000);
  t.equal(only(shorter, 'provider.delete').pod.metadata?.deletionGracePeriodSeconds, 1);
  const newDeadline = only(shorter, 'schedule');
  t.equal(newDeadline.ms, 1_000 + config.graceMarginMs);
  t.same(types(step(shorter.state, { type: 'pod.host-changed', pod: deleting(1) })), [], 'the same grace again: nothing');
  t.same(types(step(shorter.state, { type: 'pod.host-changed', pod: deleting(20) })), [], 'a longer one never lengthens it');
  const expired = step(shorter.state, newDeadline.msg, NOW + 2_000 + newDeadline.ms);
  t.equal(only(expired, 'provider.delete').pod.metadata?.deletionGracePeriodSeconds, 0);
  t.same(types(step(expired.state, oldDeadline.msg, NOW + oldDeadline.ms)), [], 'the old deadline is stale');
});

t.test('a pod deleted while its actor cannot read the provider (starting) is deleted there too, with the same deadline', async (t) => {
  const starting = onPodStart(config, fresh(readyHostPod()), NOW).state;
  const del = step(starting, { type: 'pod.host-changed', pod: deleting(3) });
  t.equal(del.state.stage, 'terminating');
  t.ok(only(del, 'provider.delete'));
  const expired = step(del.state, only(del, 'schedule').msg, NOW + 3_000 + config.graceMarginMs);
  t.match(only(expired, 'host.event'), { reason: 'GracePeriodExceeded' });
  t.notOk(types(expired).includes('host.delete'));
  const gone = step(expired.state, { type: 'pod.provider-fetched', pod: undefined });
  t.ok(types(gone).includes('host.delete'), 'finished once the provider, read again, has no such pod');

  const restarted = onPodStart(config, fresh(deleting(3)), NOW);
  t.equal(restarted.state.stage, 'terminating', 'an incarnation that starts on a deleted pod does the same');
  t.same(types(restarted).sort(), ['provider.delete', 'provider.get', 'schedule']);
});

t.test("a write dropped for someone else's (none of ours left in flight) is sent again", async (t) => {
  const s = runningState();
  const w = step(s, { type: 'pod.provider-status', status: { ...running, podIP: '10.3.3.3' } });
  const dropped = step(w.state, { type: 'pod.status-write-superseded' });
  t.equal(only(dropped, 'host.write-status').status.podIP, '10.3.3.3');
});

// --- status writes against a real API server (issue 16) -----------------------------------------

/** What the API server stores and sends back: timestamps at second precision. */
const at = new Date('2026-11-30T04:00:00.250Z');
const runningAt: PodStatus = { ...running, startTime: at, conditions: running.conditions?.map((c) => ({ ...c, lastTransitionTime: at })) };
/** The same status as a watch event carries it: JSON, timestamps as RFC 3339 strings in seconds. */
const asWatched = (status: PodStatus): PodStatus => JSON.parse(JSON.stringify(status, (_k, v: unknown) => (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? v.replace(/\.\d+Z$/, 'Z') : v))) as PodStatus;
/** The PATCH response as client-node deserializes it: Dates, truncated to seconds by the server. */
const asStored = (status: PodStatus): PodStatus => {
  const watched = asWatched(status);
  return { ...watched, startTime: new Date(watched.startTime as unknown as string), conditions: watched.conditions?.map((c) => ({ ...c, lastTransitionTime: new Date(c.lastTransitionTime as unknown as string) })) };
};

t.test('our own write coming back through the watch (timestamps as strings, in seconds) is not drift', async (t) => {
  const s = runningState();
  const w = step(s, { type: 'pod.provider-status', status: runningAt });
  const sent = only(w, 'host.write-status').status;
  const settled = step(w.state, { type: 'pod.status-written', written: fingerprint(sent), stored: ownedFingerprint(asStored({ ...sent, qosClass: 'BestEffort' })), storedVersion: '200' }).state;
  const echo = step(settled, { type: 'pod.host-changed', pod: { ...hostPod({ resourceVersion: '200' }), status: { ...asWatched(sent), qosClass: 'BestEffort' } } });
  t.same(types(echo), [], 'the API server already holds it: no second write');
});

t.test('a status the host pod already shows is not written again (restart with nothing changed)', async (t) => {
  const host = { ...hostPod({ resourceVersion: '300' }), status: asWatched({ ...runningAt, conditions: [{ type: 'PodScheduled', status: 'True' }, ...(runningAt.conditions ?? []).filter((c) => c.type !== 'PodScheduled').map((c) => ({ ...c, reason: '', message: '' }))] }) };
  const adopted = step(fresh(host), { type: 'pod.provider-fetched', pod: { ...host, status: runningAt } });
  t.equal(adopted.state.stage, 'running');
  t.same(types(adopted), ['node.admitted-as-running'], 'adopted without a write (counted as admitted)');
  const changed = step(adopted.state, { type: 'pod.provider-status', status: { ...runningAt, podIP: '10.244.9.9' } });
  t.equal(only(changed, 'host.write-status').status.podIP, '10.244.9.9', 'a real change is still written');
});

t.test('a Pending superseded by Running within the hold is never written; a Pending that stays is', async (t) => {
  const created = step(step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state, { type: 'pod.create-succeeded' }).state;
  const pending: PodStatus = { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }] };
  const held = step(created, { type: 'pod.provider-status', status: pending });
  t.notOk(types(held).includes('host.write-status'), 'Pending waits a moment');
  t.same(only(held, 'schedule').msg, { type: 'pod.hold-expired', hold: 1 });
  const superseded = step(held.state, { type: 'pod.provider-status', status: running }, NOW + 200);
  t.equal(only(superseded, 'host.write-status').status.phase, 'Running', 'one write: Running');
  const landed = step(superseded.state, { type: 'pod.status-written', written: fingerprint(only(superseded, 'host.write-status').status), stored: 'r' }).state;
  t.same(types(step(landed, { type: 'pod.hold-expired', hold: 1 }, NOW + 1_000)), [], 'the hold ends with nothing left to write');

  const stays = step(held.state, { type: 'pod.hold-expired', hold: 1 }, NOW + 1_000);
  t.equal(only(stays, 'host.write-status').status.phase, 'Pending', 'a Pending that lasts is written when the hold ends');
});

// --- the Pending hold, merged onto the superseding write queue (review of the merge) ----------

const pendingStatus: PodStatus = { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }] };
const createdState = (): PodState => step(step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state, { type: 'pod.create-succeeded' }).state;

t.test('a held Pending starts the write-latency clock, and no sample is taken while it is unwritten', async (t) => {
  const held = step(createdState(), { type: 'pod.provider-status', status: pendingStatus }, NOW);
  t.equal(held.state.writes.waitingSince, NOW, 'the hold counts in the latency');
  const written = step(held.state, { type: 'pod.hold-expired', hold: 1 }, NOW + 1_000);
  const w = only(written, 'host.write-status');
  const landed = step(written.state, { type: 'pod.status-written', written: fingerprint(w.status), stored: 'p' }, NOW + 1_100);
  t.same(only(landed, 'observe-status-latency'), { type: 'observe-status-latency', ms: 1_100 });
});

t.test('only its own hold timer ends a Pending\'s hold: a failure retry or an older hold timer does not', async (t) => {
  const held = step(createdState(), { type: 'pod.provider-status', status: pendingStatus });
  t.same(types(step(held.state, { type: 'pod.retry-write' })), [], 'a failure-backoff timer does not send the held Pending');
  const running1 = step(held.state, { type: 'pod.provider-status', status: running }, NOW + 200);
  const landed = step(running1.state, { type: 'pod.status-written', written: fingerprint(only(running1, 'host.write-status').status), stored: 'r' }).state;
  const heldAgain = step(landed, { type: 'pod.provider-status', status: pendingStatus }, NOW + 500);
  t.same(only(heldAgain, 'schedule').msg, { type: 'pod.hold-expired', hold: 2 });
  t.same(types(step(heldAgain.state, { type: 'pod.hold-expired', hold: 1 }, NOW + 1_000)), [], 'the first hold\'s timer is stale');
  t.equal(only(step(heldAgain.state, { type: 'pod.hold-expired', hold: 2 }, NOW + 1_500), 'host.write-status').status.phase, 'Pending');
});

t.test('a held Pending is never written once the pod is finishing', async (t) => {
  const held = step(createdState(), { type: 'pod.provider-status', status: pendingStatus });
  const deleted = step(held.state, { type: 'pod.host-changed', pod: { ...hostPod(), metadata: { ...hostPod().metadata, deletionTimestamp: new Date(NOW), deletionGracePeriodSeconds: 30 } } });
  const gone = step(deleted.state, { type: 'pod.provider-gone', reason: 'NotFound', message: 'the provider has no such pod' });
  t.ok(['finishing', 'done'].includes(gone.state.stage), `finishing (${gone.state.stage})`);
  t.notOk(types(step(gone.state, { type: 'pod.hold-expired', hold: 1 })).includes('host.write-status'), 'the hold ends with no write');
});

t.test('a failed write made stale by the current status is not sent again', async (t) => {
  const current: PodStatus = { ...running, podIP: '10.9.9.9' };
  const sent = step(runningState(), { type: 'pod.provider-status', status: current });
  const confirmedRunning = step(sent.state, { type: 'pod.status-written', written: fingerprint(only(sent, 'host.write-status').status), stored: 'r' }).state;
  const down = step(confirmedRunning, { type: 'pod.node-readiness', readiness: notReady });
  const failed = step(down.state, { type: 'pod.status-write-failed', message: 'timeout', podGone: false });
  t.same(only(failed, 'schedule').msg, { type: 'pod.retry-write' });
  const up = step(failed.state, { type: 'pod.node-readiness', readiness: { ready: true, reason: 'KubeletReady', message: 'ok' } });
  const fetched = step(up.state, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: current } });
  const retried = step(fetched.state, { type: 'pod.retry-write' });
  for (const e of [...effects(fetched), ...effects(retried)]) {
    if (e.type === 'host.write-status') t.not(e.status.conditions?.find((c) => c.type === 'Ready')?.status, 'False', 'the stale NotReady mark is not written');
  }
});

t.test('a terminating pod whose host pod vanished keeps its grace period when it is orphaned', async (t) => {
  const terminating = step(runningState(), { type: 'pod.host-changed', pod: deleting(5) }).state;
  const gone = step(terminating, { type: 'pod.status-write-failed', message: 'not found', podGone: true }).state;
  const found = step(gone, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: running } });
  t.equal(found.state.stage, 'orphaned');
  const again = step(found.state, { type: 'pod.retry-delete' });
  t.equal(only(again, 'provider.delete').pod.metadata?.deletionGracePeriodSeconds, 5, 'the provider is asked with the grace already given');
});
