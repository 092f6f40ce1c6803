/**
 * The kubelet's container duties on a whole virtual node, in memory (test/support/inMemoryNode.ts):
 * the container Events a pod's statuses mean, and preStop sleeps waited out within the grace
 * period before the provider is asked to stop the pod; ephemeral containers and in-place resizes
 * the provider cannot do, answered as a kubelet that cannot.
 */
import t from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { podFixture } from '../providers/helpers.js';
import { definedOnly } from '../../src/lib/defaults.js';
import { IN_MEMORY_NODE, startInMemoryNode } from '../support/inMemoryNode.js';

function withPreStopSleep(pod: Pod, seconds: number): Pod {
  const containers = (pod.spec?.containers ?? []).map((c) => ({ ...c, lifecycle: { preStop: { sleep: { seconds } } } }));
  return { ...pod, spec: { ...pod.spec, containers } };
}

t.test('a pod that runs gets the kubelet\'s Pulling, Pulled, Created and Started, from the kubelet on the node, about its container', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web'));
  await node.eventually('Started recorded', () => node.eventsOf('web').some((e) => e.reason === 'Started'));
  const kubelet = node.eventsOf('web').filter((e) => e.source?.component === 'kubelet');
  t.same(kubelet.map((e) => e.reason), ['Pulling', 'Pulled', 'Created', 'Started'], 'once each, in order');
  t.ok(kubelet.every((e) => e.source?.host === IN_MEMORY_NODE && e.regarding.fieldPath === 'spec.containers{main}'), 'on the node, about the container');
});

t.test('a preStop sleep delays the provider\'s stop by the sleep, and the provider gets the rest of the grace period', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(withPreStopSleep(podFixture('web', { terminationGracePeriodSeconds: 30 }), 5));
  const deletedAt = node.clock.now();
  node.host.requestDelete('ns', 'web', 30);
  await node.eventually('asked at the provider', () => node.provider.callsOf('deletePod', 'web').length > 0);
  const [call] = node.provider.callsOf('deletePod', 'web');
  t.ok((call?.at ?? 0) - deletedAt >= 5_000, `not before the 5 s sleep (${(call?.at ?? 0) - deletedAt} ms)`);
  t.equal(call?.graceSeconds, 25, 'with what is left of the 30 s');
  t.ok(node.eventsOf('web').some((e) => e.reason === 'Killing' && e.note === 'Stopping container main'), 'the kubelet\'s Killing');
});

t.test('a second delete with a shorter grace period during the sleep cuts it', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(withPreStopSleep(podFixture('web', { terminationGracePeriodSeconds: 30 }), 60));
  node.host.requestDelete('ns', 'web', 30);
  await node.advance(1_000);
  t.same(node.provider.callsOf('deletePod', 'web'), [], 'sleeping');
  const shortenedAt = node.clock.now();
  node.host.requestDelete('ns', 'web', 2);
  await node.eventually('asked at the provider', () => node.provider.callsOf('deletePod', 'web').length > 0);
  const [call] = node.provider.callsOf('deletePod', 'web');
  t.ok((call?.at ?? 0) - shortenedAt >= 2_000, 'when the new grace period ran out');
  t.equal(call?.graceSeconds, 2, 'with the kubelet\'s minimum');
});

t.test('a Tether restart during a preStop sleep continues it within the grace that remains: the provider is asked when the sleep ends, with what is left', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(withPreStopSleep(podFixture('web', { terminationGracePeriodSeconds: 30 }), 10));
  const deletedAt = node.clock.now();
  node.host.requestDelete('ns', 'web', 30);
  await node.advance(4_000);
  t.same(node.provider.callsOf('deletePod', 'web'), [], 'sleeping when Tether stops');
  await node.restart();
  await node.eventually('asked at the provider', () => node.provider.callsOf('deletePod', 'web').length > 0);
  const [call] = node.provider.callsOf('deletePod', 'web');
  t.ok((call?.at ?? 0) - deletedAt >= 10_000, `not before the 10 s sleep, counted from the deletion (${(call?.at ?? 0) - deletedAt} ms)`);
  t.ok((call?.at ?? 0) - deletedAt < 14_000, 'the sleep is continued, not begun again');
  t.ok((call?.graceSeconds ?? 99) <= 20, `with no more than what is left of the 30 s (${call?.graceSeconds})`);
  t.ok((call?.graceSeconds ?? 0) >= 19, 'and about that');
});

t.test('a Tether restart during a preStop sleep longer than the grace never extends the deadline', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(withPreStopSleep(podFixture('web', { terminationGracePeriodSeconds: 30 }), 600));
  const deletedAt = node.clock.now();
  node.host.requestDelete('ns', 'web', 30);
  await node.advance(20_000);
  await node.restart();
  await node.eventually('asked at the provider', () => node.provider.callsOf('deletePod', 'web').length > 0, { withinMs: 120_000 });
  const [call] = node.provider.callsOf('deletePod', 'web');
  t.ok((call?.at ?? 0) - deletedAt <= 31_000, `when the 30 s counted from the deletion ran out (${(call?.at ?? 0) - deletedAt} ms)`);
  t.ok((call?.at ?? 0) - deletedAt >= 29_000, 'not before');
  t.equal(call?.graceSeconds, 2, 'with the kubelet\'s minimum');
});

t.test('a Tether restart during a deletion without hooks asks the provider at once with the grace that remains', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web', { terminationGracePeriodSeconds: 30 }));
  node.host.requestDelete('ns', 'web', 30);
  await node.eventually('asked at the provider', () => node.provider.callsOf('deletePod', 'web').length > 0);
  await node.advance(10_000);
  const asked = node.provider.callsOf('deletePod', 'web').length;
  await node.restart();
  await node.eventually('asked again', () => node.provider.callsOf('deletePod', 'web').length > asked);
  const again = node.provider.callsOf('deletePod', 'web')[asked];
  t.ok((again?.graceSeconds ?? 99) <= 20, `what is left of the 30 s (${again?.graceSeconds})`);
});

t.test('a Tether restart during a 1 s deletion asks the provider with no more than the pod\'s own 1 s', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web', { terminationGracePeriodSeconds: 1 }));
  node.host.requestDelete('ns', 'web', 1);
  await node.eventually('asked at the provider', () => node.provider.callsOf('deletePod', 'web').length > 0);
  const asked = node.provider.callsOf('deletePod', 'web').length;
  await node.restart();
  await node.eventually('asked again', () => node.provider.callsOf('deletePod', 'web').length > asked);
  const again = node.provider.callsOf('deletePod', 'web')[asked];
  t.ok((again?.graceSeconds ?? 99) <= 1, `the kubelet's 2 s minimum never lifts a shorter grace (${again?.graceSeconds})`);
});

t.test('kubectl debug on a pod whose provider cannot run ephemeral containers ends with a terminated status and one Failed Event', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web'));
  node.host.updateSpec('ns', 'web', (spec) => ({ ...spec, ephemeralContainers: [{ name: 'debugger', image: 'busybox' }] }));
  const shown = () => node.host.pod('ns', 'web')?.status?.ephemeralContainerStatuses?.find((c) => c.name === 'debugger');
  await node.eventually('the ephemeral container shown', () => shown() !== undefined);
  t.equal(shown()?.state?.terminated?.reason, 'StartError');
  t.match(shown()?.state?.terminated?.message, /cannot run ephemeral containers/);
  await node.advance(5_000);
  const failed = node.eventsOf('web').filter((e) => e.reason === 'Failed' && e.regarding.fieldPath === 'spec.ephemeralContainers{debugger}');
  t.equal(failed.length, 1, 'said once');
});

t.test('a resize the provider cannot apply ends with PodResizePending Infeasible and one ResizeInfeasible Event, cleared when undone', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web'));
  const cpu = (value: string) => (spec: NonNullable<Pod['spec']>) => ({ ...spec, containers: (spec.containers ?? []).map((c) => ({ ...c, resources: { requests: { cpu: value } } })) });
  const original = node.host.pod('ns', 'web')?.spec?.containers?.[0]?.resources;
  node.host.updateSpec('ns', 'web', cpu('2'));
  await node.eventually('PodResizePending', () => node.podCondition('ns', 'web', 'PodResizePending')?.status === 'True');
  t.equal(node.podCondition('ns', 'web', 'PodResizePending')?.reason, 'Infeasible');
  await node.advance(5_000);
  t.equal(node.eventsOf('web').filter((e) => e.reason === 'ResizeInfeasible').length, 1, 'said once');
  // Undone: the resources the provider was given, again.
  node.host.updateSpec('ns', 'web', (spec) => ({ ...spec, containers: (spec.containers ?? []).map(({ resources: _resized, ...c }) => ({ ...c, ...definedOnly({ resources: original }) })) }));
  await node.eventually('no longer pending', () => node.podCondition('ns', 'web', 'PodResizePending')?.status === 'False');
});

t.test('while a postStart sleep runs the host pod shows the kubelet\'s status of a container not yet created: Pending, waiting ContainerCreating; Running once it is over', async (t) => {
  const node = await startInMemoryNode(t);
  const pod = podFixture('web');
  const containers = (pod.spec?.containers ?? []).map((c) => ({ ...c, lifecycle: { postStart: { sleep: { seconds: 5 } } } }));
  node.host.bind({ ...pod, spec: { ...pod.spec, containers } });
  await node.eventually('created at the provider', () => node.provider.has('ns', 'web'));
  const ranAt = node.clock.now();
  node.provider.run('ns', 'web');
  await node.eventually('the hold written', () => node.host.pod('ns', 'web')?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating');
  const held = node.host.pod('ns', 'web')?.status;
  t.equal(held?.phase, 'Pending', 'the kubelet\'s phase while its sync is in the hook');
  t.match(held?.containerStatuses?.[0], { ready: false, started: false, restartCount: 0 });
  t.notOk(held?.containerStatuses?.[0]?.containerID, 'nothing the kubelet has not written');
  await node.eventually('Running once the sleep is over', () => node.host.pod('ns', 'web')?.status?.phase === 'Running');
  t.ok(node.clock.now() - ranAt >= 5_000, 'not before the 5 s sleep');
  t.match(node.host.pod('ns', 'web')?.status?.containerStatuses?.[0], { ready: true, started: true, state: { running: {} } });
});
