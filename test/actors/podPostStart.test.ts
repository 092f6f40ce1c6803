/**
 * PostStart hooks on a whole virtual node, in memory (test/support/inMemoryNode.ts), with a
 * provider that runs exec and httpGet hooks (test/support/fakeHookProvider.ts): the kill after a
 * failed hook runs the container's preStop hook first, within the grace period, as kuberuntime's
 * killContainer; a sidecar's hook is over before the provider is told to start what follows it.
 */
import t from 'tap';
import type { Pod, PodStatus } from '../../src/adapters/kubernetes/model.js';
import { podFixture } from '../providers/helpers.js';
import { startInMemoryNode, type InMemoryNode } from '../support/inMemoryNode.js';
import { FakeHookProvider } from '../support/fakeHookProvider.js';

async function hookNode(t: Parameters<typeof startInMemoryNode>[0]): Promise<{ node: InMemoryNode; provider: FakeHookProvider }> {
  const node = await startInMemoryNode(t, { provider: (clock) => new FakeHookProvider({ clock }) });
  return { node, provider: node.provider as FakeHookProvider };
}

const ranAt = new Date(0);

t.test('a failed postStart kills the container only after its preStop sleep, with what is left of the grace period, Killing said first', async (t) => {
  const { node, provider } = await hookNode(t);
  const pod = podFixture('web', { terminationGracePeriodSeconds: 30 });
  const containers = (pod.spec?.containers ?? []).map((c) => ({ ...c, lifecycle: { postStart: { exec: { command: ['warm-up'] } }, preStop: { sleep: { seconds: 4 } } } }));
  provider.failHook('main', 'postStart');
  node.host.bind({ ...pod, spec: { ...pod.spec, containers } });
  await node.eventually('created at the provider', () => provider.has('ns', 'web'));
  provider.run('ns', 'web');
  await node.eventually('the postStart hook ran', () => provider.hookCalls.some((c) => c.op === 'runLifecycleHook' && c.hook === 'postStart'));
  const failedAt = node.clock.now();
  await node.eventually('Killing recorded', () => node.eventsOf('web').some((e) => e.reason === 'Killing'));
  t.same(provider.hookCalls.filter((c) => c.op === 'killContainer'), [], 'no kill while the preStop sleep runs');
  await node.eventually('killed', () => provider.hookCalls.some((c) => c.op === 'killContainer'));
  const kill = provider.hookCalls.find((c) => c.op === 'killContainer');
  t.ok((kill?.at ?? 0) - failedAt >= 4_000, `after the 4 s sleep (${(kill?.at ?? 0) - failedAt} ms)`);
  t.match(kill, { container: 'main', graceSeconds: 26 }, 'the 30 s less the sleep');
  const reasons = node.eventsOf('web').filter((e) => e.reason === 'FailedPostStartHook' || e.reason === 'Killing').map((e) => `${e.reason} ${e.note}`);
  t.same(reasons, ['FailedPostStartHook PostStartHook failed', 'Killing FailedPostStartHook']);
});

/** The backend's status while the sidecar `proxy` runs and the main container waits for it. */
function sidecarRunning(): PodStatus {
  return {
    phase: 'Pending', podIP: '10.244.0.7', startTime: ranAt,
    conditions: [{ type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized' }, { type: 'Ready', status: 'False' }],
    initContainerStatuses: [{ name: 'proxy', image: 'envoy:1', imageID: '', containerID: 'fake://proxy-0', ready: true, started: true, restartCount: 0, state: { running: { startedAt: ranAt } } }],
    containerStatuses: [{ name: 'main', image: 'nginx:1.27', imageID: '', ready: false, started: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
  };
}

t.test('a sidecar\'s postStart hook runs before the provider is told to start what follows it; the sidecar is held meanwhile', async (t) => {
  const { node, provider } = await hookNode(t);
  const plain = podFixture('web');
  const pod: Pod = { ...plain, spec: { ...plain.spec, containers: plain.spec?.containers ?? [], initContainers: [{ name: 'proxy', image: 'envoy:1', restartPolicy: 'Always', lifecycle: { postStart: { sleep: { seconds: 3 } } } }] } };
  node.host.bind(pod);
  await node.eventually('created at the provider', () => provider.has('ns', 'web'));
  provider.setStatus('ns', 'web', sidecarRunning());
  const runAt = node.clock.now();
  await node.eventually('the sidecar shown in its hook', () => node.host.pod('ns', 'web')?.status?.initContainerStatuses?.[0]?.state?.waiting?.reason === 'PodInitializing');
  t.same(provider.hookCalls, [], 'nothing told yet');
  await node.eventually('the provider told', () => provider.hookCalls.some((c) => c.op === 'postStartDone'));
  const told = provider.hookCalls.find((c) => c.op === 'postStartDone');
  t.match(told, { container: 'proxy', containerID: 'fake://proxy-0' });
  t.ok((told?.at ?? 0) - runAt >= 3_000, 'after the sleep');
  await node.eventually('the sidecar shown started', () => node.host.pod('ns', 'web')?.status?.initContainerStatuses?.[0]?.started === true);
});
