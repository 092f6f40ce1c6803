/**
 * Start checks of the Kubernetes provider on the two real clusters, through the registration as
 * `tether run` builds a node (docs/kubernetes-provider.md, "Address safety" and "Changing the
 * namespace mapping or the host cluster id"):
 * - the shared clusters show their Service CIDRs (ServiceCIDR objects) and no Node podCIDRs: the
 *   node starts with a warning; configured pod CIDRs that overlap refuse it with one error naming
 *   the node, both CIDRs and the field; blankPodIPs lets it start;
 * - a running host pod whose remote pod was placed under another namespaceStrategy refuses the
 *   node (instead of turning Failed), `tether validate --clusters` warns, `mappingChange: adopt`
 *   starts it under the old mapping;
 * - a remote EndpointSlice leaves out host addresses inside the remote's pod or Service CIDRs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ClusterClient } from '../../src/adapters/kubernetes/clusterClient.js';
import type { Logger } from '../../src/adapters/logger.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { createProvider, ProviderSetupError } from '../../src/app/providerFactory.js';
import { validateCommand } from '../../src/cli/commands/validate.js';
import type { KubernetesProvider } from '../../src/providers/kubernetes/index.js';
import { toRemotePod } from '../../src/providers/kubernetes/pods/podTranslation.js';
import type { ProviderConfig } from '../../src/providers/registry.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson } from '../support/kubectlJson.js';
import { startOffloadingNode } from '../support/offloadingTopology.js';

async function fixture(t: Test) {
  const { host, remote } = await useSharedClusters(t);
  const dir = mkdtempSync(join(tmpdir(), 'tether-start-checks-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const remoteKubeconfig = await remote.writeKubeconfig(join(dir, 'remote.kubeconfig'));
  const hostKubeconfig = await host.writeKubeconfig(join(dir, 'host.kubeconfig'));
  const hostClient = new ClusterClient({ kind: 'file', path: hostKubeconfig });
  t.teardown(() => hostClient.stop());
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (msg) => void warnings.push(msg), child: () => logger };
  const nodeName = uniqueNamespace('vk-checks');
  const ctx = { nodeName, internalIP: '127.0.0.1', host: { kind: 'file' as const, path: hostKubeconfig }, hostClient, logger };
  const create = async (extra: Record<string, unknown>): Promise<KubernetesProvider> => {
    const handle = await createProvider({ type: 'kubernetes', remote: { kubeconfig: remoteKubeconfig }, hostClusterId: 'checks', ...extra } as ProviderConfig, ctx);
    t.teardown(() => handle.stop());
    return handle.provider as KubernetesProvider;
  };
  return { host, remote, dir, remoteKubeconfig, hostKubeconfig, nodeName, warnings, create };
}

void t.test('shared clusters: unknown pod CIDRs warn; overlapping configured ones refuse with one error; blankPodIPs starts', async (t) => {
  const f = await fixture(t);
  await f.create({});
  t.match(f.warnings, [new RegExp(`^node ${f.nodeName}: cannot tell whether the remote pod CIDR overlaps the host's: unknown pod CIDRs`)], 'no Node shows podCIDRs: a warning, the node starts');

  const overlapping = { networks: { hostPodCIDRs: ['10.88.0.0/16'], remotePodCIDRs: ['10.88.4.0/24'] } };
  const refusal = await f.create(overlapping).then(() => undefined, (e: unknown) => e);
  t.ok(refusal instanceof ProviderSetupError, 'refused as a setup error (tether run exits 2)');
  t.match((refusal as Error).message, new RegExp(`^node ${f.nodeName}: the remote pod CIDR 10\\.88\\.4\\.0/24 \\(configured \\(networks\\.remotePodCIDRs\\)\\) overlaps the host pod CIDR 10\\.88\\.0\\.0/16 .*provider\\.blankPodIPs: true`));
  t.notMatch((refusal as Error).message, /\n/, 'one line');

  const learnedService = { networks: { remotePodCIDRs: ['10.0.0.0/16'] } };
  const overService = await f.create(learnedService).then(() => undefined, (e: unknown) => (e as Error).message);
  t.match(overService, /overlaps the host Service CIDR 10\.0\.0\.0\/24 \(ServiceCIDR objects\)/, 'the host\'s Service CIDR is learned from its ServiceCIDR objects');

  await f.create({ ...overlapping, blankPodIPs: true });
  t.pass('with blankPodIPs the overlapping node starts');
});

void t.test('a changed namespaceStrategy with a running pod refuses the node, validate --clusters warns, mappingChange: adopt starts it under the old mapping', async (t) => {
  const f = await fixture(t);
  const namespace = await testNamespace(t, f.host, 'checks');
  const remoteNamespace = `${namespace}-checks`;
  await f.remote.kubectl(['create', 'namespace', remoteNamespace]);
  t.teardown(() => f.remote.kubectl(['delete', 'namespace', remoteNamespace, '--wait=false']).then(() => undefined, () => undefined));
  // A host pod bound to the node (no node needed: it stays Pending, which is not finished) and the remote pod a suffix mapping made for it.
  const hostPod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace }, spec: { nodeName: f.nodeName, containers: [{ name: 'c', image: 'busybox' }] } };
  const created = JSON.parse(await f.host.kubectl(['create', '-o', 'json', '-f', '-'], { input: JSON.stringify(hostPod) })) as { metadata: { uid: string } };
  const remotePod = toRemotePod({ ...hostPod, metadata: { ...hostPod.metadata, uid: created.metadata.uid } }, { hostClusterId: 'checks', nodeName: f.nodeName, remoteNamespace, namespaceStrategy: 'suffix' });
  await f.remote.kubectl(['create', '-f', '-'], { input: JSON.stringify(remotePod) });

  await f.create({});
  t.pass('the same mapping starts');

  const refusal = await f.create({ namespaceStrategy: 'same-name' }).then(() => undefined, (e: unknown) => e);
  t.ok(refusal instanceof ProviderSetupError);
  t.match((refusal as Error).message, new RegExp(`^node ${f.nodeName}: 1 running host pod \\(e\\.g\\. ${namespace}/web-1, remote pod ${remoteNamespace}/web-1\\) was offloaded under namespaceStrategy suffix and hostClusterId checks, but the config says namespaceStrategy same-name and hostClusterId checks: starting would turn them Failed`));

  const config = join(f.dir, 'tether.yaml');
  writeFileSync(config, `host: { kubeconfig: ${f.hostKubeconfig} }\nnodes:\n  - name: ${f.nodeName}\n    internalIP: 127.0.0.1\n    provider: { type: kubernetes, hostClusterId: checks, namespaceStrategy: same-name, blankPodIPs: true, remote: { kubeconfig: ${f.remoteKubeconfig} } }\n`);
  const out: string[] = [];
  const err: string[] = [];
  const code = await validateCommand([config, '--clusters'], { out: (l) => void out.push(l), err: (l) => void err.push(l) }, {});
  t.equal(code, 0, 'validate warns, it does not fail');
  t.match(err, [new RegExp(`^warning: refuse: node ${f.nodeName}: 1 running host pod .*namespaceStrategy suffix`)]);

  const adopted = await f.create({ namespaceStrategy: 'same-name', mappingChange: 'adopt' });
  t.equal(adopted.remoteNamespaceOf(namespace), remoteNamespace, 'adopted: the node maps as its running pods were placed');
  t.ok(f.warnings.some((w) => /adopting: the node runs under namespaceStrategy suffix and hostClusterId checks/.test(w)), 'the adoption is a warning');
  await f.host.kubectl(['delete', 'pod', '-n', namespace, 'web-1', '--grace-period=0', '--force', '--wait=false']).catch(() => undefined);
});

void t.test('a remote EndpointSlice never carries a host address inside the remote\'s pod CIDR (configured) or Service CIDR (learned)', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  const id = uniqueNamespace('a').slice(2);
  const hostWorker = new SimulatedProvider({ startLatencyMs: 100, podCIDR: '10.78.0.0/16' });
  t.teardown(() => void hostWorker.stop());
  const hostWorkerName = uniqueNamespace('addr-host-worker');
  const { name: virtualNode, provider } = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('addr-offload'), hostClusterId: `a${id}`,
    // The remote's pod CIDR said to be the host worker's: its pods are "strangers there". The remote's Service CIDR is learned (10.0.0.0/24).
    // No remote worker: a fixed capacity, so the offloaded pod is admitted (it stays Pending remotely).
    provider: { networks: { remotePodCIDRs: ['10.78.0.0/16'] }, quota: { pods: '10', cpu: '4', memory: '4Gi' } },
    otherNodes: [{ name: hostWorkerName, internalIP: '127.0.0.1', provider: hostWorker, statusIntervalMs: 5_000 }],
    onFailure: ({ provider: p }) => console.error('service reflection:', JSON.stringify(p.serviceReflection(), null, 1)),
  });
  const ns = await testNamespace(t, host, 'addr');
  const remoteNs = provider.remoteNamespaceOf(ns);
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).catch(() => undefined));
  const pod = (name: string, node: string, labels: Record<string, string>): object => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels },
    spec: { nodeName: node, tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }], containers: [{ name: 'app', image: 'registry.invalid/app:1' }], terminationGracePeriodSeconds: 1 },
  });
  const manifests = [
    pod('db-0', hostWorkerName, { app: 'db' }),
    pod('web-0', virtualNode, { app: 'web' }), // offloaded: makes the namespace reflected (stays Pending remotely; no worker there)
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: ns }, spec: { selector: { app: 'db' }, ports: [{ port: 5432 }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext', namespace: ns }, spec: { ports: [{ port: 80 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4', ports: [{ port: 80 }],
      metadata: { name: 'ext-1', namespace: ns, labels: { 'kubernetes.io/service-name': 'ext', 'endpointslice.kubernetes.io/managed-by': 'by-hand' } },
      endpoints: [{ addresses: ['10.0.0.50'] }, { addresses: ['203.0.113.7'] }],
    },
  ];
  for (const m of manifests) await host.kubectl(['create', '-f', '-'], { input: JSON.stringify(m) });
  const hostSlices = async (service: string): Promise<string[]> => addressesOf(await getJson<List>(host, ['endpointslices', '-n', ns, '-l', `kubernetes.io/service-name=${service}`]));
  const remoteSlices = async (service: string): Promise<List | undefined> => getJson<List>(remote, ['endpointslices', '-n', remoteNs, '-l', `kubernetes.io/service-name=${service}`]);
  await waitFor('the host db slice lists db-0 (10.78/16)', async () => (await hostSlices('db')).some((a) => a.startsWith('10.78.')), { timeoutMs: 60_000 });
  await waitFor('both slices reflected', async () => ((await remoteSlices('db'))?.items.length ?? 0) > 0 && ((await remoteSlices('ext'))?.items.length ?? 0) > 0, { timeoutMs: 60_000 });
  await waitFor('the ext copy carries the address outside the remote ranges', async () => addressesOf(await remoteSlices('ext')).includes('203.0.113.7'), { timeoutMs: 30_000 });
  t.same(addressesOf(await remoteSlices('ext')), ['203.0.113.7'], '10.0.0.50 is inside the remote\'s Service CIDR (its ServiceCIDR object): left out');
  t.same(addressesOf(await remoteSlices('db')), [], 'db-0\'s address is inside the remote\'s pod CIDR: left out');
});

interface List {
  items: Array<{ endpoints?: Array<{ addresses: string[] }> }>;
}
const addressesOf = (list: List | undefined): string[] => (list?.items ?? []).flatMap((s) => s.endpoints ?? []).flatMap((e) => e.addresses).sort();
