/**
 * metrics-server, built from its Go module, against a cluster of this test's own (its APIService
 * changes the whole cluster's discovery, so the shared clusters stay without it): `kubectl top pod`
 * and `kubectl top node` show the virtual node and its pods with the simulated provider's usage
 * (half of each container's requests, plus the node's own 100m / 512Mi), and an HPA
 * (autoscaling/v2, CPU utilisation) on a Deployment bound to the virtual node reads them. The
 * kubelet API and metrics-server listen on the host-side address of a harness network namespace:
 * the API server will not proxy to loopback, and EndpointSlices refuse it.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { createAccessReviewer } from '../../src/adapters/kubernetes/accessReviewClient.js';
import { systemClock } from '../../src/adapters/clock.js';
import { boundedReviewer } from '../../src/kubelet/boundedReviewer.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { startMetricsServer } from '../../src/harness/metricsServer.js';
import { metricsServerBinary } from '../../src/harness/metricsServerBinary.js';
import { createNetworkNamespace, networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { startKubeletServer } from '../../src/kubelet/kubeletServer.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { startDedicatedCluster, testNamespace, uniqueNamespace } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, type KubeObject } from '../support/kubectlJson.js';

const support = await networkNamespaceSupport();
const binary = support.available ? await metricsServerBinary() : undefined;
const skip = !support.available ? support.reason : binary?.available === false ? binary.reason : false;

function deployment(name: string, namespace: string, nodeName: string): string {
  const labels = { app: name };
  return JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace },
    spec: {
      replicas: 2, selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': nodeName },
          tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
          terminationGracePeriodSeconds: 5,
          containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '200m', memory: '64Mi' } } }],
        },
      },
    },
  });
}

function hpa(name: string, namespace: string): string {
  return JSON.stringify({
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name, namespace },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 2, maxReplicas: 4,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
    },
  });
}

/** `kubectl top` rows as name → [cpu in millicores, memory in Mi]. */
function topRows(text: string): Map<string, [number, number]> {
  const rows = new Map<string, [number, number]>();
  for (const line of text.trim().split('\n').slice(1)) {
    const [name, cpu, ...rest] = line.trim().split(/\s+/);
    const memory = rest.find((field) => field.endsWith('Mi'));
    if (name && cpu?.endsWith('m') && memory) rows.set(name, [Number(cpu.slice(0, -1)), Number(memory.slice(0, -2))]);
  }
  return rows;
}

const near = (value: number | undefined, expected: number): boolean => value !== undefined && Math.abs(value - expected) <= expected * 0.05;

t.test('kubectl top and an HPA read the virtual node\'s usage through metrics-server', { skip }, async (t) => {
  const host = await startDedicatedCluster(t, { name: 'metrics' });
  const ns = await createNetworkNamespace('metrics');
  t.teardown(() => ns.remove());
  const nodeName = uniqueNamespace('vn-top');
  const provider = new SimulatedProvider({ startLatencyMs: 100, stopLatencyMs: 100 });
  const kubelet = await startKubeletServer({
    nodeName, provider, port: 0, address: ns.hostAddress,
    reviewer: boundedReviewer(createAccessReviewer(host.kubeConfig()), { clock: systemClock }),
    clientCA: readFileSync(host.describe().caCertPath, 'utf8'),
  });
  t.teardown(() => kubelet.stop());
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: ns.hostAddress, kubeletPort: kubelet.port, provider }],
  });
  t.teardown(async () => {
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  await waitFor('the virtual node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });

  const metrics = await startMetricsServer(host, { address: ns.hostAddress });
  t.teardown(async () => {
    if (!t.passing()) console.error(`--- metrics-server (${metrics.logPath}) ---\n${metrics.logs(60)}`);
    await metrics.stop();
  });

  const namespace = await testNamespace(t, host, 'top');
  await waitFor('the Deployment applied (the namespace\'s default ServiceAccount exists)', async () => {
    await host.kubectl(['apply', '-f', '-'], { input: deployment('web', namespace, nodeName) });
    return true;
  }, { timeoutMs: 30_000, intervalMs: 500 });

  await t.test('kubectl top pod shows each pod at half its requests', async (t) => {
    const rows = await waitFor('two pods in kubectl top pod', async () => {
      const out = await host.kubectl(['top', 'pod', '-n', namespace]).catch(() => '');
      const r = topRows(out);
      return r.size === 2 ? r : undefined;
    }, { timeoutMs: 120_000, intervalMs: 2_000 });
    for (const [name, [cpu, memory]] of rows) {
      t.match(name, /^web-/);
      t.ok(near(cpu, 100), `${name}: ${cpu}m CPU, about half of the 200m request`);
      t.equal(memory, 32, `${name}: half of the 64Mi request`);
    }
    const containers = await host.kubectl(['top', 'pod', '-n', namespace, '--containers']);
    t.match(containers, /web-\S+\s+app\s+\d+m\s+32Mi/, 'per container too');
  });

  await t.test('kubectl top node shows the virtual node: its own usage plus its pods\'', async (t) => {
    const row = await waitFor('the virtual node in kubectl top node', async () => {
      const r = topRows(await host.kubectl(['top', 'node']).catch(() => '')).get(nodeName);
      return r !== undefined && near(r[0], 300) ? r : undefined;
    }, { timeoutMs: 60_000, intervalMs: 2_000 });
    t.equal(row[1], 512 + 2 * 32, '512Mi of its own and 32Mi per pod');
  });

  await t.test('an HPA on the Deployment gets status.currentMetrics from the Metrics API', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: hpa('web', namespace) });
    type Hpa = { status?: { currentMetrics?: Array<{ type: string; resource?: { name: string; current?: { averageUtilization?: number; averageValue?: string } } }> } };
    const current = await waitFor('the HPA has current metrics', async () => {
      const object = await getJson<Hpa>(host, ['hpa', 'web', '-n', namespace]);
      return object?.status?.currentMetrics?.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu')?.resource?.current;
    }, { timeoutMs: 120_000, intervalMs: 2_000 });
    t.ok(near(current.averageUtilization, 50), `CPU utilisation ${current.averageUtilization}% of requests`);
  });
});
