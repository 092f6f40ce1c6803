/**
 * The simulated node runs its containers' commands on a real control plane (issue 25): a Job
 * whose container runs `sh -c "echo done"` completes and `kubectl logs` shows `done`; an
 * OnFailure pod whose command exits 1 loops in CrashLoopBackOff with a growing restartCount.
 */
import t from 'tap';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { createConfigObjectReader } from '../../src/adapters/kubernetes/configObjects.js';
import { reportLogsOnFailure, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { startKubeletNode } from '../support/kubeletNode.js';

interface ContainerStatusJson {
  restartCount?: number;
  state?: { waiting?: { reason?: string; message?: string } };
  lastState?: { terminated?: { exitCode?: number; reason?: string } };
}

const support = await networkNamespaceSupport();

t.test('the simulated node runs the containers\' commands', { skip: support.available ? false : support.reason }, async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  // Commands see the pods' ConfigMaps (kube-root-ca.crt in every service-account volume), as on a node.
  const provider = new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100, configSource: createConfigObjectReader(host.kubeConfig()) });
  // With the kubelet API, so that kubectl logs reaches the node.
  const { nodeName } = await startKubeletNode(t, host, { prefix: 'vn-run', provider });
  const ns = await testNamespace(t, host, 'simrun');

  await t.test('a Job running sh -c "echo done" completes, and its log shows done', async (t) => {
    const template = JSON.parse(podManifest('done', ns, nodeName, { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'echo done'] }] })) as { metadata: unknown; spec: unknown };
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'done', namespace: ns }, spec: { backoffLimit: 0, template: { spec: template.spec } } };
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(job) });
    await waitFor('the Job Complete', async () => condition(await getJson<KubeObject>(host, ['job', '-n', ns, 'done']), 'Complete')?.status === 'True', { timeoutMs: 60_000 });
    t.equal(await host.kubectl(['logs', '-n', ns, 'job/done']), 'done\n');
  });

  await t.test('an OnFailure pod whose command exits 1 shows CrashLoopBackOff and its restartCount grows', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('crash', ns, nodeName, { restartPolicy: 'OnFailure', containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'echo crashing; exit 1'] }] }) });
    const status = async (): Promise<ContainerStatusJson | undefined> =>
      (await getJson<KubeObject & { status?: { containerStatuses?: ContainerStatusJson[] } }>(host, ['pod', '-n', ns, 'crash']))?.status?.containerStatuses?.[0];
    const looping = await waitFor('CrashLoopBackOff', async () => {
      const s = await status();
      return s?.state?.waiting?.reason === 'CrashLoopBackOff' ? s : undefined;
    }, { timeoutMs: 60_000 });
    t.match(looping.state?.waiting?.message, /^back-off 10s restarting failed container=app pod=crash_/);
    t.match(looping.lastState?.terminated, { exitCode: 1, reason: 'Error' });
    const first = looping.restartCount ?? 0;
    t.ok(first >= 1);
    const later = await waitFor('a restart after the back-off', async () => {
      const s = await status();
      return (s?.restartCount ?? 0) > first ? s : undefined;
    }, { timeoutMs: 60_000 });
    t.ok((later.restartCount ?? 0) > first, 'restartCount grows');
    t.equal(await host.kubectl(['logs', '-n', ns, 'crash', '--previous']), 'crashing\n');
    const get = await host.kubectl(['get', 'pod', '-n', ns, 'crash', '--no-headers']);
    t.match(get, /CrashLoopBackOff|Error|Running/);
  });
});
