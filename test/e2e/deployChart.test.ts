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
  spec?: { template?: { spec?: { containers?: Array<{ securityContext?: Record<string, unknown>; livenessProbe?: unknown; readinessProbe?: unknown; env?: unknown; volumeMounts?: unknown }>; volumes?: unknown } } };
  rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }>;
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
  // The chart sets TETHER_NODE_INTERNAL_IP from the pod's IP; the nodes in the file name none.
  const parsed = parseConfig(config, 'ConfigMap tether/tether.yaml', { env: { TETHER_NODE_INTERNAL_IP: '10.244.0.9' } });
  t.ok(parsed.ok, `tether validate accepts the chart's config${parsed.ok ? '' : `: ${parsed.problems.join('; ')}`}`);
  const container = objects.find((o) => o.kind === 'Deployment')?.spec?.template?.spec?.containers?.[0];
  t.same(container?.securityContext, { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  t.match(container?.livenessProbe, { httpGet: { path: '/healthz', port: 'metrics' } });
  t.match(container?.readinessProbe, { httpGet: { path: '/readyz', port: 'metrics' } });
  const internalIP = (container?.env as Array<{ name: string }> | undefined)?.find((e) => e.name === 'TETHER_NODE_INTERNAL_IP');
  t.match(internalIP, { valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }, 'the nodes\' InternalIP is the pod\'s IP');
  if (parsed.ok) {
    t.match(parsed.config.ports, { introspection: { address: '127.0.0.1' }, metrics: { address: '0.0.0.0' } }, 'the actor tree on loopback, probes and metrics on the pod network');
    t.equal(parsed.config.kubeletApi?.clientCAFile, '/etc/tether-ca/ca.crt');
  }
  t.match(container?.volumeMounts, [{}, {}, { name: 'kubelet-client-ca', mountPath: '/etc/tether-ca', readOnly: true }]);
  t.match(objects.find((o) => o.kind === 'Deployment')?.spec?.template?.spec?.volumes, [{}, {}, { name: 'kubelet-client-ca', configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }]);
});

/** One RBAC rule, flattened for comparison: where it is, what it allows, on which names. */
function ruleKey(where: string, group: string, resources: readonly string[], verbs: readonly string[], names: readonly string[] | undefined): string {
  return [where, group === '' ? 'core' : group, [...resources].sort().join(','), [...verbs].sort().join(','), names ? [...names].sort().join(',') : 'any'].join(' | ');
}

/** The rules table of docs/deployment.md, with names spelled for the given nodes. */
function documentedRules(nodes: readonly string[], kubernetesProvider: boolean, hostAccess = false): string[] {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'deployment.md'), 'utf8');
  const table = doc.slice(doc.indexOf('<!-- rbac-rules:'));
  const rows = table.split('\n').slice(3).filter((l) => l.startsWith('| ') && !l.startsWith('| ---'));
  const out: string[] = [];
  for (const row of rows) {
    const cells = row.split('|').slice(1, -1).map((c) => c.trim());
    if (cells.length !== 7) break;
    const [where, group, resources, verbs, names, onlyK8s] = cells as [string, string, string, string, string, string];
    if (onlyK8s === 'yes' && !kubernetesProvider) continue;
    if (onlyK8s === 'with hostServiceAccountAccess' && !hostAccess) continue;
    const list = (v: string) => v.split(',').map((x) => x.trim());
    // Named objects: 'any', the nodes' own names, or literal names in backquotes.
    const literal = /^`([^`]+)`$/.exec(names)?.[1];
    const spelled = names === 'any' ? undefined : names === 'the virtual nodes' ? nodes : literal !== undefined ? list(literal) : [`unknown names: ${names}`];
    out.push(ruleKey(where, group, list(resources), list(verbs), spelled));
  }
  return out.sort();
}

function renderedRules(objects: readonly Manifest[], releaseNamespace: string): string[] {
  const out: string[] = [];
  for (const o of objects) {
    if (o.kind !== 'ClusterRole' && o.kind !== 'Role') continue;
    const where = o.kind === 'ClusterRole' ? 'ClusterRole' : o.metadata.namespace === releaseNamespace ? 'Role in the release namespace' : `Role in ${o.metadata.namespace ?? '?'}`;
    for (const r of o.rules ?? []) for (const g of r.apiGroups) out.push(ruleKey(where, g, r.resources, r.verbs, r.resourceNames));
  }
  return out.sort();
}

t.test('the chart grants exactly the rules docs/deployment.md lists, with and without a Kubernetes-provider node', async (t) => {
  const simulated = documents(await renderChart('tether-system'));
  t.same(renderedRules(simulated, 'tether-system'), documentedRules(['tether-sim'], false), 'simulated only: no configmaps or secrets');
  t.notOk(renderedRules(simulated, 'tether-system').some((r) => r.includes('secrets')), 'no right on Secrets');
  const nodes = [{ name: 'vk-remote', provider: { type: 'kubernetes', remote: { kubeconfig: '/etc/tether-remotes/a/kubeconfig' } } }, { name: 'vk-sim', provider: { type: 'simulated' } }];
  const mixed = documents(await renderChart('tether-system', ['--set-json', `config.nodes=${JSON.stringify(nodes)}`]));
  t.same(renderedRules(mixed, 'tether-system'), documentedRules(['vk-remote', 'vk-sim'], true), 'with a Kubernetes-provider node: configmaps and secrets too');
  t.notOk(renderedRules(mixed, 'tether-system').some((r) => r.includes('serviceaccounts/token')), 'no token right unless a node gives host access');
  const access = [{ ...nodes[0], provider: { ...nodes[0]?.provider, hostServiceAccountAccess: { enabled: true, apiServerAddress: '192.0.2.10:6443' } } }, nodes[1]];
  const withAccess = documents(await renderChart('tether-system', ['--set-json', `config.nodes=${JSON.stringify(access)}`]));
  t.same(renderedRules(withAccess, 'tether-system'), documentedRules(['vk-remote', 'vk-sim'], true, true), 'with hostServiceAccountAccess: serviceaccounts/token too');
  const noElection = documents(await renderChart('tether-system', ['--set', 'leaderElection.enabled=false']));
  t.notOk(renderedRules(noElection, 'tether-system').some((r) => r.startsWith('Role in the release namespace')), 'no lock Role without leader election');
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
