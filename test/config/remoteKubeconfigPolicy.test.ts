/**
 * A remote kubeconfig read from a Secret may not make Tether run a program, load an auth plugin or
 * send one of its files as a token, unless the node opts in: the config error names the node, the
 * Secret, its key and the field. Checked on the pure policy and through createProvider against a
 * real Secret in the host cluster.
 */
import t from 'tap';
import { ClusterClient } from '../../src/adapters/kubernetes/clusterClient.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { createProvider, ProviderSetupError } from '../../src/app/providerFactory.js';
import { credentialFields, refusedCredentials } from '../../src/config/remoteKubeconfigPolicy.js';
import type { KubernetesProviderConfig } from '../../src/config/index.js';
import { testNamespace, useSharedClusters } from '../harness/sharedClusters.js';

const kubeconfig = (user: string): string => `apiVersion: v1
kind: Config
clusters: [{ name: r, cluster: { server: "https://127.0.0.1:1" } }]
contexts: [{ name: r, context: { cluster: r, user: u } }]
current-context: r
users:
  - name: u
    user: ${user}
`;

const EXEC = kubeconfig('{ exec: { apiVersion: client.authentication.k8s.io/v1, command: /bin/true } }');
const AUTH_PROVIDER = kubeconfig('{ auth-provider: { name: oidc, config: { idp-issuer-url: "https://evil.example" } } }');
const TOKEN_FILE = kubeconfig('{ tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token }');
const PLAIN = kubeconfig('{ token: abc }');

void t.test('exec, auth-provider and tokenFile are found, by user name', async (t) => {
  t.match(credentialFields(EXEC), [{ path: 'users[name=u].user.exec', field: 'exec' }]);
  t.match(credentialFields(AUTH_PROVIDER), [{ path: 'users[name=u].user.auth-provider', field: 'auth-provider' }]);
  t.match(credentialFields(TOKEN_FILE), [{ path: 'users[name=u].user.tokenFile', field: 'tokenFile' }]);
  t.same(credentialFields(PLAIN), []);
  t.same(credentialFields('not: [valid'), [], 'unparseable text is left to the loader');
});

void t.test('refused unless allowed, each refusal naming where and how to allow it', async (t) => {
  t.match(refusedCredentials(EXEC, [], 'node vk: secret ns/s key kubeconfig'), [
    'node vk: secret ns/s key kubeconfig: users[name=u].user.exec runs a program inside Tether; refused (to allow it, set remote.secret.allow: [exec] on this node)',
  ]);
  t.same(refusedCredentials(EXEC, ['exec'], 'x'), []);
  t.equal(refusedCredentials(TOKEN_FILE, ['exec'], 'x').length, 1, 'allowing one field allows only that one');
});

void t.test('createProvider refuses a Secret\'s kubeconfig with an exec plugin, and accepts it when the node allows exec', async (t) => {
  const { host } = await useSharedClusters(t);
  const ns = await testNamespace(t, host, 'kcpolicy');
  await host.kubectl(['create', 'secret', 'generic', 'remote', '-n', ns, `--from-literal=kubeconfig=${EXEC}`]);
  const config = (allow?: KubernetesProviderConfig['remote'] extends infer R ? R extends { secret: { allow?: infer A } } ? A : never : never): KubernetesProviderConfig => ({
    type: 'kubernetes',
    remote: { secret: { namespace: ns, name: 'remote', ...(allow ? { allow } : {}) } },
  });
  const hostClient = new ClusterClient({ kind: 'file', path: host.kubeconfigPath });
  t.teardown(() => hostClient.stop());
  const ctx = { nodeName: 'vk-policy', internalIP: '127.0.0.1', host: { kind: 'file' as const, path: host.kubeconfigPath }, hostClient, logger: silentLogger };
  const error = await createProvider(config(), ctx).then(() => undefined, (e: unknown) => e);
  t.ok(error instanceof ProviderSetupError, 'a configuration error (exit code 2)');
  t.match((error as Error).message, new RegExp(`node vk-policy: secret ${ns}/remote key kubeconfig: users\\[name=u\\]\\.user\\.exec runs a program`));
  const allowed = await createProvider(config(['exec']), ctx);
  await allowed.stop();
  t.pass('allowed per node');
});
