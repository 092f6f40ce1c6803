/**
 * Pods on a virtual node against a real control plane (issue 5), with the simulated provider:
 * offload at scale, creation failures made visible, blind status writes, graceful deletion, and
 * NotReady marking that EndpointSlices obey.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { createErrorAnnotation, createErrorAtAnnotation } from '../../src/actors/pod/annotations.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

interface List<T> {
  items: T[];
}
interface EndpointSlice {
  endpoints?: Array<{ addresses: string[]; conditions?: { ready?: boolean } }>;
}

t.test('pods on a virtual node', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('vn-pods');
  const provider = new SimulatedProvider({ startLatencyMs: 300, stopLatencyMs: 200 });
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{
      name: nodeName,
      internalIP: '127.0.0.1',
      provider,
      ping: { intervalMs: 500, timeoutMs: 1_000, failureThreshold: 2, successThreshold: 2 },
      statusIntervalMs: 5_000,
      pod: { retry: { minMs: 500, maxMs: 2_000, factor: 2, jitter: 0.2 } },
    }],
  });
  t.teardown(async () => {
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  await waitFor('the node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  const ns = await testNamespace(t, host, 'pods');
  const pods = async (selector: string): Promise<KubeObject[]> => (await getJson<List<KubeObject>>(host, ['pods', '-n', ns, '-l', selector]))?.items ?? [];
  const slices = async (service: string): Promise<EndpointSlice[]> =>
    (await getJson<List<EndpointSlice>>(host, ['endpointslices', '-n', ns, '-l', `kubernetes.io/service-name=${service}`]))?.items ?? [];
  const readyEndpoints = async (service: string): Promise<number> =>
    (await slices(service)).flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready === true).length;

  await t.test('a Deployment of 50 replicas: Running with IPs and Ready, and a Service with 50 ready endpoints', async (t) => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: ns },
      spec: {
        replicas: 50,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: (JSON.parse(podManifest('web', ns, nodeName)) as { spec: unknown }).spec },
      },
    };
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [deployment, service] }) });
    const running = await waitFor('50 pods Running and Ready with IPs', async () => {
      const list = await pods('app=web');
      const ok = list.filter((p) => p.status?.phase === 'Running' && p.status.podIP && condition(p, 'Ready')?.status === 'True');
      return ok.length === 50 ? ok : undefined;
    }, { timeoutMs: 180_000, intervalMs: 1_000 });
    t.equal(new Set(running.map((p) => p.status?.podIP)).size, 50, 'every pod has its own IP');
    t.ok(running.every((p) => p.spec?.nodeName === nodeName));
    t.ok(running.every((p) => condition(p, 'PodScheduled')?.status === 'True'), "the scheduler's condition is kept");
    await waitFor('the EndpointSlice lists 50 ready endpoints', async () => (await readyEndpoints('web')) === 50, { timeoutMs: 60_000 });
  });

  await t.test('virtual node NotReady: every pod Ready=False and out of the EndpointSlice; back when it recovers', async (t) => {
    provider.faults.setPingFailing(true);
    t.teardown(() => provider.faults.setPingFailing(false));
    const down = await waitFor('all pods Ready=False', async () => {
      const list = await pods('app=web');
      return list.length === 50 && list.every((p) => condition(p, 'Ready')?.status === 'False') ? list : undefined;
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    t.match(condition(down[0], 'Ready'), { reason: 'VirtualNodeNotReady', message: /not ready/ });
    t.match(condition(down[0], 'ContainersReady'), { status: 'False' });
    t.equal(down[0]?.status?.phase, 'Running', 'the phase stays the provider\'s');
    await waitFor('no ready endpoints', async () => (await readyEndpoints('web')) === 0, { timeoutMs: 60_000 });
    provider.faults.setPingFailing(false);
    await waitFor('all pods Ready again', async () => (await pods('app=web')).filter((p) => condition(p, 'Ready')?.status === 'True').length === 50, { timeoutMs: 120_000, intervalMs: 1_000 });
    await waitFor('50 ready endpoints again', async () => (await readyEndpoints('web')) === 50, { timeoutMs: 60_000 });
  });

  await t.test('a creation failure is annotated and an Event, retried, and cleared once it runs; status is never faked', async (t) => {
    provider.faults.failCreate(`${ns}/flaky`, true);
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('flaky', ns, nodeName) });
    const failing = await waitFor('the error annotation', async () => {
      const p = await getJson<KubeObject>(host, ['pod', 'flaky', '-n', ns]);
      return p?.metadata.annotations?.[createErrorAnnotation] ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.ok(Date.parse(failing.metadata.annotations?.[createErrorAtAnnotation] ?? ''), 'when it happened');
    t.equal(failing.status?.phase, 'Pending', 'phase untouched');
    t.same((failing.status?.conditions ?? []).map((c) => c.type), ['PodScheduled'], 'no condition carries the error');
    const events = await waitFor('a Warning event on the pod', async () => {
      const list = await getJson<List<{ reason?: string; type?: string; note?: string; series?: { count: number }; regarding?: { name?: string } }>>(host, ['events.events.k8s.io', '-n', ns]);
      const found = list?.items.filter((e) => e.regarding?.name === 'flaky' && e.reason === 'ProviderCreateFailed');
      return found && found.length > 0 ? found : undefined;
    }, { timeoutMs: 30_000 });
    t.equal(events[0]?.type, 'Warning');
    t.match(events[0]?.note, /creating the pod at the provider failed/);
    provider.faults.failCreate(`${ns}/flaky`, false);
    const fixed = await waitFor('Running, annotation cleared', async () => {
      const p = await getJson<KubeObject>(host, ['pod', 'flaky', '-n', ns]);
      return p?.status?.phase === 'Running' && !p.metadata.annotations?.[createErrorAnnotation] ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.notOk(fixed.metadata.annotations?.[createErrorAtAnnotation]);
  });

  await t.test("another client's status write is overwritten without a conflict; its labels and annotations survive", async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('owned', ns, nodeName) });
    await waitFor('Running', async () => (await getJson<KubeObject>(host, ['pod', 'owned', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
    await host.kubectl(['label', 'pod', 'owned', '-n', ns, 'extra=label']);
    await host.kubectl(['annotate', 'pod', 'owned', '-n', ns, 'example.com/note=kept']);
    await host.kubectl(['patch', 'pod', 'owned', '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Failed', reason: 'Tampered', message: 'written by someone else' } })]);
    const restored = await waitFor("Tether's status back", async () => {
      const p = await getJson<KubeObject>(host, ['pod', 'owned', '-n', ns]);
      return p?.status?.phase === 'Running' ? p : undefined;
    }, { timeoutMs: 30_000 });
    t.equal(restored.metadata.labels?.['extra'], 'label');
    t.equal(restored.metadata.annotations?.['example.com/note'], 'kept');
  });

  await t.test('deleting a pod: it terminates at the provider and leaves the host long before its grace period', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('leaving', ns, nodeName, { terminationGracePeriodSeconds: 120 }) });
    const pod = await waitFor('Running', async () => {
      const p = await getJson<KubeObject>(host, ['pod', 'leaving', '-n', ns]);
      return p?.status?.phase === 'Running' ? p : undefined;
    }, { timeoutMs: 60_000 });
    const started = Date.now();
    await host.kubectl(['delete', 'pod', 'leaving', '-n', ns, '--wait=false']);
    await waitFor('gone from the host', async () => (await getJson<KubeObject>(host, ['pod', 'leaving', '-n', ns])) === undefined, { timeoutMs: 60_000 });
    t.ok(Date.now() - started < 60_000, 'well before the 120 s grace period');
    t.equal(await provider.getPod(ns, 'leaving'), undefined, 'gone at the provider too');
    t.ok(pod.metadata.uid);
  });
});
