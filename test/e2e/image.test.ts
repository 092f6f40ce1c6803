/**
 * The shipped artifact is the tested one (issue 14): the image is built from the Dockerfile with
 * buildah (tools/image/build.sh; the base is a local stand-in tagged under the Dockerfile's FROM
 * name, tools/image/base.sh) and run as the chart runs it (tools/image/run.sh): the chart's config
 * and RBAC, a ServiceAccount token and the cluster CA at their in-cluster paths, uid 10001, a
 * read-only root, only the chart's environment. Against the real host cluster, the node it
 * registers turns Ready and `kubectl logs` reaches the image's kubelet API through the API server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { createNetworkNamespace, networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { freePorts } from '../../src/harness/ports.js';
import { startProcess } from '../../src/harness/processes.js';
import { REPO_ROOT, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { GiveUp, waitFor } from '../harness/waitFor.js';
import { renderChart } from '../support/chart.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

const run = promisify(execFile);

/** Why this machine cannot build and run the image, or undefined when it can. */
async function imageToolsMissing(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'building and running an image without an engine needs root (mounts, chroot)';
  for (const tool of ['buildah', 'debootstrap', 'unshare', 'chroot']) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      return `${tool} is not installed (.ci/run installs buildah and debootstrap)`;
    }
  }
  const netns = await networkNamespaceSupport();
  return netns.available ? undefined : netns.reason;
}

interface Rendered {
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
  spec?: { template?: { spec?: { containers?: Array<{ args?: string[]; env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }> }> } } };
}

const skip = await imageToolsMissing();

t.test('the image built from the Dockerfile runs as the chart runs it: node Ready, kubectl logs through the API server', { skip: skip ?? false }, async (t) => {
  const { host } = await useSharedClusters(t);
  const { stdout } = await run('bash', [join(REPO_ROOT, 'tools', 'image', 'build.sh')], { cwd: REPO_ROOT, timeout: 900_000, maxBuffer: 16 << 20 });
  const image = stdout.trim();
  t.match(image, /^localhost\/tether:\d+\.\d+\.\d+$/, 'built and tagged');

  const release = uniqueNamespace('img');
  const releaseNamespace = await testNamespace(t, host, 'img-system');
  const nodeName = `${release}-node`;
  const [metricsPort, introspectionPort, kubeletPort] = await freePorts(3);
  const values = {
    config: {
      logLevel: 'info',
      host: { inCluster: true },
      ports: { introspection: { port: introspectionPort, address: '127.0.0.1' }, metrics: { port: metricsPort, address: '0.0.0.0' } },
      kubeletApi: { clientCAFile: '/etc/tether-ca/ca.crt' },
      shutdown: { timeoutMs: 10_000 },
      nodes: [{ name: nodeName, kubeletPort, provider: { type: 'simulated' } }],
    },
  };
  const objects = parseAllDocuments(await renderChart(releaseNamespace, ['--set-json', `config=${JSON.stringify(values.config)}`], release))
    .map((d) => d.toJS() as Rendered | null)
    .filter((o): o is Rendered => o !== null);

  // The chart's identity and rights, exactly as rendered; the Deployment itself is replaced by
  // this process (no kubelet runs pods in the harness).
  const rbac = objects.filter((o) => ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(o.kind));
  await host.kubectl(['apply', '-f', '-'], { input: rbac.map((o) => JSON.stringify(o)).join('\n') });
  t.teardown(async () => {
    const clusterWide = rbac.filter((o) => o.kind.startsWith('Cluster')).map((o) => `${o.kind.toLowerCase()}/${o.metadata.name}`);
    await host.kubectl(['delete', ...clusterWide, `node/${nodeName}`, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  });
  const serviceAccount = rbac.find((o) => o.kind === 'ServiceAccount')!.metadata.name;

  // The files the kubelet would mount: the config, the projected ServiceAccount token with the
  // cluster CA and the namespace, and the kube-root-ca.crt ConfigMap.
  const files = mkdtempSync(join(tmpdir(), 'tether-image-'));
  await run('mkdir', ['-p', join(files, 'config'), join(files, 'sa'), join(files, 'ca')]);
  writeFileSync(join(files, 'config', 'tether.yaml'), objects.find((o) => o.kind === 'ConfigMap')!.data!['tether.yaml']!);
  const token = (await host.kubectl(['create', 'token', serviceAccount, '-n', releaseNamespace, '--duration=1h'])).trim();
  writeFileSync(join(files, 'sa', 'token'), token);
  writeFileSync(join(files, 'sa', 'namespace'), releaseNamespace);
  writeFileSync(join(files, 'sa', 'ca.crt'), readFileSync(host.describe().caCertPath));
  const rootCA = await waitFor('the kube-root-ca.crt ConfigMap', async () => (await getJson<{ data?: Record<string, string> }>(host, ['configmap', 'kube-root-ca.crt', '-n', releaseNamespace]))?.data?.['ca.crt'], { timeoutMs: 30_000 });
  writeFileSync(join(files, 'ca', 'ca.crt'), rootCA);
  await run('chmod', ['-R', 'a+rX', files]);

  // The pod's network: a non-loopback address of this machine (the API server does not proxy to
  // loopback), the host end of a harness network namespace, stands in for the pod IP.
  const netns = await createNetworkNamespace('image');
  t.teardown(() => netns.remove());
  const podName = `${release}-0`;
  const container = objects.find((o) => o.kind === 'Deployment')!.spec!.template!.spec!.containers![0]!;
  const fieldValues: Record<string, string> = { 'metadata.name': podName, 'metadata.namespace': releaseNamespace, 'status.podIP': netns.hostAddress };
  const env = (container.env ?? []).map((e) => `${e.name}=${e.value ?? fieldValues[e.valueFrom?.fieldRef?.fieldPath ?? ''] ?? ''}`);
  const apiServer = new URL(host.describe().server);
  env.push(`KUBERNETES_SERVICE_HOST=${apiServer.hostname}`, `KUBERNETES_SERVICE_PORT=${apiServer.port}`);

  const logPath = join(files, 'tether.log');
  const tether = startProcess({
    name: 'tether image',
    command: 'bash',
    args: [
      join(REPO_ROOT, 'tools', 'image', 'run.sh'), image, '--user', '10001:10001',
      '--mount', `${join(files, 'config')}:/etc/tether`,
      '--mount', `${join(files, 'sa')}:/var/run/secrets/kubernetes.io/serviceaccount`,
      '--mount', `${join(files, 'ca')}:/etc/tether-ca`,
      ...env.flatMap((e) => ['--env', e]),
      '--', ...(container.args ?? []),
    ],
    logPath,
  });
  t.teardown(async () => {
    await tether.stop(15_000);
    rmSync(files, { recursive: true, force: true });
  });
  const alive = (): void => {
    if (!tether.running) throw new GiveUp(`the image's process exited (${JSON.stringify(tether.status)}):\n${tether.logTail(60)}`);
  };

  const node = await waitFor('the virtual node is Ready', async () => {
    alive();
    const n = await getJson<KubeObject & { status?: { addresses?: Array<{ type: string; address: string }>; nodeInfo?: { kubeletVersion?: string } } }>(host, ['node', nodeName]);
    return condition(n, 'Ready')?.status === 'True' ? n : undefined;
  }, { timeoutMs: 120_000 });
  t.match(node.status?.addresses, [{ type: 'InternalIP', address: netns.hostAddress }], 'InternalIP from the pod IP (TETHER_NODE_INTERNAL_IP)');

  await t.test('the process runs as uid 10001 on Node.js 24 with a read-only root', async (t) => {
    // run.sh starts its own session (the harness detaches it), so the session lists its processes.
    const { stdout: ps } = await run('ps', ['-o', 'pid=,uid=,args=', '--sid', String(tether.pid)]);
    const line = ps.split('\n').map((l) => l.trim().split(/\s+/)).find((f) => f.slice(2).join(' ') === 'node --max-semi-space-size=16 /app/dist/tether.mjs run --config /etc/tether/tether.yaml');
    t.ok(line, line ? 'the chart\'s command line runs, the young generation bounded' : `the chart's command line runs, the young generation bounded, among:\n${ps}`);
    t.equal(line?.[1], '10001', 'as the chart\'s runAsUser');
    const rootMount = readFileSync(`/proc/${line?.[0]}/mountinfo`, 'utf8').split('\n').map((l) => l.split(' ')).find((f) => f[4] === '/');
    t.match(rootMount?.[5], /^ro\b/, 'its root filesystem is read-only');
    const { stdout: version } = await run('bash', [join(REPO_ROOT, 'tools', 'image', 'run.sh'), image, '--', '--version']);
    t.match(version, /node v24\./, 'the base image\'s Node.js 24');
    const readyz = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
    t.equal(readyz.status, 200, '/readyz on the metrics port (the chart\'s readiness probe)');
  });

  await t.test('kubectl logs reaches the image\'s kubelet API through the host API server', async (t) => {
    const namespace = await testNamespace(t, host, 'img-logs');
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('talker', namespace, nodeName) });
    await waitFor('talker Running', async () => (await getJson<KubeObject>(host, ['pod', 'talker', '-n', namespace]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
    const out = await waitFor('a few log lines', async () => {
      alive();
      const text = await host.kubectl(['logs', 'talker', '-n', namespace]).catch(() => '');
      return text.split('\n').filter(Boolean).length >= 2 ? text : undefined;
    }, { timeoutMs: 60_000 });
    t.match(out.split('\n')[0], /^talker\/app line 1$/, 'the simulated provider\'s lines, served by the image');
  });

  const log = readFileSync(logPath, 'utf8');
  t.notMatch(log, /ENOENT|kubelet API of .* did not start/, 'no missing binary, the kubelet API started');
});
