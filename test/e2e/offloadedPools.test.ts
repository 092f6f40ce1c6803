/**
 * Remote placement of offloaded pods (issue 27), on the two real clusters, with two simulated
 * workers in the remote cluster labelled as this test's pool(s) and tainted so only this test's
 * pods land there:
 *
 * - anti-affinity: a virtual node that carries scheduling constraints, its scheduling patch
 *   selecting both workers; a Deployment of 2 whose pods require anti-affinity on
 *   `kubernetes.io/hostname` ends with the two remote pods on the two workers. The host pods are
 *   bound by `nodeName`: on the host the term applies too, and the virtual node is one hostname,
 *   so the host scheduler would place only one replica there (docs/kubernetes-provider.md).
 * - pools: two virtual nodes over one remote cluster, one per pool (`offloadingPatch.nodeSelector`):
 *   each reports its own pool's capacity (the workers offer different cpu so the test can tell)
 *   and its pods run on its pool's worker.
 */
import t from 'tap';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import type { OffloadingPatch } from '../../src/providers/kubernetes/index.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters, type TeardownHost } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { nodeIsReady, startOffloadingNode, startRemoteWorker, type RemoteWorker } from '../support/offloadingTopology.js';

const POOL_LABEL = 'tether.test/pool';
const WORKER_TAINT = 'tether.test/offloaded-pools-worker';

type PodJson = KubeObject & { spec?: { nodeName?: string }; status?: { phase?: string } };
type NodeJson = KubeObject & { status?: { capacity?: Record<string, string> } };
interface List<T> { items: T[] }

/** A tainted worker in the remote cluster, in `pool`, offering `cpu`. */
function poolWorker(t: TeardownHost, remote: ClusterAccess, pool: string, cpu: string, podCIDR: string): RemoteWorker {
  const resources = { cpu, memory: '100Gi', pods: '110' };
  return startRemoteWorker(t, remote, {
    name: uniqueNamespace(`${pool}-worker`), podCIDR, labels: { [POOL_LABEL]: pool },
    resources: { capacity: resources, allocatable: resources },
    taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }], deleteNodeOnStop: true,
  });
}

/** The scheduling patch that sends a virtual node's remote pods to `pool` (and past the workers' taint). */
const poolPatch = (pool: string): OffloadingPatch => ({
  nodeSelector: { [POOL_LABEL]: pool },
  tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }],
});

async function remoteNamespaceGone(t: TeardownHost, remote: ClusterAccess, remoteNs: string): Promise<void> {
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
}

t.test('required anti-affinity on hostname places the two remote replicas on the two remote workers', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const pool = uniqueNamespace('spread');
  const workers = [poolWorker(t, remote, pool, '4', '10.94.0.0/16'), poolWorker(t, remote, pool, '4', '10.95.0.0/16')];
  const node = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('vk-spread'), hostClusterId: 'host1',
    provider: { schedulingConstraints: 'carry', offloadingPatch: poolPatch(pool) },
  });
  // Bound by nodeName, the pods meet the virtual node's admission at once: wait for its capacity
  // to count both workers (220 pods), as the host scheduler would have waited for room.
  await waitFor('the virtual node Ready with both workers\' capacity', async () =>
    (await nodeIsReady(host, node.name)) && (await getJson<NodeJson>(host, ['node', node.name]))?.status?.capacity?.pods === '220', { timeoutMs: 90_000 });
  const ns = await testNamespace(t, host, 'spread');
  const remoteNs = `${ns}-host1`;
  await remoteNamespaceGone(t, remote, remoteNs);

  const labels = { app: 'spread' };
  await host.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'spread', namespace: ns },
      spec: {
        replicas: 2, selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            nodeName: node.name,
            tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
            affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey: 'kubernetes.io/hostname' }] } },
            containers: [{ name: 'app', image: 'nginx:1.27' }],
            terminationGracePeriodSeconds: 5,
          },
        },
      },
    }),
  });

  const placed = await waitFor('both remote replicas running', async () => {
    const pods = (await getJson<List<PodJson>>(remote, ['pods', '-n', remoteNs, '-l', 'app=spread']))?.items ?? [];
    return pods.length === 2 && pods.every((p) => p.status?.phase === 'Running') ? pods : undefined;
  }, { timeoutMs: 60_000 });
  t.same(placed.map((p) => p.spec?.nodeName).sort(), workers.map((w) => w.name).sort(), 'one on each remote worker');
  const hostPods = (await getJson<List<PodJson>>(host, ['pods', '-n', ns, '-l', 'app=spread']))?.items ?? [];
  t.same(hostPods.map((p) => p.status?.phase), ['Running', 'Running'], 'both host replicas running on the virtual node');
});

t.test('two virtual nodes over two pools of one remote cluster: each reports its pool\'s capacity and places its pods there', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const [poolA, poolB] = [uniqueNamespace('pool-a'), uniqueNamespace('pool-b')];
  const workerA = poolWorker(t, remote, poolA, '3', '10.96.0.0/16');
  const workerB = poolWorker(t, remote, poolB, '5', '10.97.0.0/16');
  const nodeA = startOffloadingNode(t, host, remote, { name: uniqueNamespace('vk-pool-a'), hostClusterId: 'host1', provider: { offloadingPatch: poolPatch(poolA) } });
  const nodeB = startOffloadingNode(t, host, remote, { name: uniqueNamespace('vk-pool-b'), hostClusterId: 'host1', provider: { offloadingPatch: poolPatch(poolB) } });
  const hostCpu = async (name: string): Promise<string | undefined> => (await getJson<NodeJson>(host, ['node', name]))?.status?.capacity?.cpu;

  await waitFor('each virtual node Ready with its pool\'s cpu', async () =>
    (await nodeIsReady(host, nodeA.name)) && (await nodeIsReady(host, nodeB.name)) && (await hostCpu(nodeA.name)) === '3' && (await hostCpu(nodeB.name)) === '5',
  { timeoutMs: 90_000 }).catch(async (error: unknown) => {
    t.comment(`capacities: ${nodeA.name}=${await hostCpu(nodeA.name)} ${nodeB.name}=${await hostCpu(nodeB.name)}`);
    throw error;
  });
  t.pass('pool a: cpu 3, pool b: cpu 5');

  const ns = await testNamespace(t, host, 'pools');
  const remoteNs = `${ns}-host1`;
  await remoteNamespaceGone(t, remote, remoteNs);
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('in-a', ns, nodeA.name) });
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('in-b', ns, nodeB.name) });
  for (const [pod, worker] of [['in-a', workerA], ['in-b', workerB]] as const) {
    const twin = await waitFor(`${pod} running remotely`, async () => {
      const p = await getJson<PodJson>(remote, ['pod', pod, '-n', remoteNs]);
      return p?.status?.phase === 'Running' ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.equal(twin.spec?.nodeName, worker.name, `${pod} on its pool's worker`);
  }
});
