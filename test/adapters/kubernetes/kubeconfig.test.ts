import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { KubeconfigError, loadKubeConfig } from '../../../src/adapters/kubernetes/kubeconfig.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tether-kc-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

const good = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://10.0.0.1:6443"}
- name: other
  cluster: {server: "https://10.0.0.2:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: main
  context: {cluster: c, user: u}
- name: alt
  context: {cluster: other, user: u}
current-context: main
`;

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof KubeconfigError) return err.message;
    throw err;
  }
  throw new Error('expected a KubeconfigError');
}

t.test('loads a valid file, with a context override', async (t) => {
  const file = write('good', good);
  t.equal(loadKubeConfig({ kind: 'file', path: file }).getCurrentCluster()?.server, 'https://10.0.0.1:6443');
  t.equal(loadKubeConfig({ kind: 'file', path: file, context: 'alt' }).getCurrentCluster()?.server, 'https://10.0.0.2:6443');
  t.equal(loadKubeConfig({ kind: 'string', yaml: good }).getCurrentContext(), 'main');
});

t.test('errors name the file and the field', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['badctx', good.replace('current-context: main', 'current-context: foo'), /^kubeconfig .*badctx: current-context 'foo' not found$/],
    ['noserver', good.replace('cluster: {server: "https://10.0.0.1:6443"}', 'cluster: {insecure-skip-tls-verify: true}'), /noserver: cluster 'c' has no server$/],
    ['badurl', good.replace('https://10.0.0.1:6443', 'not a url'), /badurl: cluster 'c': server 'not a url' is not a URL$/],
    ['plainhttp', good.replace('https://10.0.0.1:6443', 'http://10.0.0.1:8080'), /plainhttp: cluster 'c': server is http:\/\/ but insecure-skip-tls-verify is not true/],
    ['nocluster', good.replace('context: {cluster: c, user: u}', 'context: {cluster: gone, user: u}'), /nocluster: context 'main': cluster 'gone' not found$/],
    ['nouser', good.replace('context: {cluster: c, user: u}', 'context: {cluster: c, user: nobody}'), /nouser: context 'main': user 'nobody' not found$/],
    ['nocurrent', good.replace('current-context: main', ''), /nocurrent: no current-context set$/],
    ['empty', '', /empty: file is empty$/],
    ['yaml', 'clusters: [', /yaml: invalid YAML: /],
    ['list', '- a\n- b\n', /list: not a kubeconfig/],
    ['unnamed', good.replace('- name: other\n', '- nick: other\n'), /unnamed: clusters\[1\] has no name$/],
    ['cafile', good.replace('server: "https://10.0.0.1:6443"', 'server: "https://10.0.0.1:6443", certificate-authority: ca.pem'), /cafile: cluster 'c': certificate-authority .*ca\.pem is not readable \(ENOENT\)$/],
  ];
  for (const [name, text, re] of cases) t.match(problem(() => loadKubeConfig({ kind: 'file', path: write(name, text) })), re, name);
  t.match(problem(() => loadKubeConfig({ kind: 'file', path: path.join(dir, 'absent') })), /absent: cannot read file \(ENOENT\)$/);
  t.match(problem(() => loadKubeConfig({ kind: 'file', path: write('g2', good), context: 'nope' })), /g2: context 'nope' not found$/);
  t.match(problem(() => loadKubeConfig({ kind: 'string', yaml: 'current-context: x\n' })), /^kubeconfig <inline>: current-context 'x' not found$/);
});

t.test('default search: $KUBECONFIG (merged), then ~/.kube/config, then in-cluster, else an error', async (t) => {
  const a = write('a', good);
  const b = write('b', good.replace(/name: c\b/g, 'name: c2').replace('cluster: c,', 'cluster: c2,').replace(/name: main/g, 'name: m2').replace(/name: alt/g, 'name: alt2').replace(/name: u\b/g, 'name: u2').replace(/user: u\}/g, 'user: u2}').replace('name: other', 'name: other2').replace('cluster: other,', 'cluster: other2,'));
  const merged = loadKubeConfig({ kind: 'default', env: { KUBECONFIG: [a, b].join(path.delimiter) }, homeDir: dir });
  t.equal(merged.getCurrentContext(), 'main', 'first file wins current-context');
  t.ok(merged.getContextObject('m2'), 'contexts of the second file are merged');
  const home = fs.mkdtempSync(path.join(dir, 'home-'));
  fs.mkdirSync(path.join(home, '.kube'));
  fs.writeFileSync(path.join(home, '.kube', 'config'), good);
  t.equal(loadKubeConfig({ kind: 'default', env: {}, homeDir: home }).getCurrentContext(), 'main');
  const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
  t.match(
    problem(() => loadKubeConfig({ kind: 'default', env: {}, homeDir: empty, inClusterPathPrefix: empty })),
    /^kubeconfig: none found \(checked \$KUBECONFIG, .*, and the in-cluster service account\)$/,
  );
});

t.test('in-cluster', async (t) => {
  const root = fs.mkdtempSync(path.join(dir, 'sa-'));
  const sa = path.join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
  const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
  t.match(problem(() => loadKubeConfig({ kind: 'inCluster', pathPrefix: root, env: {} })), /^in-cluster config: KUBERNETES_SERVICE_HOST is not set$/);
  t.match(problem(() => loadKubeConfig({ kind: 'inCluster', pathPrefix: root, env })), /service account token .*token is not readable \(ENOENT\)$/);
  fs.mkdirSync(sa, { recursive: true });
  fs.writeFileSync(path.join(sa, 'token'), 'tok');
  fs.writeFileSync(path.join(sa, 'ca.crt'), 'ca');
  const before = process.env.KUBERNETES_SERVICE_HOST;
  const kc = loadKubeConfig({ kind: 'inCluster', pathPrefix: root, env });
  t.equal(kc.getCurrentCluster()?.server, 'https://10.96.0.1:443');
  t.equal(process.env.KUBERNETES_SERVICE_HOST, before, 'process.env restored');
  const viaDefault = loadKubeConfig({ kind: 'default', env, homeDir: root, inClusterPathPrefix: root });
  t.equal(viaDefault.getCurrentCluster()?.server, 'https://10.96.0.1:443');
});
