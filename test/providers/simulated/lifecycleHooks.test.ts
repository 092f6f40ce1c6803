/** The simulated provider runs a container's exec and httpGet lifecycle hooks, and kills a container as the kubelet does after a failed postStart (LifecycleHookProvider). */
import t, { type Test } from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { providerKindOf } from '../../../src/providers/errors.js';
import { SimulatedProvider } from '../../../src/providers/simulated/simulatedProvider.js';
import { waitFor } from '../../harness/waitFor.js';

type Lifecycle = NonNullable<NonNullable<Pod['spec']>['containers'][number]['lifecycle']>;

type RestartPolicy = NonNullable<Pod['spec']>['restartPolicy'];

async function running(t: Test, lifecycle: Lifecycle, restartPolicy: RestartPolicy = 'Always'): Promise<SimulatedProvider> {
  const provider = new SimulatedProvider({ startLatencyMs: 0 });
  provider.notifyPods(() => undefined);
  await provider.createPod({
    metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
    spec: { restartPolicy, containers: [{ name: 'app', image: 'x', ports: [{ name: 'http', containerPort: 8080 }], lifecycle }] },
  });
  await waitFor('running', async () => (await provider.getPodStatus('shop', 'web'))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  t.teardown(() => provider.stop());
  return provider;
}

t.test('an exec hook runs in the built-in shell: exit 0 succeeds, anything else fails in the kubelet\'s words', async (t) => {
  const ok = await running(t, { preStop: { exec: { command: ['sh', '-c', 'echo bye'] } } });
  await ok.runLifecycleHook('shop', 'web', 'app', 'preStop');
  const failing = await running(t, { postStart: { exec: { command: ['sh', '-c', 'echo nope; exit 3'] } } });
  const error = await failing.runLifecycleHook('shop', 'web', 'app', 'postStart').then(() => undefined, (e: unknown) => e);
  t.equal(providerKindOf(error), 'transient');
  t.match(String(error), /Exec lifecycle hook \(\[sh -c echo nope; exit 3\]\) for Container "app" in Pod "web_shop\(u1\)" failed - error: .*exited with 3, message: "nope\\n"/);
});

t.test('an httpGet hook asks the port\'s responder: a declared port (by number or name) answers, another refuses', async (t) => {
  const byName = await running(t, { preStop: { httpGet: { path: '/quit', port: 'http' as unknown as number } } });
  await byName.runLifecycleHook('shop', 'web', 'app', 'preStop');
  const refused = await running(t, { preStop: { httpGet: { path: '/quit', port: 9999 } } });
  await t.rejects(refused.runLifecycleHook('shop', 'web', 'app', 'preStop'), /HTTP lifecycle hook \(\/quit\) for Container "app" in Pod "web_shop\(u1\)" failed - error: .*connection refused/);
});

t.test('a container without such a hook is invalid input', async (t) => {
  const provider = await running(t, { preStop: { sleep: { seconds: 1 } } });
  const error = await provider.runLifecycleHook('shop', 'web', 'app', 'preStop').then(() => undefined, (e: unknown) => e);
  t.equal(providerKindOf(error), 'invalid-input');
});

t.test('a killed container starts again as its restartPolicy says: a new run under Always, none under Never', async (t) => {
  const always = await running(t, { postStart: { exec: { command: ['false'] } } });
  const before = (await always.getPodStatus('shop', 'web'))?.containerStatuses?.[0];
  await always.killContainer('shop', 'web', 'app', 2);
  await waitFor('a new run', async () => (await always.getPodStatus('shop', 'web'))?.containerStatuses?.[0]?.restartCount === 1, { timeoutMs: 5_000, intervalMs: 10 });
  const after = (await always.getPodStatus('shop', 'web'))?.containerStatuses?.[0];
  t.not(after?.containerID, before?.containerID, 'another container');
  t.ok(after?.lastState?.terminated, 'the killed run is its last state');
  const never = await running(t, { postStart: { exec: { command: ['false'] } } }, 'Never');
  await never.killContainer('shop', 'web', 'app', 2);
  await waitFor('ended', async () => (await never.getPodStatus('shop', 'web'))?.containerStatuses?.[0]?.state?.terminated !== undefined, { timeoutMs: 5_000, intervalMs: 10 });
  t.equal((await never.getPodStatus('shop', 'web'))?.containerStatuses?.[0]?.restartCount, 0, 'not started again');
  await t.rejects(never.killContainer('shop', 'nope', 'app', 2), /not found/, 'an unknown pod is refused');
});

t.test('what follows a sidecar with a postStart hook starts only once Tether says the hook of its current run is over', async (t) => {
  const provider = new SimulatedProvider({ startLatencyMs: 0 });
  provider.notifyPods(() => undefined);
  t.teardown(() => provider.stop());
  await provider.createPod({
    metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
    spec: { initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', lifecycle: { postStart: { sleep: { seconds: 3 } } } }], containers: [{ name: 'app', image: 'x' }] },
  });
  const status = async (): Promise<Awaited<ReturnType<SimulatedProvider['getPodStatus']>>> => provider.getPodStatus('shop', 'web');
  await waitFor('the sidecar runs', async () => (await status())?.initContainerStatuses?.[0]?.state?.running !== undefined, { timeoutMs: 5_000, intervalMs: 10 });
  const proxy = (await status())?.initContainerStatuses?.[0];
  t.match((await status())?.containerStatuses?.[0], { state: { waiting: { reason: 'PodInitializing' } } }, 'the main container waits for the hook');
  await provider.postStartDone('shop', 'web', 'proxy', 'another-run');
  t.match((await status())?.containerStatuses?.[0], { state: { waiting: {} } }, 'a word about another run changes nothing');
  await provider.postStartDone('shop', 'web', 'proxy', proxy?.containerID ?? '');
  await waitFor('the main container runs', async () => (await status())?.containerStatuses?.[0]?.state?.running !== undefined, { timeoutMs: 5_000, intervalMs: 10 });
  await t.rejects(provider.postStartDone('shop', 'nope', 'proxy', 'x'), /not found/, 'an unknown pod is refused');
});
