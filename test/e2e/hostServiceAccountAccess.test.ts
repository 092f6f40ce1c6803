/**
 * ServiceAccount access to the host API server (pods/hostAccess.ts, docs/security.md), on the two
 * real clusters. One node gives it (`hostServiceAccountAccess`), one does not (the default). The
 * token Tether places in the remote cluster for an offloaded pod of the first authenticates to the
 * HOST API server as that pod's host ServiceAccount, verified with the CA placed beside it, and
 * lists the host namespace's pods within that account's Role (and nothing outside it); it goes
 * with the pod. For the second node's pod no Secret in its remote namespace holds a credential the
 * host accepts. The refresh at 80% is the unit test's (test/providers/kubernetes/pods/hostTokens.test.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { jsonLogger } from '../../src/adapters/logger.js';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { bothReady, startOffloadingNode, startRemoteWorker, type OffloadingNode } from '../support/offloadingTopology.js';

const WORKER_TAINT = 'tether.test/host-sa-worker';
const toleration = { offloadingPatch: { tolerations: [{ key: WORKER_TAINT, operator: 'Exists' as const, effect: 'NoSchedule' as const }] } };

type SecretJson = KubeObject & { type?: string; data?: Record<string, string> };
type PodSpecJson = KubeObject & { spec?: { volumes?: { name: string }[]; hostAliases?: { ip: string; hostnames: string[] }[]; containers?: { env?: { name: string; value?: string }[] }[] } };

const decode = (b64: string | undefined): string => Buffer.from(b64 ?? '', 'base64').toString('utf8');

/** kubectl against the host with only `token` and `ca` (no admin certificate), from a kubeconfig of its own. */
function asToken(host: ClusterAccess, dir: string, token: string, ca: string) {
  const admin = JSON.parse(readFileSync(host.kubeconfigPath, 'utf8')) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
  for (const c of admin.clusters) {
    delete c.cluster['certificate-authority'];
    c.cluster['certificate-authority-data'] = Buffer.from(ca).toString('base64');
  }
  for (const u of admin.users) u.user = { token };
  const path = join(dir, `token-${Math.random().toString(36).slice(2)}.kubeconfig`);
  writeFileSync(path, JSON.stringify(admin), { mode: 0o600 });
  return (args: readonly string[]): Promise<{ ok: boolean; out: string }> => new Promise((resolve) => {
    execFile(host.describe().kubectlPath, [`--kubeconfig=${path}`, ...args], { timeout: 30_000 }, (error, stdout, stderr) => resolve({ ok: !error, out: error ? stderr : stdout }));
  });
}

/** Whether the host API server accepts `token` (a TokenReview as admin). */
async function hostAccepts(host: ClusterAccess, token: string): Promise<boolean> {
  const review = JSON.parse(await host.kubectl(['create', '-o', 'json', '-f', '-'], { input: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }) })) as { status?: { authenticated?: boolean } };
  return review.status?.authenticated === true;
}

t.test('ServiceAccount access to the host API server, through offloading', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const dir = mkdtempSync(join(tmpdir(), 'tether-host-sa-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const server = new URL(host.kubeConfig().getCurrentCluster()?.server ?? '');
  const worker = startRemoteWorker(t, remote, {
    name: uniqueNamespace('hostsa-worker'), podCIDR: '10.93.0.0/16', deleteNodeOnStop: true,
    taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }],
  });
  // What is under test is the token, not the backoff: a create that failed once (a loaded shared
  // cluster) is retried within seconds, and a failure prints what each node's actors and provider saw.
  const diagnosed = () => {
    const lines: string[] = [];
    return {
      node: { pod: { retry: { minMs: 500, maxMs: 3_000 } } },
      onFailure: ({ name, agent }: OffloadingNode) => {
        const pods = agent.system.snapshot().filter((a) => a.kind === 'pod' || a.status !== 'running');
        console.error(`${name} actors:`, JSON.stringify(pods, null, 1), '\nprovider log:\n', lines.slice(-60).join('\n'));
      },
      log: jsonLogger('info', (line) => lines.push(line)),
    };
  };
  const onDiagnosed = diagnosed();
  const on = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('vk-hostsa-on'), hostClusterId: 'hsaon', node: onDiagnosed.node, onFailure: onDiagnosed.onFailure,
    provider: { ...toleration, log: onDiagnosed.log, hostServiceAccountAccess: { ip: server.hostname, port: Number(server.port) } },
  });
  const offDiagnosed = diagnosed();
  const off = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('vk-hostsa-off'), hostClusterId: 'hsaoff', node: offDiagnosed.node, onFailure: offDiagnosed.onFailure,
    provider: { ...toleration, log: offDiagnosed.log },
  });
  await bothReady(host, on, remote, worker);
  await bothReady(host, off, remote, worker);
  const ns = await testNamespace(t, host, 'hostsa');
  const elsewhere = await testNamespace(t, host, 'hostsa-other');
  for (const remoteNs of [`${ns}-hsaon`, `${ns}-hsaoff`]) {
    t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
  }
  await host.kubectl(['create', 'serviceaccount', 'reader', '-n', ns]);
  await host.kubectl(['create', 'role', 'pod-reader', '--verb=list', '--resource=pods', '-n', ns]);
  await host.kubectl(['create', 'rolebinding', 'pod-reader', '--role=pod-reader', `--serviceaccount=${ns}:reader`, '-n', ns]);

  await t.test('with access on, the remote token is the pod\'s host ServiceAccount on the host API server, and goes with the pod', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('operator', ns, on.name, { serviceAccountName: 'reader' }) });
    const remoteNs = `${ns}-hsaon`;
    const secret = await waitFor('the token Secret in the remote namespace', async () => {
      const s = await getJson<SecretJson>(remote, ['secret', '-n', remoteNs, 'operator-tether-host-token']);
      return s?.data?.token ? s : undefined;
    }, { timeoutMs: 90_000 });
    t.equal(secret.type, 'tether.dev/host-service-account-token');
    t.match(secret.metadata?.labels, { 'tether.dev/managed-by': 'tether', 'tether.dev/host-token': 'true' });
    t.equal(decode(secret.data?.namespace), ns, 'the host namespace');
    const twin = await waitFor('the remote pod', () => getJson<PodSpecJson>(remote, ['pod', '-n', remoteNs, 'operator']), { timeoutMs: 60_000 });
    t.ok(twin.spec?.volumes?.some((v) => v.name === 'tether-host-api-access'), 'mounted in the remote pod');
    t.same(twin.spec?.hostAliases, [{ ip: server.hostname, hostnames: ['kubernetes.default.svc'] }]);
    t.match(twin.spec?.containers?.[0]?.env, [{ name: 'KUBERNETES_SERVICE_HOST', value: 'kubernetes.default.svc' }, { name: 'KUBERNETES_SERVICE_PORT', value: server.port }]);

    const kubectl = asToken(host, dir, decode(secret.data?.token), decode(secret.data?.['ca.crt']));
    const whoami = await kubectl(['auth', 'whoami', '-o', 'json']);
    t.ok(whoami.ok, whoami.ok ? 'kubectl auth whoami with the remote token' : whoami.out);
    const user = (JSON.parse(whoami.ok ? whoami.out : '{}') as { status?: { userInfo?: { username?: string; extra?: Record<string, string[]> } } }).status?.userInfo;
    t.equal(user?.username, `system:serviceaccount:${ns}:reader`, 'authenticated by the host as the pod\'s host ServiceAccount (the CA beside it verifies the host)');
    t.same(user?.extra?.['authentication.kubernetes.io/pod-name'], ['operator'], 'bound to the host pod');
    const listed = await kubectl(['get', 'pods', '-n', ns, '-o', 'name']);
    t.ok(listed.ok, listed.ok ? 'lists the host namespace\'s pods' : listed.out);
    t.match(listed.out, /pod\/operator/);
    const outside = await kubectl(['get', 'pods', '-n', elsewhere, '-o', 'name']);
    t.notOk(outside.ok, 'and nothing its Role does not grant');
    t.match(outside.out, /forbidden/i);

    await host.kubectl(['delete', 'pod', 'operator', '-n', ns, '--wait=false']);
    await waitFor('the token Secret gone with the pod', async () => (await getJson(remote, ['secret', '-n', remoteNs, 'operator-tether-host-token'])) === undefined, { timeoutMs: 120_000 });
    t.pass('gone');
    await waitFor('the host refusing the token once its pod is gone', async () => !(await hostAccepts(host, decode(secret.data?.token))), { timeoutMs: 60_000 });
    t.pass('bound to the host pod: no longer accepted');
  });

  await t.test('with access off (the default), no Secret in the remote namespace holds a credential the host accepts', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('plain', ns, off.name, { serviceAccountName: 'reader' }) });
    const remoteNs = `${ns}-hsaoff`;
    const twin = await waitFor('the remote pod', () => getJson<PodSpecJson>(remote, ['pod', '-n', remoteNs, 'plain']), { timeoutMs: 90_000 });
    t.notOk(twin.spec?.volumes?.some((v) => v.name === 'tether-host-api-access'), 'no token volume');
    t.notOk(twin.spec?.hostAliases, 'no host alias');
    t.notOk(JSON.stringify(twin.spec?.containers ?? []).includes('KUBERNETES_SERVICE_HOST'), 'no host API server address');
    const secrets = JSON.parse(await remote.kubectl(['get', 'secrets', '-n', remoteNs, '-o', 'json'])) as { items: SecretJson[] };
    t.notOk(secrets.items.some((s) => s.metadata?.labels?.['tether.dev/host-token'] !== undefined), 'no host token Secret');
    for (const s of secrets.items) {
      for (const [key, value] of Object.entries(s.data ?? {})) t.notOk(await hostAccepts(host, decode(value)), `${s.metadata?.name}/${key} is no host credential`);
    }
  });
});
