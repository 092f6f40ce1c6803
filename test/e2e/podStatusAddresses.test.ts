/**
 * On the real host API server: a pod's addresses are replaced by each status write, not merged
 * into the last ones. `podIPs` and `hostIPs` are merge-keyed lists in a strategic-merge patch, so a
 * blind write of a new address (a provider that restarted and placed the pod again) would append
 * it and be refused with 422 "may specify no more than one IP for each IP family".
 */
import t from 'tap';
import { CoreV1Api } from '@kubernetes/client-node';
import { PodApiClient } from '../../src/adapters/kubernetes/podApiClient.js';
import { immediateScheduler } from '../support/immediateScheduler.js';
import { testNamespace, useSharedClusters } from '../harness/sharedClusters.js';

t.test('a status write with a new pod and host IP replaces the old addresses', async (t) => {
  const { host } = await useSharedClusters(t);
  const ns = await testNamespace(t, host, 'pod-ips');
  const core = host.kubeConfig().makeApiClient(CoreV1Api);
  const pods = new PodApiClient(core, immediateScheduler);
  const created = await core.createNamespacedPod({
    namespace: ns,
    body: { metadata: { name: 'web' }, spec: { nodeName: 'no-such-node', containers: [{ name: 'c', image: 'none' }] } },
  });
  const uid = created.metadata?.uid ?? '';
  const placed = (ip: string, hostIP: string) => ({ phase: 'Running', podIP: ip, podIPs: [{ ip }], hostIP, hostIPs: [{ ip: hostIP }] });

  await pods.patchPodStatus(ns, 'web', uid, placed('10.1.0.5', '192.168.0.1'));
  const moved = await pods.patchPodStatus(ns, 'web', uid, placed('10.1.0.9', '192.168.0.2'));
  t.same(moved.status?.podIPs?.map((p) => p.ip), ['10.1.0.9'], 'podIPs holds only the new address');
  t.same(moved.status?.hostIPs?.map((p) => p.ip), ['192.168.0.2'], 'hostIPs holds only the new address');
  t.equal(moved.status?.podIP, '10.1.0.9');

  const stored = await core.readNamespacedPod({ namespace: ns, name: 'web' });
  t.same(stored.status?.podIPs?.map((p) => p.ip), ['10.1.0.9'], 'and so does the stored pod');
});
