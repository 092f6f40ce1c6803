/**
 * Kubelet duties the pod actor performs for every provider, in memory (test/support/inMemoryNode.ts):
 * observedGeneration follows a spec update with one status write; activeDeadlineSeconds stops the
 * pod at the provider and fails it DeadlineExceeded, counted from startTime across a restart of
 * the pod's actor.
 */
import t from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { podFixture } from '../providers/helpers.js';
import { startInMemoryNode } from '../support/inMemoryNode.js';

const withGeneration = (pod: Pod): Pod => ({ ...pod, metadata: { ...pod.metadata, generation: 1 } });

t.test('a spec update is a new generation: the host pod shows it observed, with one more status write and no more', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(withGeneration(podFixture('web')));
  await node.eventually('observedGeneration 1', () => node.host.pod('ns', 'web')?.status?.observedGeneration === 1);
  t.equal(node.podCondition('ns', 'web', 'Ready')?.observedGeneration, 1);
  const statusWrites = (): number => node.host.calls.filter((c) => c.op === 'patchPodStatus' && c.name === 'web').length;
  await node.advance(5_000);
  const before = statusWrites();

  node.host.updateSpec('ns', 'web', (spec) => ({ ...spec, containers: (spec.containers ?? []).map((c) => ({ ...c, image: 'nginx:2' })) }));
  await node.eventually('observedGeneration 2 on the status and Ready', () => node.host.pod('ns', 'web')?.status?.observedGeneration === 2 && node.podCondition('ns', 'web', 'Ready')?.observedGeneration === 2);
  t.equal(node.provider.callsOf('updatePod', 'web').length, 1, 'the provider got the new spec');
  await node.advance(10_000);
  t.equal(statusWrites(), before + 1, 'one status write for the new generation, nothing after');
});

t.test('past activeDeadlineSeconds, counted from startTime across a restart of the actor, the pod is stopped at the provider and ends Failed/DeadlineExceeded', async (t) => {
  const node = await startInMemoryNode(t);
  const pod = withGeneration(podFixture('job', { terminationGracePeriodSeconds: 5 }));
  await node.runPod({ ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], activeDeadlineSeconds: 30 } });
  const startedAt = Date.parse(String(node.host.pod('ns', 'job')?.status?.startTime));

  // A bug in the provider's update crashes the pod's actor; its next incarnation starts 10 s in.
  await node.advance(10_000);
  node.provider.faults.failNext('updatePod', new Error('a bug in the provider'));
  node.host.updateSpec('ns', 'job', (spec) => ({ ...spec, containers: (spec.containers ?? []).map((c) => ({ ...c, image: 'busybox:2' })) }));
  const reads = node.provider.callsOf('getPod', 'job').length;
  await node.eventually('a new incarnation re-read the provider', () => node.provider.callsOf('getPod', 'job').length > reads, { withinMs: 15_000 });

  await node.eventually('asked to stop at the provider', () => node.provider.callsOf('deletePod', 'job').length > 0, { withinMs: 60_000 });
  const [stop] = node.provider.callsOf('deletePod', 'job');
  t.ok((stop?.at ?? 0) - startedAt >= 30_000, 'not before the deadline');
  t.ok((stop?.at ?? 0) - startedAt < 40_000, 'counted from startTime, not from the restart');
  t.equal(stop?.graceSeconds, 5, "with the pod's grace period");
  t.match(node.eventsOf('job').filter((e) => e.reason === 'DeadlineExceeded'), [{ type: 'Normal', reason: 'DeadlineExceeded', note: 'Pod was active on the node longer than the specified deadline' }], 'the kubelet DeadlineExceeded Event, once');
  t.equal(node.host.pod('ns', 'job')?.status?.phase, 'Running', 'not Failed before the provider has ended it');

  node.provider.finish('ns', 'job', 143);
  await node.eventually('Failed with DeadlineExceeded', () => node.host.pod('ns', 'job')?.status?.reason === 'DeadlineExceeded');
  t.match(node.host.pod('ns', 'job')?.status, { phase: 'Failed', message: 'Pod was active on the node longer than the specified deadline' });
  t.equal(node.podCondition('ns', 'job', 'Ready')?.status, 'False');
  await node.advance(5_000);
  t.ok(node.host.pod('ns', 'job'), 'the pod stays on the host');
  t.notOk(node.host.calls.some((c) => c.op === 'deletePod' && c.name === 'job'));
});

t.test('DaemonSet pods under the default reject: each is Failed with its own Warning, and their DaemonSet gets one Warning naming the affinity to add', async (t) => {
  const node = await startInMemoryNode(t);
  const ofDaemonSet = (name: string): Pod => {
    const pod = podFixture(name);
    return { ...pod, metadata: { ...pod.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy', uid: 'ds-uid', controller: true }] }, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], tolerations: [{ operator: 'Exists' }] } };
  };
  node.host.bind(ofDaemonSet('kube-proxy-a'));
  await node.eventually('Failed', () => node.host.pod('ns', 'kube-proxy-a')?.status?.phase === 'Failed');
  // The DaemonSet controller deletes the Failed pod and creates another (its back-off), which is rejected too.
  node.host.bind(ofDaemonSet('kube-proxy-b'));
  await node.eventually('the next one Failed too', () => node.host.pod('ns', 'kube-proxy-b')?.status?.phase === 'Failed');
  t.equal(node.host.pod('ns', 'kube-proxy-a')?.status?.reason, 'DaemonSetPodNotAdmitted');
  t.ok(['kube-proxy-a', 'kube-proxy-b'].every((p) => node.eventsOf(p).some((e) => e.reason === 'DaemonSetPodNotAdmitted' && e.type === 'Warning')), 'a Warning on each pod');
  const onDaemonSet = node.events.recorded.filter((e) => e.regarding.kind === 'DaemonSet');
  t.equal(onDaemonSet.length, 1, 'one Warning on the DaemonSet, not one per re-created pod');
  t.match(onDaemonSet[0], { type: 'Warning', reason: 'DaemonSetPodNotAdmitted', regarding: { kind: 'DaemonSet', apiVersion: 'apps/v1', namespace: 'ns', name: 'kube-proxy', uid: 'ds-uid' } });
  t.match(onDaemonSet[0]?.note, /"key":"type","operator":"NotIn","values":\["virtual-kubelet"\]/);
  t.same(node.provider.callsOf('createPod', 'kube-proxy-a'), [], 'never offloaded');
});

t.test('a pod deleted from the host frees its resources on the node: the next pod that needs them is admitted', async (t) => {
  const node = await startInMemoryNode(t);
  const asking = (name: string, cpu: string): Pod => {
    const pod = podFixture(name);
    return { ...pod, spec: { ...pod.spec, containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu } } }] } };
  };
  await node.runPod(asking('big', '6'));
  node.host.bind(asking('second', '6'));
  await node.eventually('rejected: the node has 8 CPUs', () => node.host.pod('ns', 'second')?.status?.reason === 'OutOfcpu');
  node.host.requestDelete('ns', 'big', 30);
  await node.eventually('stopped at the provider', () => node.provider.callsOf('deletePod', 'big').length > 0);
  node.provider.finish('ns', 'big');
  await node.eventually('big gone from the host', () => node.host.pod('ns', 'big') === undefined, { withinMs: 60_000 });
  await node.runPod(asking('third', '6'));
  t.equal(node.host.pod('ns', 'third')?.status?.phase, 'Running', 'admitted against what is left');
});
