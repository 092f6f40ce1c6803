/**
 * Kubelet duties Tether performs itself, for every provider (issue 24), on a real control plane
 * with the simulated provider (which knows neither field): a spec update bumps observedGeneration
 * on the status and the conditions Tether writes; activeDeadlineSeconds ends a pod that runs
 * `sleep 3600` Failed with reason DeadlineExceeded, as a kubelet does. `kubectl debug` and
 * `kubectl patch --subresource resize`, which the simulated provider cannot do, end in the status
 * and the Event a kubelet that cannot gives (a terminated ephemeral container with a message;
 * PodResizePending reason Infeasible), never in silence; while a container runs, the API server
 * itself refuses the resize (Tether reports no containerStatuses[].resources).
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

interface GenerationView extends KubeObject {
  metadata: KubeObject['metadata'] & { generation?: number };
}
interface EventList {
  items: Array<{ reason?: string; type?: string; note?: string; regarding?: { name?: string; fieldPath?: string } }>;
}
interface ContainerStatusView {
  name: string;
  state?: { terminated?: { reason?: string; message?: string; exitCode?: number }; waiting?: { reason?: string }; running?: unknown };
}

t.test('kubelet duties on a virtual node', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('vn-duties');
  const provider = new SimulatedProvider({ startLatencyMs: 300, stopLatencyMs: 200 });
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider, statusIntervalMs: 5_000, pod: { retry: { minMs: 500, maxMs: 2_000, factor: 2, jitter: 0.2 } } }],
  });
  t.teardown(async () => {
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  await waitFor('the node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  const ns = await testNamespace(t, host, 'duties');
  const pod = (name: string): Promise<GenerationView | undefined> => getJson<GenerationView>(host, ['pod', name, '-n', ns]);

  await t.test('an image update bumps metadata.generation, and the status Tether writes observes it', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('gen', ns, nodeName) });
    const first = await waitFor('Running and Ready, observedGeneration 1', async () => {
      const p = await pod('gen');
      return p?.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True' && p.status['observedGeneration'] === 1 ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.equal(first.metadata.generation, 1);
    await host.kubectl(['patch', 'pod', 'gen', '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.28' }])]);
    const updated = await waitFor('observedGeneration 2 on the status and on Ready', async () => {
      const p = await pod('gen');
      const ready = condition(p, 'Ready') as { observedGeneration?: number } | undefined;
      return p?.metadata.generation === 2 && p.status?.['observedGeneration'] === 2 && ready?.observedGeneration === 2 ? p : undefined;
    }, { timeoutMs: 60_000 });
    for (const type of ['Ready', 'ContainersReady', 'Initialized']) {
      const c = condition(updated, type) as { observedGeneration?: number } | undefined;
      if (c) t.equal(c.observedGeneration, 2, `${type} observes generation 2`);
    }
  });

  await t.test('a pod with activeDeadlineSeconds 10 running sleep 3600 ends Failed with reason DeadlineExceeded', async (t) => {
    await host.kubectl(['apply', '-f', '-'], {
      input: podManifest('deadline', ns, nodeName, { restartPolicy: 'Never', activeDeadlineSeconds: 10, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] }),
    });
    await waitFor('Running', async () => (await pod('deadline'))?.status?.phase === 'Running', { timeoutMs: 60_000 });
    const failed = await waitFor('Failed', async () => {
      const p = await pod('deadline');
      return p?.status?.phase === 'Failed' ? p : undefined;
    }, { timeoutMs: 90_000, intervalMs: 1_000 });
    t.equal(failed.status?.['reason'], 'DeadlineExceeded');
    t.equal(failed.status?.['message'], 'Pod was active on the node longer than the specified deadline');
    t.equal(condition(failed, 'Ready')?.status, 'False');
    const started = Date.parse(String(failed.status?.['startTime']));
    t.ok(Number.isFinite(started), 'counted from the startTime it shows');
    t.notOk(await provider.getPod(ns, 'deadline').then((p) => p?.status?.phase === 'Running'), 'no longer running at the provider');
    const events = await waitFor('the DeadlineExceeded Event', async () => {
      const list = await getJson<EventList>(host, ['events.events.k8s.io', '-n', ns]);
      const found = list?.items.filter((e) => e.regarding?.name === 'deadline' && e.reason === 'DeadlineExceeded');
      return found && found.length > 0 ? found : undefined;
    }, { timeoutMs: 30_000 });
    t.equal(events[0]?.type, 'Normal');
    t.ok(await pod('deadline'), 'the pod stays on the host, Failed');
  });

  const eventsAbout = async (name: string, reason: string): Promise<EventList['items']> => {
    const list = await getJson<EventList>(host, ['events.events.k8s.io', '-n', ns]);
    return list?.items.filter((e) => e.regarding?.name === name && e.reason === reason) ?? [];
  };

  await t.test('kubectl debug on a provider that cannot run ephemeral containers ends in a terminated status with a message and a Failed Event', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('debugged', ns, nodeName) });
    await waitFor('Running', async () => (await pod('debugged'))?.status?.phase === 'Running', { timeoutMs: 60_000 });
    await host.kubectl(['debug', 'debugged', '-n', ns, '--image=busybox:1.36', '--container=dbg', '--', 'sleep', '60']);
    const status = await waitFor('the ephemeral container\'s status', async () => {
      const statuses = (await pod('debugged'))?.status?.['ephemeralContainerStatuses'] as ContainerStatusView[] | undefined;
      return statuses?.find((s) => s.name === 'dbg' && s.state?.terminated !== undefined);
    }, { timeoutMs: 60_000 });
    t.equal(status.state?.terminated?.reason, 'StartError');
    t.equal(status.state?.terminated?.message, 'the provider of this virtual node cannot run ephemeral containers');
    const events = await waitFor('the kubelet\'s Failed Event', async () => {
      const found = (await eventsAbout('debugged', 'Failed')).filter((e) => e.regarding?.fieldPath === 'spec.ephemeralContainers{dbg}');
      return found.length > 0 ? found : undefined;
    }, { timeoutMs: 30_000 });
    t.equal(events[0]?.type, 'Warning');
    t.equal(events[0]?.note, 'Error: the provider of this virtual node cannot run ephemeral containers');
  });

  await t.test('a resize: refused by the API server while a container runs (no containerStatuses[].resources), else PodResizePending Infeasible and a ResizeInfeasible Event', async (t) => {
    const resources = (cpu: string): Record<string, unknown> => ({ requests: { cpu, memory: '64Mi' }, limits: { cpu, memory: '64Mi' } });
    const resize = (name: string): Promise<string> =>
      host.kubectl(['patch', 'pod', name, '-n', ns, '--subresource', 'resize', '--type=strategic', '-p', JSON.stringify({ spec: { containers: [{ name: 'app', resources: resources('200m') }] } })]);
    // A running container without reported resources is how the API server tells a node that cannot resize (validation.go isPodResizeRequestSupported).
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('resized', ns, nodeName, { containers: [{ name: 'app', image: 'nginx:1.27', resources: resources('100m') }] }) });
    await waitFor('Running', async () => (await pod('resized'))?.status?.phase === 'Running', { timeoutMs: 60_000 });
    const refused = await resize('resized').then(() => '', (e: unknown) => String((e as { stderr?: string }).stderr ?? e));
    t.match(refused, /Pod running on node without support for resize/, 'the API server refuses it at once, saying why');
    // While only an init container runs, the API server lets the resize through: Tether answers it.
    await host.kubectl(['apply', '-f', '-'], {
      input: podManifest('resizing', ns, nodeName, {
        initContainers: [{ name: 'wait', image: 'busybox:1.36', command: ['sleep', '3600'] }],
        containers: [{ name: 'app', image: 'nginx:1.27', resources: resources('100m') }],
      }),
    });
    await waitFor('the init container runs', async () => {
      const inits = (await pod('resizing'))?.status?.['initContainerStatuses'] as ContainerStatusView[] | undefined;
      return inits?.some((s) => s.name === 'wait' && s.state?.running !== undefined) === true;
    }, { timeoutMs: 60_000 });
    await resize('resizing');
    const pending = await waitFor('PodResizePending True', async () => {
      const c = condition(await pod('resizing'), 'PodResizePending');
      return c?.status === 'True' ? c : undefined;
    }, { timeoutMs: 60_000 });
    t.equal(pending.reason, 'Infeasible');
    t.equal(pending.message, 'the provider of this virtual node cannot resize containers in place');
    const events = await waitFor('the kubelet\'s ResizeInfeasible Event', async () => {
      const found = await eventsAbout('resizing', 'ResizeInfeasible');
      return found.length > 0 ? found : undefined;
    }, { timeoutMs: 30_000 });
    t.equal(events[0]?.type, 'Warning');
    t.match(events[0]?.note ?? '', /^Pod resize Infeasible: /);
  });
});
