/**
 * On the real host API server: every write to a host pod carries the pod's UID, as the kubelet's
 * status patch does, so a write meant for a deleted pod is refused for a newer pod of the same
 * name (409 Conflict) instead of landing on it.
 */
import t from 'tap';
import { CoreV1Api } from '@kubernetes/client-node';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.js';
import { PodApiClient } from '../../src/adapters/kubernetes/podApiClient.js';
import { immediateScheduler } from '../support/immediateScheduler.js';
import { testNamespace, useSharedClusters } from '../harness/sharedClusters.js';

t.test('a status or annotation write for a deleted pod never lands on its same-named successor', async (t) => {
  const { host } = await useSharedClusters(t);
  const ns = await testNamespace(t, host, 'uid-pre');
  const core = host.kubeConfig().makeApiClient(CoreV1Api);
  const pods = new PodApiClient(core, immediateScheduler);
  const body = { metadata: { name: 'db-0' }, spec: { nodeName: 'no-such-node', containers: [{ name: 'c', image: 'none' }] } };
  const first = await core.createNamespacedPod({ namespace: ns, body });
  const oldUid = first.metadata?.uid ?? '';
  await core.deleteNamespacedPod({ namespace: ns, name: 'db-0', gracePeriodSeconds: 0 });
  const second = await core.createNamespacedPod({ namespace: ns, body });
  const newUid = second.metadata?.uid ?? '';
  t.not(newUid, oldUid);

  const status = await pods.patchPodStatus(ns, 'db-0', oldUid, { phase: 'Failed', reason: 'Terminated' }).then(() => undefined, (e: unknown) => e);
  t.equal(status instanceof KubeApiError ? status.kind : String(status), 'conflict', 'the status write for the old uid is refused (conflict)');
  const annotate = await pods.patchPodAnnotations(ns, 'db-0', oldUid, { 'tether.dev/provider-create-error': 'old' }).then(() => undefined, (e: unknown) => e);
  t.equal(annotate instanceof KubeApiError ? annotate.kind : String(annotate), 'conflict', 'the annotation write for the old uid is refused (conflict)');
  const now = await core.readNamespacedPod({ namespace: ns, name: 'db-0' });
  t.not(now.status?.phase, 'Failed', 'the successor keeps its own phase');
  t.notOk(now.metadata?.annotations?.['tether.dev/provider-create-error'], 'and carries no annotation meant for its predecessor');

  const ok = await pods.patchPodStatus(ns, 'db-0', newUid, { phase: 'Running' });
  t.equal(ok.status?.phase, 'Running', 'the right uid writes');
  const annotated = await pods.patchPodAnnotations(ns, 'db-0', newUid, { 'tether.dev/x': '1' });
  t.equal(annotated.metadata?.annotations?.['tether.dev/x'], '1');
});
