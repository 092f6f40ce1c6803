/**
 * Services and EndpointSlices follow offloaded pods (issue 17), on the shared host and remote
 * clusters. The host runs two Tether nodes: a simulated worker (the host-side `db` backends, pod
 * IPs 10.77/16) and a virtual node backed by the Kubernetes provider. The remote runs a simulated
 * worker (pod IPs 10.89/16), tainted so that only this test's offloaded pods land there. Host
 * EndpointSlices are made by the host's real EndpointSlice controller.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { hostNamespaceAnnotation, ownershipLabels } from '../../src/providers/kubernetes/marks.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, type KubeObject } from '../support/kubectlJson.js';
import { startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface List<T> {
  items: T[];
}
interface Slice {
  metadata: KubeObject['metadata'];
  addressType: string;
  endpoints?: Array<{ addresses: string[]; conditions?: { ready?: boolean }; targetRef?: { name?: string; namespace?: string } }>;
}
interface Svc {
  metadata: KubeObject['metadata'];
  spec: { selector?: Record<string, string>; clusterIP?: string; ports?: Array<{ port: number }>; type?: string };
}

t.test('Services and EndpointSlices follow offloaded pods into the remote namespace', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const id = randomBytes(3).toString('hex');
  const hostClusterId = `s${id}`;
  const hostWorkerName = uniqueNamespace('svc-host-worker');
  const taint = { key: 'tether.dev/e2e', value: id, effect: 'NoSchedule' as const };

  const remoteWorker = startRemoteWorker(t, remote, { name: uniqueNamespace('svc-remote-worker'), podCIDR: '10.89.0.0/16', startLatencyMs: 100, taints: [taint], deleteNodeOnStop: true });
  const remoteWorkerName = remoteWorker.name;
  const hostWorker = new SimulatedProvider({ startLatencyMs: 100, podCIDR: '10.77.0.0/16' });
  t.teardown(() => void hostWorker.stop());
  const { name: virtualNodeName, provider: offload, agent: hostTether } = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('svc-offload'),
    hostClusterId,
    provider: { offloadingPatch: { nodeSelector: { 'kubernetes.io/hostname': remoteWorkerName }, tolerations: remoteWorker.tolerations } },
    node: { pod: { retry: { minMs: 500, maxMs: 3_000, factor: 2, jitter: 0.2 } } },
    otherNodes: [{ name: hostWorkerName, internalIP: '127.0.0.1', provider: hostWorker, statusIntervalMs: 5_000 }],
    onFailure: ({ provider }) => console.error('service reflection:', JSON.stringify(provider.serviceReflection(), null, 1)),
  });

  const ns = await testNamespace(t, host, 'svc');
  const remoteNs = offload.remoteNamespaceOf(ns);
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).catch(() => undefined));
  const remoteServices = async (): Promise<Svc[]> => (await getJson<List<Svc>>(remote, ['services', '-n', remoteNs]))?.items ?? [];
  const remoteSlices = async (service: string): Promise<Slice[]> =>
    (await getJson<List<Slice>>(remote, ['endpointslices', '-n', remoteNs, '-l', `kubernetes.io/service-name=${service}`]))?.items ?? [];
  const addresses = (slices: readonly Slice[]): string[] => slices.flatMap((s) => s.endpoints ?? []).flatMap((e) => e.addresses).sort();
  const hostPodIPs = async (app: string): Promise<string[]> =>
    ((await getJson<List<KubeObject>>(host, ['pods', '-n', ns, '-l', `app=${app}`]))?.items ?? [])
      .filter((p) => p.status?.phase === 'Running' && p.status.podIP).map((p) => p.status?.podIP ?? '').sort();

  // A Service of the same name as a host one, made by someone else in the remote namespace
  // Tether made (its marks: an unmarked namespace would be refused, RemoteNamespaceNotOwned).
  const marked = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: remoteNs, labels: ownershipLabels(hostClusterId), annotations: { [hostNamespaceAnnotation]: ns } } };
  await remote.kubectl(['apply', '-f', '-'], { input: JSON.stringify(marked) });
  const foreign = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'taken', namespace: remoteNs, labels: { owner: 'someone-else' } }, spec: { ports: [{ port: 9999 }] } };
  await remote.kubectl(['apply', '-f', '-'], { input: JSON.stringify(foreign) });

  const deployment = (name: string, replicas: number, node: string, extra: Record<string, unknown> = {}): object => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': node },
          tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'app', image: 'registry.invalid/app:1' }],
          terminationGracePeriodSeconds: 1,
          ...extra,
        },
      },
    },
  });
  const service = (name: string, spec: object): object => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns }, spec });
  await host.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        deployment('db', 2, hostWorkerName),
        deployment('web', 1, virtualNodeName),
        service('db', { selector: { app: 'db' }, ports: [{ name: 'pg', port: 5432 }], sessionAffinity: 'ClientIP' }),
        service('web', { selector: { app: 'web' }, clusterIP: 'None', ports: [{ port: 80 }] }),
        service('external-db', { ports: [{ name: 'pg', port: 5432 }] }),
        {
          apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
          metadata: { name: 'external-db-1', namespace: ns, labels: { 'kubernetes.io/service-name': 'external-db', 'endpointslice.kubernetes.io/managed-by': 'by-hand' } },
          addressType: 'IPv4', ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
          endpoints: [{ addresses: ['203.0.113.10'], conditions: { ready: true } }],
        },
        service('taken', { ports: [{ port: 1234 }] }),
      ],
    }),
  });

  await t.test('the Services appear in the remote namespace, without selectors, with Tether\'s marks', async (t) => {
    const found = await waitFor('db, web and external-db reflected', async () => {
      const list = await remoteServices();
      return ['db', 'web', 'external-db'].every((n) => list.some((s) => s.metadata.name === n)) ? list : undefined;
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    for (const name of ['db', 'web', 'external-db']) {
      const s = found.find((x) => x.metadata.name === name);
      t.equal(s?.spec.selector, undefined, `${name}: no selector`);
      t.equal(s?.metadata.labels?.['tether.dev/managed-by'], 'tether', `${name}: managed by Tether`);
      t.equal(s?.metadata.labels?.['tether.dev/host-cluster'], hostClusterId);
      t.equal(s?.metadata.annotations?.['tether.dev/host-namespace'], ns);
    }
    t.equal(found.find((x) => x.metadata.name === 'web')?.spec.clusterIP, 'None', 'headless stays headless');
    t.match(found.find((x) => x.metadata.name === 'db')?.spec, { sessionAffinity: 'ClientIP', ports: [{ port: 5432 }] });
  });

  await t.test('the EndpointSlices carry the host addresses; an offloaded backend its remote pod\'s', async (t) => {
    const dbIPs = await waitFor('2 host db pods Running', async () => {
      const ips = await hostPodIPs('db');
      return ips.length === 2 ? ips : undefined;
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    t.ok(dbIPs.every((ip) => ip.startsWith('10.77.')), 'host-side backends have host-side IPs');
    await waitFor('the remote db slice lists the host backends', async () => JSON.stringify(addresses(await remoteSlices('db'))) === JSON.stringify(dbIPs), { timeoutMs: 60_000 });
    const db = await remoteSlices('db');
    t.ok(db.every((s) => s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-reflector.tether.dev'), 'the remote controller leaves them alone');
    await waitFor('the hand-written slice reflected', async () => JSON.stringify(addresses(await remoteSlices('external-db'))) === '["203.0.113.10"]', { timeoutMs: 60_000 });
    const remotePod = await waitFor('the offloaded web pod running remotely with an IP', async () => {
      const pods = (await getJson<List<KubeObject>>(remote, ['pods', '-n', remoteNs, '-l', 'app=web']))?.items ?? [];
      return pods.find((p) => p.status?.phase === 'Running' && p.status.podIP?.startsWith('10.89.'));
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    const web = await waitFor('the remote web slice names the remote pod', async () => {
      const endpoint = (await remoteSlices('web')).flatMap((s) => s.endpoints ?? [])[0];
      return endpoint?.addresses[0] === remotePod.status?.podIP ? endpoint : undefined;
    }, { timeoutMs: 60_000 });
    t.match(web.targetRef, { name: remotePod.metadata.name, namespace: remoteNs }, 'pointing at the remote pod');
  });

  await t.test('scaling the host backends changes the remote slice', async () => {
    await host.kubectl(['scale', 'deployment', 'db', '-n', ns, '--replicas=3']);
    const ips = await waitFor('3 host db pods Running', async () => {
      const list = await hostPodIPs('db');
      return list.length === 3 ? list : undefined;
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    await waitFor('the remote db slice lists 3 backends', async () => JSON.stringify(addresses(await remoteSlices('db'))) === JSON.stringify(ips), { timeoutMs: 60_000 });
  });

  await t.test('a remote Service Tether did not create is left alone; the host Service gets an Event', async (t) => {
    const event = await waitFor('a ReflectionNameTaken Event on the host Service', async () => {
      const list = await getJson<List<{ reason?: string; type?: string; note?: string; regarding?: { kind?: string; name?: string } }>>(host, ['events.events.k8s.io', '-n', ns]);
      return list?.items.find((e) => e.reason === 'ReflectionNameTaken' && e.regarding?.name === 'taken');
    }, { timeoutMs: 60_000 });
    t.equal(event.type, 'Warning');
    t.equal(event.regarding?.kind, 'Service');
    t.match(event.note, new RegExp(`remote service ${remoteNs}/taken exists`));
    const kept = (await remoteServices()).find((s) => s.metadata.name === 'taken');
    t.same(kept?.metadata.labels, { owner: 'someone-else' }, 'untouched');
    t.match(kept?.spec.ports, [{ port: 9999 }]);
    t.match(offload.serviceReflection().find((r) => r.namespace === ns), { taken: ['Service/taken'], lastError: undefined }, 'visible in the provider\'s reflection state');
    const inTree = hostTether.system.registry.snapshot().find((a) => a.kind === 'service-reflector' && a.summary?.['namespace'] === ns);
    t.match(inTree, { path: new RegExp(`/node-${virtualNodeName}/services-${ns}$`), status: 'running', summary: { remoteNamespace: remoteNs, namesTaken: 'Service/taken' } },
      'the namespace\'s reflector in the live actor tree, under its virtual node');
    t.ok(Number(inTree?.summary?.['services']) >= 2, 'with its counts');
  });

  await t.test('deleting the host Service removes the remote one and its slices', async () => {
    await host.kubectl(['delete', 'service', 'external-db', '-n', ns]);
    await waitFor('the remote external-db gone', async () => !(await remoteServices()).some((s) => s.metadata.name === 'external-db'), { timeoutMs: 60_000 });
    await waitFor('its slice gone', async () => (await remoteSlices('external-db')).length === 0, { timeoutMs: 60_000 });
  });

  await t.test('no offloaded pods left: what was reflected for the namespace goes; the foreign Service stays', async (t) => {
    await host.kubectl(['scale', 'deployment', 'web', '-n', ns, '--replicas=0']);
    await waitFor('no reflected Services or EndpointSlices left', async () => {
      const services = (await remoteServices()).filter((s) => s.metadata.labels?.['tether.dev/managed-by'] === 'tether');
      const slices = (await getJson<List<Slice>>(remote, ['endpointslices', '-n', remoteNs, '-l', 'tether.dev/managed-by=tether']))?.items ?? [];
      return services.length === 0 && slices.length === 0;
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    t.ok((await remoteServices()).some((s) => s.metadata.name === 'taken'), 'the foreign Service stays');
  });
});

t.test('two virtual nodes of one host cluster share the remote namespace: the Service is handed over with its uid and ClusterIP when its pods move', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const id = randomBytes(3).toString('hex');
  const hostClusterId = `h${id}`;
  const taint = { key: 'tether.dev/e2e', value: id, effect: 'NoSchedule' as const };
  const worker = startRemoteWorker(t, remote, { name: uniqueNamespace('handover-worker'), podCIDR: '10.90.0.0/16', startLatencyMs: 100, taints: [taint], deleteNodeOnStop: true });
  const offloading = (prefix: string): ReturnType<typeof startOffloadingNode> => startOffloadingNode(t, host, remote, {
    name: uniqueNamespace(prefix), hostClusterId,
    provider: { offloadingPatch: { nodeSelector: { 'kubernetes.io/hostname': worker.name }, tolerations: worker.tolerations } },
    onFailure: ({ name, provider }) => console.error(`service reflection of ${name}:`, JSON.stringify(provider.serviceReflection(), null, 1)),
  });
  const a = offloading('handover-a');
  const b = offloading('handover-b');
  const ns = await testNamespace(t, host, 'handover');
  const remoteNs = a.provider.remoteNamespaceOf(ns);
  t.equal(b.provider.remoteNamespaceOf(ns), remoteNs, 'both nodes map the namespace to the same remote one');
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).catch(() => undefined));
  const deployment = (node: string): object => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns },
    spec: {
      replicas: 1, selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': node },
          tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'app', image: 'registry.invalid/app:1' }],
          terminationGracePeriodSeconds: 1,
        },
      },
    },
  });
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: ns }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [deployment(a.name), service] }) });
  const remoteService = async (): Promise<Svc | undefined> => getJson<Svc>(remote, ['service', 'web', '-n', remoteNs]);
  const remotePodOf = async (node: string): Promise<KubeObject | undefined> =>
    ((await getJson<List<KubeObject>>(remote, ['pods', '-n', remoteNs, '-l', `tether.dev/virtual-node=${node}`]))?.items ?? [])
      .find((p) => p.status?.phase === 'Running' && p.status.podIP && p.metadata.deletionTimestamp === undefined);

  const first = await waitFor('node A reflects web with a ClusterIP', async () => {
    const s = await remoteService();
    return s?.metadata.labels?.['tether.dev/virtual-node'] === a.name && s.spec.clusterIP ? s : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1_000 });
  const podA = await waitFor('the pod running remotely on node A\'s behalf', () => remotePodOf(a.name), { timeoutMs: 120_000, intervalMs: 1_000 });
  await waitFor('the remote web slice names node A\'s remote pod', async () => {
    const slices = (await getJson<List<Slice>>(remote, ['endpointslices', '-n', remoteNs, '-l', 'kubernetes.io/service-name=web']))?.items ?? [];
    return slices.flatMap((s) => s.endpoints ?? []).some((e) => e.addresses[0] === podA.status?.podIP);
  }, { timeoutMs: 60_000 });

  // The pods backing the Service move from node A to node B (a rolling update: B's pod first).
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(deployment(b.name)) });
  const podB = await waitFor('the pod running remotely on node B\'s behalf', () => remotePodOf(b.name), { timeoutMs: 120_000, intervalMs: 1_000 });
  const handed = await waitFor('web held by node B', async () => {
    const s = await remoteService();
    return s?.metadata.labels?.['tether.dev/virtual-node'] === b.name ? s : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1_000 });
  t.equal(handed.metadata.uid, first.metadata.uid, 'the same Service object: handed over, not deleted and re-created');
  t.equal(handed.spec.clusterIP, first.spec.clusterIP, 'its ClusterIP kept');
  await waitFor('the remote web slice names node B\'s remote pod', async () => {
    const slices = (await getJson<List<Slice>>(remote, ['endpointslices', '-n', remoteNs, '-l', 'kubernetes.io/service-name=web']))?.items ?? [];
    const endpoints = slices.flatMap((s) => s.endpoints ?? []);
    return endpoints.length === 1 && endpoints[0]?.addresses[0] === podB.status?.podIP;
  }, { timeoutMs: 60_000 });
  const events = (await getJson<List<{ reason?: string }>>(host, ['events.events.k8s.io', '-n', ns]))?.items ?? [];
  t.same(events.filter((e) => e.reason === 'ReflectionNameTaken'), [], 'a sibling\'s copy is shared, not a taken name');
});
