/**
 * Offloading never touches what Tether does not own (issue 26), on the shared host and remote
 * clusters: a remote ConfigMap whose marks a remote admin removed survives the host copy's
 * deletion (and the host says so with a `ReflectionNotOwned` Warning), and a remote annotation
 * survives a host label change. The host runs a virtual node backed by the Kubernetes provider;
 * the remote a simulated worker, tainted so that only this test's offloaded pod lands there.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface List<T> {
  items: T[];
}
interface Event {
  reason?: string;
  message?: string;
  note?: string;
  involvedObject?: { kind?: string; name?: string };
}

t.test('what a remote admin or a remote controller owns is left alone', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const id = randomBytes(3).toString('hex');
  const taint = { key: 'tether.dev/e2e', value: id, effect: 'NoSchedule' as const };
  const worker = startRemoteWorker(t, remote, { name: uniqueNamespace('own-remote-worker'), podCIDR: '10.87.0.0/16', startLatencyMs: 100, taints: [taint], deleteNodeOnStop: true });
  const { name: virtualNodeName, provider: offload } = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('own-offload'),
    hostClusterId: `o${id}`,
    provider: { offloadingPatch: { nodeSelector: { 'kubernetes.io/hostname': worker.name }, tolerations: worker.tolerations } },
    node: { pod: { retry: { minMs: 500, maxMs: 3_000, factor: 2, jitter: 0.2 } } },
  });
  const ns = await testNamespace(t, host, 'own');
  const remoteNs = offload.remoteNamespaceOf(ns);
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).catch(() => undefined));

  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config', namespace: ns }, data: { greeting: 'hello' } }) });
  await host.kubectl(['apply', '-f', '-'], {
    input: podManifest('web', ns, virtualNodeName, { volumes: [{ name: 'cfg', configMap: { name: 'app-config' } }], containers: [{ name: 'app', image: 'registry.invalid/app:1' }] }),
  });
  const remotePod = (): Promise<KubeObject | undefined> => getJson<KubeObject>(remote, ['pod', 'web', '-n', remoteNs]);
  await waitFor('the pod offloaded and its ConfigMap copied', async () =>
    (await remotePod())?.status?.phase === 'Running' && (await getJson(remote, ['configmap', 'app-config', '-n', remoteNs])) !== undefined,
  { timeoutMs: 120_000, intervalMs: 1_000 });

  await t.test('a remote annotation survives a host label change', async (t) => {
    await remote.kubectl(['annotate', 'pod', 'web', '-n', remoteNs, 'cni.example.com/assigned=10.87.0.9']);
    await remote.kubectl(['label', 'pod', 'web', '-n', remoteNs, 'mesh.example.com/rev=stable']);
    await host.kubectl(['label', 'pod', 'web', '-n', ns, 'tier=front']);
    const pod = await waitFor('the host label on the remote pod', async () => {
      const p = await remotePod();
      return p?.metadata?.labels?.tier === 'front' ? p : undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 });
    t.equal(pod.metadata?.annotations?.['cni.example.com/assigned'], '10.87.0.9', 'the remote annotation is kept');
    t.equal(pod.metadata?.labels?.['mesh.example.com/rev'], 'stable', 'the remote label is kept');
    await host.kubectl(['label', 'pod', 'web', '-n', ns, 'tier-']);
    const after = await waitFor('the host label removed remotely', async () => {
      const p = await remotePod();
      return p && p.metadata?.labels?.tier === undefined ? p : undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 });
    t.equal(after.metadata?.labels?.['mesh.example.com/rev'], 'stable', 'a label Tether never wrote is never removed');
  });

  await t.test('a remote ConfigMap whose marks a remote admin removed survives the host copy\'s deletion', async (t) => {
    await remote.kubectl(['label', 'configmap', 'app-config', '-n', remoteNs, 'tether.dev/managed-by-']);
    await host.kubectl(['delete', 'configmap', 'app-config', '-n', ns]);
    const warning = await waitFor('a ReflectionNotOwned Warning on the host ConfigMap', async () => {
      const events = (await getJson<List<Event>>(host, ['events', '-n', ns, '--field-selector', 'reason=ReflectionNotOwned']))?.items ?? [];
      return events.find((e) => e.involvedObject?.kind === 'ConfigMap' && e.involvedObject.name === 'app-config');
    }, { timeoutMs: 60_000, intervalMs: 1_000 });
    t.match(warning.message ?? warning.note, /no longer carries Tether's marks/);
    const copy = await getJson<{ data?: Record<string, string> }>(remote, ['configmap', 'app-config', '-n', remoteNs]);
    t.same(copy?.data, { greeting: 'hello' }, 'the remote admin\'s ConfigMap is still there, unchanged');
  });
});
