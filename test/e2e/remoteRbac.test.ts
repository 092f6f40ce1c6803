/**
 * Least privilege on the remote side (issue 26), on the shared host and remote clusters: the
 * "Remote RBAC" table of docs/kubernetes-provider.md, read from the doc itself, becomes one
 * ClusterRole bound to a ServiceAccount of the remote cluster, and the Kubernetes provider runs
 * with a token of that account and nothing more. A pod is offloaded with a ConfigMap and a Secret
 * and backs a reflected Service; its status comes back, a host label change reaches the remote
 * pod, and its deletion cleans up remotely; the provider logs no Forbidden on the way. Not
 * exercised: logs, exec, attach, port-forward and stats (the simulated worker's kubelet API is not
 * reachable through the remote API server's node proxy here).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { jsonLogger } from '../../src/adapters/logger.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { bothReady, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface Rule { apiGroups: string[]; resources: string[]; verbs: string[] }
interface List<T> { items: T[] }

/** The rules of the doc's "Remote RBAC" table: one per row (`core` is the empty API group). */
function documentedRules(): Rule[] {
  const doc = readFileSync(new URL('../../docs/kubernetes-provider.md', import.meta.url), 'utf8');
  const lines = doc.slice(doc.indexOf('### Remote RBAC')).split('\n');
  const first = lines.findIndex((line) => line.startsWith('| API group'));
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'));
  const table = lines.slice(first + 2, end);
  const words = (cell: string): string[] => cell.split(',').map((w) => w.trim()).filter(Boolean);
  return table.map((row) => {
    const [group = '', resources = '', verbs = ''] = row.split('|').slice(1).map((c) => c.trim());
    return { apiGroups: [group === 'core' ? '' : group], resources: words(resources), verbs: words(verbs) };
  });
}

t.test('the provider runs on a remote account bound to exactly the documented Remote RBAC', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const id = randomBytes(3).toString('hex');
  const rules = documentedRules();
  t.ok(rules.length >= 8 && rules.some((r) => r.resources.includes('pods') && r.verbs.includes('patch')), `the table read from the doc (${rules.length} rows)`);

  // The remote account: a ServiceAccount bound to one ClusterRole of the table's rules.
  const accountNs = await testNamespace(t, remote, 'rrbac-sa');
  const role = `tether-remote-${id}`;
  await remote.kubectl(['create', 'serviceaccount', 'tether', '-n', accountNs]);
  await remote.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: role },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
          subjects: [{ kind: 'ServiceAccount', name: 'tether', namespace: accountNs }],
        },
      ],
    }),
  });
  t.teardown(() => remote.kubectl(['delete', 'clusterrole,clusterrolebinding', role, '--ignore-not-found']).catch(() => undefined));
  const as = `--as=system:serviceaccount:${accountNs}:tether`;
  t.match(await remote.kubectl(['auth', 'can-i', 'patch', 'pods', as]), /yes/);
  await t.rejects(remote.kubectl(['auth', 'can-i', 'create', 'clusterroles', as]), 'nothing beyond the table');
  const token = (await remote.kubectl(['create', 'token', 'tether', '-n', accountNs, '--duration=1h'])).trim();
  const dir = mkdtempSync(join(tmpdir(), 'tether-remote-rbac-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = await remote.writeKubeconfig(join(dir, 'remote-sa.kubeconfig'), { token });

  const taint = { key: 'tether.dev/e2e', value: id, effect: 'NoSchedule' as const };
  const worker = startRemoteWorker(t, remote, { name: uniqueNamespace('rrbac-worker'), podCIDR: '10.91.0.0/16', startLatencyMs: 100, taints: [taint], deleteNodeOnStop: true });
  const lines: string[] = [];
  const node = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('rrbac-offload'),
    hostClusterId: `r${id}`,
    remoteKubeconfigPath: kubeconfig,
    forwardRemoteEvents: true,
    provider: {
      offloadingPatch: { nodeSelector: { 'kubernetes.io/hostname': worker.name }, tolerations: worker.tolerations },
      log: jsonLogger('debug', (line) => lines.push(line)),
    },
    onFailure: ({ provider }) => console.error('provider log:\n', lines.slice(-60).join('\n'), '\nservice reflection:', JSON.stringify(provider.serviceReflection())),
  });
  await bothReady(host, node, remote, worker);

  const ns = await testNamespace(t, host, 'rrbac');
  const remoteNs = node.provider.remoteNamespaceOf(ns);
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).catch(() => undefined));
  await host.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config', namespace: ns }, data: { greeting: 'hello' } },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: ns }, stringData: { password: 'hunter2' } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
      ],
    }),
  });
  const manifest = JSON.parse(podManifest('web', ns, node.name, {
    volumes: [{ name: 'cfg', configMap: { name: 'app-config' } }],
    containers: [{ name: 'app', image: 'registry.invalid/app:1', envFrom: [{ secretRef: { name: 'creds' } }], volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }] }],
  })) as KubeObject;
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ ...manifest, metadata: { ...manifest.metadata, labels: { app: 'web' } } }) });

  const remotePod = (): Promise<KubeObject | undefined> => getJson<KubeObject>(remote, ['pod', 'web', '-n', remoteNs]);
  await waitFor('the pod Running remotely and on the host', async () =>
    (await remotePod())?.status?.phase === 'Running' && (await getJson<KubeObject>(host, ['pod', 'web', '-n', ns]))?.status?.phase === 'Running',
  { timeoutMs: 120_000, intervalMs: 1_000 });
  t.ok(await getJson(remote, ['configmap', 'app-config', '-n', remoteNs]), 'the ConfigMap copied');
  t.ok(await getJson(remote, ['secret', 'creds', '-n', remoteNs]), 'the Secret copied');
  await waitFor('the Service and its slice reflected', async () =>
    (await getJson(remote, ['service', 'web', '-n', remoteNs])) !== undefined
    && ((await getJson<List<KubeObject>>(remote, ['endpointslices', '-n', remoteNs, '-l', 'kubernetes.io/service-name=web']))?.items.length ?? 0) > 0,
  { timeoutMs: 60_000, intervalMs: 1_000 });

  await host.kubectl(['label', 'pod', 'web', '-n', ns, 'tier=front']);
  await waitFor('the host label patched onto the remote pod', async () => (await remotePod())?.metadata.labels?.['tier'] === 'front', { timeoutMs: 60_000, intervalMs: 500 });

  await host.kubectl(['delete', 'pod', 'web', '-n', ns, '--wait=false']);
  await waitFor('the pod gone on both sides', async () => (await remotePod()) === undefined && (await getJson(host, ['pod', 'web', '-n', ns])) === undefined, { timeoutMs: 120_000, intervalMs: 1_000 });
  await waitFor('the copies and the reflected Service gone', async () =>
    (await getJson(remote, ['configmap', 'app-config', '-n', remoteNs])) === undefined
    && (await getJson(remote, ['secret', 'creds', '-n', remoteNs])) === undefined
    && (await getJson(remote, ['service', 'web', '-n', remoteNs])) === undefined,
  { timeoutMs: 120_000, intervalMs: 1_000 });

  t.same(lines.filter((line) => /forbidden|\b403\b/i.test(line)), [], 'no Forbidden answer from the remote');
  t.match(node.provider.serviceReflection().find((r) => r.namespace === ns) ?? {}, { lastError: undefined });
});
