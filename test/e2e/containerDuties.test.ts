/**
 * The kubelet's container duties on a real control plane, with the simulated provider (issue 24):
 * `kubectl describe pod` reads like a real node's (Scheduled, then the kubelet's Pulling, Pulled,
 * Created, Started, from the kubelet on the node), and a preStop sleep delays the stop at the
 * provider by the sleep, while a second delete with a 2 s grace cuts it; a postStart sleep holds
 * the pod as the kubelet shows it then (Pending, waiting ContainerCreating, not Ready), a sidecar's
 * postStart sleep runs before the main container starts, and a failing exec postStart is the
 * kubelet's FailedPostStartHook and a restart. Times are read from one clock (this process: the Events Tether records, the provider's
 * calls and what this test sees), as lower bounds.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import type { Pod, PodStatus } from '../../src/adapters/kubernetes/model.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

/** The first container's status of a pod as kubectl prints it. */
const firstContainer = (pod: KubeObject | undefined): NonNullable<PodStatus['containerStatuses']>[number] | undefined =>
  (pod?.status?.containerStatuses as PodStatus['containerStatuses'])?.[0];

interface CoreEvent {
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  involvedObject?: { name?: string; fieldPath?: string };
  eventTime?: string;
  firstTimestamp?: string;
}

t.test('the kubelet\'s container duties on a virtual node', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('vn-duties');
  const provider = new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100 });
  const deletes: Array<{ name: string; at: number; grace: number | undefined }> = [];
  const deletePod = provider.deletePod.bind(provider);
  provider.deletePod = (pod: Pod, signal?: AbortSignal): Promise<void> => {
    deletes.push({ name: pod.metadata?.name ?? '', at: Date.now(), grace: pod.metadata?.deletionGracePeriodSeconds });
    return deletePod(pod, signal);
  };
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider, ping: { intervalMs: 500, timeoutMs: 1_000, failureThreshold: 2, successThreshold: 2 } }],
  });
  t.teardown(async () => {
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  await waitFor('the node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  const ns = await testNamespace(t, host, 'duties');
  const eventsOf = async (name: string): Promise<CoreEvent[]> =>
    (await getJson<{ items: CoreEvent[] }>(host, ['events', '-n', ns, '--field-selector', `involvedObject.name=${name}`]))?.items ?? [];
  const running = (name: string) => waitFor(`${name} Running`, async () => (await getJson<KubeObject>(host, ['pod', '-n', ns, name]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
  const sleepingPod = (name: string, seconds: number, grace: number): string =>
    podManifest(name, ns, nodeName, { terminationGracePeriodSeconds: grace, containers: [{ name: 'app', image: 'nginx:1.27', lifecycle: { preStop: { sleep: { seconds } } } }] });
  const timeOf = (e: CoreEvent | undefined): number => Date.parse(e?.eventTime ?? e?.firstTimestamp ?? '');

  await t.test('a pod gets Scheduled, then Pulling, Pulled, Created and Started from the kubelet on the node', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('web', ns, nodeName) });
    await running('web');
    const events = await waitFor('the kubelet\'s Started', async () => {
      const all = await eventsOf('web');
      return all.some((e) => e.reason === 'Started') ? all : undefined;
    }, { timeoutMs: 30_000 });
    const reasons = events.map((e) => e.reason);
    t.ok(reasons.includes('Scheduled'), 'the scheduler\'s Scheduled');
    // Recorded through events.k8s.io/v1, which keeps `source` for the legacy API: the kubelet is the reporter.
    const kubelet = events.filter((e) => e.reportingComponent === 'kubelet');
    t.same(kubelet.map((e) => e.reason), ['Pulling', 'Pulled', 'Created', 'Started'], 'the kubelet\'s, once each');
    t.ok(kubelet.every((e) => e.reportingInstance === nodeName && e.involvedObject?.fieldPath === 'spec.containers{app}'), 'on the node, about the container');
    const describe = await host.kubectl(['describe', 'pod', '-n', ns, 'web']);
    t.match(describe, /Started\s+\S+\s+kubelet\s+spec\.containers\{app\}: Container started/, 'kubectl describe shows them from the kubelet, about the container');
  });

  await t.test('a preStop sleep of 5 s delays the stop at the provider by 5 s', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: sleepingPod('sleeper', 5, 30) });
    await running('sleeper');
    await host.kubectl(['delete', 'pod', '-n', ns, 'sleeper', '--wait=false']);
    const killing = await waitFor('the kubelet\'s Killing', async () => (await eventsOf('sleeper')).find((e) => e.reason === 'Killing'), { timeoutMs: 30_000 });
    const call = await waitFor('the stop asked at the provider', async () => deletes.find((d) => d.name === 'sleeper'), { timeoutMs: 30_000 });
    // The Event's time is in whole microseconds of the same clock, recorded as the hook began.
    t.ok(call.at - timeOf(killing) >= 5_000 - 1, `asked ${call.at - timeOf(killing)} ms after Killing`);
    t.equal(call.grace, 25, 'with what is left of the 30 s grace period');
    await waitFor('sleeper gone', async () => (await getJson<KubeObject>(host, ['pod', '-n', ns, 'sleeper'])) === undefined, { timeoutMs: 60_000 });
  });

  await t.test('a second delete with a grace of 2 s cuts the sleep', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: sleepingPod('cut', 120, 300) });
    await running('cut');
    await host.kubectl(['delete', 'pod', '-n', ns, 'cut', '--wait=false']);
    await waitFor('the kubelet\'s Killing', async () => (await eventsOf('cut')).find((e) => e.reason === 'Killing'), { timeoutMs: 30_000 });
    t.same(deletes.filter((d) => d.name === 'cut'), [], 'sleeping: the provider is not asked yet');
    const shortenedAt = Date.now();
    await host.kubectl(['delete', 'pod', '-n', ns, 'cut', '--grace-period=2', '--wait=false']);
    const call = await waitFor('the stop asked at the provider', async () => deletes.find((d) => d.name === 'cut'), { timeoutMs: 60_000 });
    t.ok(call.at >= shortenedAt, 'after the second delete');
    t.equal(call.grace, 2, 'with the kubelet\'s minimum of 2 s, not the 300 s');
    await waitFor('cut gone', async () => (await getJson<KubeObject>(host, ['pod', '-n', ns, 'cut'])) === undefined, { timeoutMs: 60_000 });
  });

  await t.test('a postStart sleep of 5 s holds the pod as the kubelet shows it (Pending, the container waiting ContainerCreating, not Ready) until it ends', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('warm', ns, nodeName, { containers: [{ name: 'app', image: 'nginx:1.27', lifecycle: { postStart: { sleep: { seconds: 5 } } } }] }) });
    const held = await waitFor('warm held in its hook', async () => {
      const pod = await getJson<KubeObject>(host, ['pod', '-n', ns, 'warm']);
      return firstContainer(pod)?.state?.waiting?.reason === 'ContainerCreating' && (await eventsOf('warm')).some((e) => e.reason === 'Started') ? pod : undefined;
    }, { timeoutMs: 60_000, intervalMs: 100 });
    t.equal(held.status?.phase, 'Pending', 'the kubelet\'s phase while its sync is in the hook');
    t.match(condition(held, 'Ready'), { status: 'False' }, 'not Ready while the hook sleeps');
    t.match(firstContainer(held), { started: false, ready: false }, 'not started');
    t.notOk(firstContainer(held)?.containerID, 'no containerID the kubelet would not have written yet');
    await waitFor('warm Ready', async () => condition(await getJson<KubeObject>(host, ['pod', '-n', ns, 'warm']), 'Ready')?.status === 'True', { timeoutMs: 60_000, intervalMs: 100 });
    const readyAt = Date.now();
    const started = (await eventsOf('warm')).find((e) => e.reason === 'Started');
    t.ok(readyAt - timeOf(started) >= 5_000 - 1, `Ready ${readyAt - timeOf(started)} ms after the container started`);
  });

  await t.test('a sidecar\'s postStart sleep of 4 s runs before the main container starts', async (t) => {
    const proxy = { name: 'proxy', image: 'nginx:1.27', restartPolicy: 'Always', lifecycle: { postStart: { sleep: { seconds: 4 } } } };
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('meshed', ns, nodeName, { initContainers: [proxy], containers: [{ name: 'app', image: 'nginx:1.27' }] }) });
    const held = await waitFor('the sidecar held in its hook', async () => {
      const pod = await getJson<KubeObject>(host, ['pod', '-n', ns, 'meshed']);
      const sidecar = (pod?.status?.initContainerStatuses as PodStatus['initContainerStatuses'])?.[0];
      return sidecar?.state?.waiting?.reason === 'PodInitializing' && (await eventsOf('meshed')).some((e) => e.reason === 'Started') ? pod : undefined;
    }, { timeoutMs: 60_000, intervalMs: 100 });
    t.match(firstContainer(held), { state: { waiting: { reason: 'PodInitializing' } } }, 'the main container waits');
    await running('meshed');
    const started = (await eventsOf('meshed')).filter((e) => e.reason === 'Started');
    const sidecarAt = timeOf(started.find((e) => e.involvedObject?.fieldPath === 'spec.initContainers{proxy}'));
    const mainAt = timeOf(started.find((e) => e.involvedObject?.fieldPath === 'spec.containers{app}'));
    t.ok(mainAt - sidecarAt >= 4_000 - 1, `the main container started ${mainAt - sidecarAt} ms after the sidecar`);
    await host.kubectl(['delete', 'pod', '-n', ns, 'meshed', '--wait=false']);
  });

  await t.test('a failing exec postStart is the kubelet\'s FailedPostStartHook, the container killed and started again', async (t) => {
    const hook = { postStart: { exec: { command: ['sh', '-c', 'echo not warm; exit 3'] } } };
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('cold', ns, nodeName, { containers: [{ name: 'app', image: 'nginx:1.27', lifecycle: hook }] }) });
    const events = await waitFor('FailedPostStartHook and Killing', async () => {
      const all = await eventsOf('cold');
      return all.some((e) => e.reason === 'FailedPostStartHook') && all.some((e) => e.reason === 'Killing') ? all : undefined;
    }, { timeoutMs: 60_000 });
    t.match(events.find((e) => e.reason === 'FailedPostStartHook'), { message: 'PostStartHook failed', reportingComponent: 'kubelet', involvedObject: { fieldPath: 'spec.containers{app}' } }, 'the kubelet\'s words, never the hook\'s output');
    t.match(events.find((e) => e.reason === 'Killing'), { message: 'FailedPostStartHook' });
    const restarted = await waitFor('a restart', async () => {
      const pod = await getJson<KubeObject>(host, ['pod', '-n', ns, 'cold']);
      return (firstContainer(pod)?.restartCount ?? 0) >= 1 ? pod : undefined;
    }, { timeoutMs: 60_000 });
    t.not(condition(restarted, 'Ready')?.status, 'True', 'never Ready: every run\'s hook fails');
    await host.kubectl(['delete', 'pod', '-n', ns, 'cold', '--wait=false']);
  });
});
