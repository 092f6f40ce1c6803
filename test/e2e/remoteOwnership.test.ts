/**
 * Offloading never touches what Tether does not own (issue 26), on the shared host and remote
 * clusters: a remote ConfigMap whose marks a remote admin removed survives the host copy's
 * deletion (and the host says so with a `ReflectionNotOwned` Warning), and a remote annotation
 * survives a host label change; a remote namespace a remote user made first under Tether's name
 * gets no Secret and no pod (the host pod says why); a pod adding SYS_ADMIN is refused under
 * `baseline`; a pod with its own projected ServiceAccount token volume is never sent, so no remote
 * token is mounted for it, and under the `drop` rule it is sent without the token source (the host
 * pod gets an Event saying so). The host runs a virtual node backed by the Kubernetes provider;
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

const CREATE_ERROR = 'tether.dev/provider-create-error';

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

  /** The host pod once it carries the creation error matching `pattern`, and its Warning Event `reason`. */
  const refusedOnHost = async (namespace: string, pod: string, pattern: RegExp, reason: string): Promise<{ annotation: string; event: Event }> => {
    const annotation = await waitFor(`${pod}: the creation error on the host pod`, async () => {
      const value = (await getJson<KubeObject>(host, ['pod', pod, '-n', namespace]))?.metadata?.annotations?.[CREATE_ERROR];
      return value !== undefined && pattern.test(value) ? value : undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 });
    const event = await waitFor(`${pod}: a ${reason} Warning on the host pod`, async () => {
      const events = (await getJson<List<Event>>(host, ['events', '-n', namespace, '--field-selector', `reason=${reason}`]))?.items ?? [];
      return events.find((e) => e.involvedObject?.kind === 'Pod' && e.involvedObject.name === pod);
    }, { timeoutMs: 60_000, intervalMs: 500 });
    return { annotation, event };
  };
  const remoteNames = async (kind: string, namespace: string): Promise<string[]> =>
    ((await getJson<List<KubeObject>>(remote, [kind, '-n', namespace]))?.items ?? []).map((o) => o.metadata?.name ?? '');

  await t.test('a squatted suffix namespace gets no Secret and no pod; the host pod says why', async (t) => {
    const squatted = await testNamespace(t, host, 'squat');
    const remoteSquatted = offload.remoteNamespaceOf(squatted);
    // A remote user who read the host cluster id off any Tether namespace made the name first.
    await remote.kubectl(['create', 'namespace', remoteSquatted]);
    t.teardown(() => remote.kubectl(['delete', 'namespace', remoteSquatted, '--wait=false', '--ignore-not-found']).catch(() => undefined));
    await host.kubectl(['create', 'secret', 'generic', 'creds', '-n', squatted, '--from-literal=password=hunter2']);
    await host.kubectl(['apply', '-f', '-'], {
      input: podManifest('victim', squatted, virtualNodeName, { containers: [{ name: 'app', image: 'registry.invalid/app:1', envFrom: [{ secretRef: { name: 'creds' } }] }] }),
    });
    const { annotation, event } = await refusedOnHost(squatted, 'victim', /remote namespace .* exists and was not created by Tether/, 'RemoteNamespaceNotOwned');
    t.match(annotation, new RegExp(`remote namespace ${remoteSquatted} exists and was not created by Tether for host cluster o${id} \\(it lacks the label tether\\.dev/managed-by=tether\\)`));
    t.match(annotation, /podPolicy\.adoptNamespaces/, 'and says how to use it on purpose');
    t.match(event.message ?? event.note, /was not created by Tether/);
    t.same(await remoteNames('secrets', remoteSquatted), [], 'no Secret copied into it');
    t.same(await remoteNames('pods', remoteSquatted), [], 'no pod created there');
  });

  await t.test('a pod adding SYS_ADMIN is refused under baseline; nothing is sent', async (t) => {
    await host.kubectl(['apply', '-f', '-'], {
      input: podManifest('rooted', ns, virtualNodeName, { containers: [{ name: 'app', image: 'registry.invalid/app:1', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }] }),
    });
    const { annotation } = await refusedOnHost(ns, 'rooted', /refused by the pod policy/, 'ProviderRejected');
    t.match(annotation, /\(Pod Security level baseline\): non-default capabilities \(container "app" must not include "SYS_ADMIN" in securityContext\.capabilities\.add\)/);
    t.notOk((await remoteNames('pods', remoteNs)).includes('rooted'), 'no remote pod');
  });

  await t.test('a pod with its own projected ServiceAccount token volume is never sent: no remote token is mounted for it', async (t) => {
    await host.kubectl(['apply', '-f', '-'], {
      input: podManifest('vault-client', ns, virtualNodeName, {
        volumes: [{ name: 'vault-token', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 3600 } }] } }],
        containers: [{ name: 'app', image: 'registry.invalid/app:1', volumeMounts: [{ name: 'vault-token', mountPath: '/var/run/vault' }] }],
      }),
    });
    const { annotation } = await refusedOnHost(ns, 'vault-client', /projected ServiceAccount token/, 'ProjectedServiceAccountTokenRefused');
    t.match(annotation, /spec\.volumes\[vault-token\]\.projected\.sources\[0\]\.serviceAccountToken/, 'names the source');
    t.match(annotation, /podPolicy\.projectedServiceAccountTokens: drop/, 'and the way to send it without');
    t.notOk((await remoteNames('pods', remoteNs)).includes('vault-client'), 'no remote pod, so no remote kubelet mounts a token for it');
  });

  await t.test('under the drop rule the projected token source is removed: the remote pod runs with no token mounted, and the host pod says so', async (t) => {
    // A second virtual node on the same worker, whose policy drops such sources instead of refusing the pod.
    const { name: dropNode, provider: dropping } = startOffloadingNode(t, host, remote, {
      name: uniqueNamespace('own-drop'),
      hostClusterId: `d${id}`,
      provider: { offloadingPatch: { nodeSelector: { 'kubernetes.io/hostname': worker.name }, tolerations: worker.tolerations }, podPolicy: { projectedServiceAccountTokens: 'drop' } },
      forwardRemoteEvents: true,
    });
    const dropNs = await testNamespace(t, host, 'drop');
    const remoteDropNs = dropping.remoteNamespaceOf(dropNs);
    t.teardown(() => remote.kubectl(['delete', 'namespace', remoteDropNs, '--wait=false', '--ignore-not-found']).catch(() => undefined));
    await host.kubectl(['apply', '-f', '-'], {
      input: podManifest('vault-client', dropNs, dropNode, {
        volumes: [
          { name: 'vault-token', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 3600 } }] } },
          { name: 'bundle', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } }] } },
        ],
        containers: [{ name: 'app', image: 'registry.invalid/app:1', volumeMounts: [{ name: 'vault-token', mountPath: '/var/run/vault' }, { name: 'bundle', mountPath: '/etc/bundle' }] }],
      }),
    });
    const pod = await waitFor('the pod running remotely', async () => {
      const p = await getJson<KubeObject & { spec?: { automountServiceAccountToken?: boolean; volumes?: Array<{ name: string; projected?: { sources?: object[] } }>; containers?: Array<{ volumeMounts?: Array<{ name: string }> }> } }>(remote, ['pod', 'vault-client', '-n', remoteDropNs]);
      return p?.status?.phase === 'Running' ? p : undefined;
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
    const volumes = pod.spec?.volumes ?? [];
    t.notOk(JSON.stringify(volumes).includes('serviceAccountToken'), 'no projected serviceAccountToken source in the remote pod');
    t.notOk(volumes.some((v) => v.name === 'vault-token'), 'a volume that only projected the token is gone, and its mount with it');
    t.same(volumes.find((v) => v.name === 'bundle')?.projected?.sources?.length, 1, 'a volume that projected more keeps the rest');
    t.same(pod.spec?.containers?.[0]?.volumeMounts?.map((m) => m.name), ['bundle']);
    t.equal(pod.spec?.automountServiceAccountToken, false, 'and no automounted remote token either');
    t.notOk(volumes.some((v) => v.name.startsWith('kube-api-access-')), 'the remote admission added no token volume');
    const event = await waitFor('a ProjectedServiceAccountTokenDropped Event on the host pod', async () => {
      const events = (await getJson<List<Event>>(host, ['events', '-n', dropNs, '--field-selector', 'reason=ProjectedServiceAccountTokenDropped']))?.items ?? [];
      return events.find((e) => e.involvedObject?.kind === 'Pod' && e.involvedObject.name === 'vault-client');
    }, { timeoutMs: 60_000, intervalMs: 1_000 });
    t.match(event.message ?? event.note, /dropped \(podPolicy\.projectedServiceAccountTokens: drop\), so the remote pod runs without them/);
  });
});
