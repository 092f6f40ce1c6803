/**
 * DaemonSet pods on a virtual node (issue 24), on real clusters, under the default policy
 * (`admission.daemonSets: reject`, docs/kubelet-api.md "Admission"): a DaemonSet that tolerates
 * every taint gets a pod on the virtual node, which the node answers as a kubelet answers an unfit
 * pod (Failed, `DaemonSetPodNotAdmitted`, a Warning), the DaemonSet itself gets the Warning naming
 * the node affinity that keeps it off virtual nodes, and nothing of it is offloaded: no remote pod,
 * no copy of the Secret its pods use. The virtual node offloads through the Kubernetes provider to
 * the shared remote cluster; the DaemonSet is pinned to that node (nodeSelector), so the other
 * tests' nodes on the shared host cluster get none of its pods.
 */
import t from 'tap';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { hostClusterIdFromUid } from '../../src/providers/kubernetes/index.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, type KubeObject } from '../support/kubectlJson.js';
import { nodeIsReady, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface List<T> { items: T[] }
interface CoreEvent { reason?: string; type?: string; message?: string; involvedObject?: { kind?: string; name?: string } }

const WORKER_TAINT = 'tether.test/daemonset-worker';

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
  const daemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'node-agent', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'node-agent' } },
      template: {
        metadata: { labels: { app: 'node-agent' } },
        spec: {
          // Every taint tolerated, as kube-proxy and CNIs do; pinned to this test's node only.
          tolerations: [{ operator: 'Exists' }],
          nodeSelector: { 'kubernetes.io/hostname': nodeName },
          terminationGracePeriodSeconds: 2,
          containers: [{ name: 'agent', image: 'nginx:1.27', envFrom: [{ secretRef: { name: secret } }], volumeMounts: [{ name: 'token', mountPath: '/token' }] }],
          volumes: [{ name: 'token', secret: { secretName: secret } }],
        },
      },
    },
  };
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
