/**
 * The kubelet's container duties on a whole virtual node, in memory (test/support/inMemoryNode.ts):
 * the container Events a pod's statuses mean, and preStop sleeps waited out within the grace
 * period before the provider is asked to stop the pod.
 */
import t from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { podFixture } from '../providers/helpers.js';
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
