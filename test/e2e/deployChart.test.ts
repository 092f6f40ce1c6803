/**
 * The in-cluster deployment (issue 8): the Helm chart lints, renders the committed plain
 * manifests, carries a config `tether validate` accepts, and the real host API server accepts
 * every object it renders (server-side dry run) and refuses a broken one. The Dockerfile lints.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { parseConfig } from '../../src/config/index.js';
import { REPO_ROOT, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { CHART_DIR, renderChart, runHelm } from '../support/chart.js';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
  spec?: { template?: { spec?: { containers?: Array<{ securityContext?: Record<string, unknown>; livenessProbe?: unknown; readinessProbe?: unknown }> } } };
}

const documents = (yaml: string): Manifest[] => parseAllDocuments(yaml).map((d) => d.toJS() as Manifest).filter((m) => m !== null);

t.test('helm lint passes', async (t) => {
  t.match(await runHelm(['lint', CHART_DIR]), /1 chart\(s\) linted, 0 chart\(s\) failed/);
});

t.test('deploy/manifests/tether.yaml is the chart rendered with default values (tools/helm/render.sh)', async (t) => {
  const committed = readFileSync(join(REPO_ROOT, 'deploy', 'manifests', 'tether.yaml'), 'utf8');
  const rendered = await renderChart('tether-system');
  t.ok(committed.endsWith(rendered), 'up to date: run bash tools/helm/render.sh after changing the chart');
});

t.test('the rendered objects: the config validates, the container is locked down and probed', async (t) => {
  const objects = documents(await renderChart('tether-system'));
  t.same(objects.map((o) => o.kind).sort(), ['ClusterRole', 'ClusterRoleBinding', 'ConfigMap', 'Deployment', 'Role', 'Role', 'RoleBinding', 'RoleBinding', 'Service', 'ServiceAccount']);
  const config = objects.find((o) => o.kind === 'ConfigMap')?.data?.['tether.yaml'] ?? '';
  const parsed = parseConfig(config, 'ConfigMap tether/tether.yaml');
  t.ok(parsed.ok, `tether validate accepts the chart's config${parsed.ok ? '' : `: ${parsed.problems.join('; ')}`}`);
  const container = objects.find((o) => o.kind === 'Deployment')?.spec?.template?.spec?.containers?.[0];
  t.same(container?.securityContext, { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  t.match(container?.livenessProbe, { httpGet: { path: '/healthz', port: 'introspection' } });
  t.match(container?.readinessProbe, { httpGet: { path: '/readyz', port: 'introspection' } });
});

t.test('the host API server accepts the rendered chart (server-side dry run) and refuses a broken one', async (t) => {
  const { host } = await useSharedClusters(t);
  const ns = await testNamespace(t, host, 'chart');
  const out = await host.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: await renderChart(ns) });
  for (const kind of ['serviceaccount', 'configmap', 'service', 'deployment.apps', 'clusterrole.rbac.authorization.k8s.io', 'clusterrolebinding.rbac.authorization.k8s.io', 'role.rbac.authorization.k8s.io', 'rolebinding.rbac.authorization.k8s.io']) {
    t.match(out, new RegExp(`^${kind.replace(/\./g, '\\.')}/\\S+ created \\(server dry run\\)`, 'm'), kind);
  }
  const broken = await renderChart(ns, ['--set', 'replicaCount=-1']);
  const refused = await host.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: broken }).then(() => undefined, (e: Error) => e.message);
  t.match(refused, /spec\.replicas: Invalid value: -1/, 'a Deployment the API server would refuse fails here');
});

t.test('the Dockerfile lints (dockerfile-utils; no hadolint package is reachable from this machine)', async (t) => {
  const { stdout } = await promisify(execFile)('npx', ['--yes', 'dockerfile-utils@0.16.3', 'lint', join(REPO_ROOT, 'Dockerfile')], { cwd: REPO_ROOT, timeout: 180_000 });
  t.equal(stdout.trim(), '', 'no problem reported');
});
