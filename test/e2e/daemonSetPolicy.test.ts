/**
 * DaemonSet pods on a virtual node (issue 24), on real clusters, under the default policy
 * (`admission.daemonSets: reject`, docs/kubelet-api.md "Admission"): a DaemonSet that tolerates
 * every taint gets a pod on the virtual node, which the node answers as a kubelet answers an unfit
 * pod (Failed, `DaemonSetPodNotAdmitted`, a Warning), the DaemonSet itself gets the Warning naming
 * the node affinity that keeps it off virtual nodes, and nothing of it is offloaded: no remote pod,
 * no copy of the Secret its pods use. The virtual node offloads through the Kubernetes provider to
 * the shared remote cluster; the DaemonSet is pinned to that node (nodeSelector), so the other
 * tests' nodes on the shared host cluster get none of its pods.
 *
 * Under `admit`, on a node whose provider really runs the pods (the simulated node), the same
 * tolerate-all DaemonSet rolls out, and a template change rolls out again: `kubectl rollout status`
 * completes, which is the only honest way for it to (docs/kubelet-api.md "DaemonSet rollouts").
 */
import t from 'tap';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { hostClusterIdFromUid } from '../../src/providers/kubernetes/index.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, type KubeObject } from '../support/kubectlJson.js';
import { nodeIsReady, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface List<T> { items: T[] }
interface CoreEvent { reason?: string; type?: string; message?: string; involvedObject?: { kind?: string; name?: string } }

const WORKER_TAINT = 'tether.test/daemonset-worker';

/**
 * DaemonSet `node-agent` whose pods tolerate every taint, as kube-proxy and CNIs do, pinned to this
 * test's node only (so the shared host cluster's other nodes get none), rolled out one node at a time.
 */
function tolerateAllDaemonSet(ns: string, nodeName: string, pod: { containers: object[]; volumes?: object[] }): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'node-agent', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'node-agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'node-agent' } },
        spec: { tolerations: [{ operator: 'Exists' }], nodeSelector: { 'kubernetes.io/hostname': nodeName }, terminationGracePeriodSeconds: 2, ...pod },
      },
    },
  };
}

t.test('a tolerate-all DaemonSet under the default policy', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const clusterIdOf = async (cluster: ClusterAccess): Promise<string> =>
    hostClusterIdFromUid((await cluster.kubectl(['get', 'namespace', 'kube-system', '-o', 'jsonpath={.metadata.uid}'])).trim());
  startRemoteWorker(t, remote, { name: uniqueNamespace('ds-worker'), podCIDR: '10.79.0.0/16', taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }], deleteNodeOnStop: true });
  const nodeName = uniqueNamespace('vn-ds');
  startOffloadingNode(t, host, remote, {
    name: nodeName,
    hostClusterId: await clusterIdOf(host),
    provider: { offloadingPatch: { tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }] } },
  });
  await waitFor(`virtual node ${nodeName} Ready`, () => nodeIsReady(host, nodeName), { timeoutMs: 90_000 });
  const ns = await testNamespace(t, host, 'ds');
  const secret = `${ns}-agent-token`;
  const daemonSet = tolerateAllDaemonSet(ns, nodeName, {
    containers: [{ name: 'agent', image: 'nginx:1.27', envFrom: [{ secretRef: { name: secret } }], volumeMounts: [{ name: 'token', mountPath: '/token' }] }],
    volumes: [{ name: 'token', secret: { secretName: secret } }],
  });
  const token = { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret, namespace: ns }, stringData: { TOKEN: 'not-for-the-remote' } };
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [token, daemonSet] }) });

  const rejected = await waitFor('the daemon pod on the virtual node Failed', async () => {
    const pods = (await getJson<List<KubeObject>>(host, ['pods', '-n', ns, '-l', 'app=node-agent']))?.items ?? [];
    return pods.find((p) => p.spec?.nodeName === nodeName && p.status?.phase === 'Failed');
  }, { timeoutMs: 90_000 });
  t.equal(rejected.status?.['reason'], 'DaemonSetPodNotAdmitted', 'the documented reason');
  t.equal(rejected.status?.['message'], 'Pod was rejected: Failed to admit pod of DaemonSet node-agent: this virtual node does not run DaemonSet pods (admission.daemonSets: reject)', 'the documented message');

  const eventsOf = async (kind: string, name: string): Promise<CoreEvent[]> =>
    (await getJson<List<CoreEvent>>(host, ['events', '-n', ns, '--field-selector', `involvedObject.kind=${kind},involvedObject.name=${name}`]))?.items ?? [];
  const onPod = await waitFor('the pod\'s Warning', async () => (await eventsOf('Pod', rejected.metadata.name)).find((e) => e.reason === 'DaemonSetPodNotAdmitted'), { timeoutMs: 30_000 });
  t.equal(onPod.type, 'Warning');
  const onDaemonSet = await waitFor('the DaemonSet\'s Warning', async () => (await eventsOf('DaemonSet', 'node-agent')).find((e) => e.reason === 'DaemonSetPodNotAdmitted'), { timeoutMs: 30_000 });
  t.equal(onDaemonSet.type, 'Warning');
  t.match(onDaemonSet.message, `virtual node ${nodeName} does not run DaemonSet pods (admission.daemonSets: reject)`, 'names the node and the policy');
  t.match(onDaemonSet.message, '{"key":"type","operator":"NotIn","values":["virtual-kubelet"]}', 'and the node affinity to add');

  // Never offloaded: the provider was never asked, so nothing of it is in the remote cluster.
  const remoteSecrets = (await getJson<List<KubeObject>>(remote, ['secrets', '-A', '--field-selector', `metadata.name=${secret}`]))?.items ?? [];
  t.same(remoteSecrets.map((s) => `${s.metadata.namespace ?? ''}/${s.metadata.name}`), [], 'no copy of its Secret in the remote cluster');
  const remotePods = (await getJson<List<KubeObject>>(remote, ['pods', '-A', '-l', 'app=node-agent']))?.items ?? [];
  t.same(remotePods.map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name}`), [], 'no remote pod');
  await host.kubectl(['delete', 'daemonset', '-n', ns, 'node-agent', '--wait=false']);
});

t.test('a tolerate-all DaemonSet under admit, on a node that runs its pods, rolls out and rolls out again', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('vn-ds-admit');
  const provider = new SimulatedProvider({ startLatencyMs: 100, stopLatencyMs: 100 });
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider, admission: { daemonSets: 'admit' } }],
  });
  t.teardown(async () => {
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  await waitFor(`virtual node ${nodeName} Ready`, () => nodeIsReady(host, nodeName), { timeoutMs: 60_000 });
  const ns = await testNamespace(t, host, 'ds-admit');
  const daemonSet = (revision: string): object => tolerateAllDaemonSet(ns, nodeName, {
    containers: [{ name: 'agent', image: 'nginx:1.27', env: [{ name: 'REVISION', value: revision }] }],
  });
  const rolledOut = async (revision: string): Promise<void> => {
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(daemonSet(revision)) });
    // kubectl's own rollout check (updated and available == desired, at the observed generation).
    await host.kubectl(['rollout', 'status', 'daemonset/node-agent', '-n', ns, '--timeout=90s']);
    const ds = await getJson<KubeObject>(host, ['daemonset', '-n', ns, 'node-agent']);
    t.same(
      { desired: ds?.status?.['desiredNumberScheduled'], updated: ds?.status?.['updatedNumberScheduled'], available: ds?.status?.['numberAvailable'] },
      { desired: 1, updated: 1, available: 1 },
      `revision ${revision}: the virtual node's daemon pod is updated and available`,
    );
    const pods = (await getJson<List<KubeObject>>(host, ['pods', '-n', ns, '-l', 'app=node-agent']))?.items ?? [];
    const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
    t.same(live.map((p) => [p.spec?.nodeName, p.status?.phase]), [[nodeName, 'Running']], 'one running daemon pod, on the virtual node');
    const atProvider = (await provider.listPods()).filter((p) => p.metadata?.namespace === ns && p.status?.phase === 'Running');
    t.same(atProvider.map((p) => p.metadata?.uid), live.map((p) => p.metadata.uid), 'and the provider runs that very pod');
  };
  await rolledOut('1');
  await rolledOut('2');
  await host.kubectl(['delete', 'daemonset', '-n', ns, 'node-agent', '--wait=false']);
});
