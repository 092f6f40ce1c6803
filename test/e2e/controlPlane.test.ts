/**
 * The harness against real clusters: in both shared clusters the controller manager and the
 * scheduler act on a new namespace and pod; an API server outage in one cluster leaves the other
 * serving throughout, and the restarted API server serves the same data again.
 */
import t from 'tap';
import { ApiException, CoreV1Api, type V1PodCondition } from '@kubernetes/client-node';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { reportLogsOnFailure, startDedicatedCluster, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';

const shared = await useSharedClusters(t);
reportLogsOnFailure(t, [shared.host, shared.remote]);

const core = (cluster: ClusterAccess): CoreV1Api => cluster.kubeConfig().makeApiClient(CoreV1Api);

const defaultServiceAccount = (api: CoreV1Api, namespace: string): Promise<unknown> =>
  waitFor(`the controller manager to create the default ServiceAccount in ${namespace}`,
    () => api.readNamespacedServiceAccount({ name: 'default', namespace }), { timeoutMs: 60_000 });

for (const role of ['host', 'remote'] as const) {
  void t.test(`${role}: the controller manager and the scheduler act on a new namespace and pod`, async (t) => {
    const cluster = shared[role];
    const api = core(cluster);
    const namespace = await testNamespace(t, cluster, `control-plane-${role}`);
    // The ServiceAccount admission plugin rejects pods until the default ServiceAccount exists.
    await defaultServiceAccount(api, namespace);
    await api.createNamespacedPod({
      namespace,
      // A selector no node matches: other files' virtual nodes come and go in the shared cluster.
      body: { metadata: { name: 'waits' }, spec: { nodeSelector: { 'tether.dev/test-no-such-node': 'true' }, containers: [{ name: 'main', image: 'registry.invalid/none:1' }] } },
    });
    const scheduled = await waitFor<V1PodCondition>('the scheduler to mark the pod unschedulable (no node fits it)', async () => {
      const pod = await api.readNamespacedPod({ name: 'waits', namespace });
      const condition = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
      return condition?.status === 'False' && condition.reason === 'Unschedulable' ? condition : undefined;
    }, { timeoutMs: 60_000 });
    t.match(scheduled.message, /no nodes available|0\/\d+ nodes are available/);
  });
}

void t.test('an API server outage in one cluster leaves the other serving; the restarted one serves the same data', async (t) => {
  const outage = await startDedicatedCluster(t, { name: 'outage' });
  const other = shared.host;
  const outageApi = core(outage);
  await outageApi.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before-outage' }, data: { k: 'v' } } });
  // Stop only once the controller manager has started its controllers.
  await defaultServiceAccount(outageApi, 'default');

  const monitor = watchAvailability(core(other));
  t.teardown(() => monitor.stop());
  await outage.stopApiServer();
  t.notOk(outage.isRunning('kube-apiserver'));
  t.ok(outage.isRunning('etcd'));
  await waitFor('the stopped API server to refuse requests', async () => {
    try {
      await outageApi.readNamespace({ name: 'default' });
      return false;
    } catch (error) {
      return !(error instanceof ApiException);
    }
  }, { timeoutMs: 10_000 });
  const duringOutage = monitor.successes;
  await waitFor('the other cluster to answer five reads while this one is down',
    () => monitor.successes >= duringOutage + 5, { timeoutMs: 20_000 });

  await outage.startApiServer();
  const configMap = await waitFor('the restarted API server to serve the data from before the outage',
    () => outageApi.readNamespacedConfigMap({ name: 'before-outage', namespace: 'default' }), { timeoutMs: 30_000 });
  t.same(configMap.data, { k: 'v' });
  const namespace = await testNamespace(t, outage, 'after-outage');
  await defaultServiceAccount(outageApi, namespace);

  const availability = await monitor.stop();
  t.same(availability.failures, [], 'the other cluster never failed a read');
  t.ok(availability.successes > 5);
});

interface Availability {
  successes: number;
  failures: string[];
}

/** Reads from a cluster every 50 ms until stopped, counting successes and recording failures. */
function watchAvailability(api: CoreV1Api): Availability & { stop(): Promise<Availability> } {
  const state: Availability = { successes: 0, failures: [] };
  let running = true;
  // The harness's poll paces the reads; the probe says "not yet" until the test stops it.
  const loop = waitFor('the availability probe to be stopped', async () => {
    if (!running) return true;
    try {
      await api.readNamespace({ name: 'default' });
      state.successes++;
    } catch (error) {
      state.failures.push(error instanceof Error ? error.message : String(error));
    }
    return undefined;
  }, { intervalMs: 50, timeoutMs: 10 * 60_000 });
  return Object.assign(state, {
    async stop(): Promise<Availability> {
      running = false;
      await loop;
      return { successes: state.successes, failures: [...state.failures] };
    },
  });
}
