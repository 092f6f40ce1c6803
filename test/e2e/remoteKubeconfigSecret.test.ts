/**
 * A remote kubeconfig read from a Secret in the host cluster may not make Tether run a program
 * unless the node opts in: createProvider refuses it as a configuration error naming the node,
 * the Secret, its key and the field. (The policy itself: test/providers/kubernetes/remoteKubeconfigPolicy.test.ts.)
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { createProvider, ProviderSetupError } from '../../src/app/providerFactory.js';
import type { KubernetesProviderConfig } from '../../src/providers/kubernetes/configSchema.js';
import { testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { EXEC_USER, kubeconfigForUser } from '../support/kubeconfigText.js';

const EXEC = kubeconfigForUser(EXEC_USER);

void t.test('createProvider refuses a Secret\'s kubeconfig with an exec plugin, and accepts it when the node allows exec', async (t) => {
  const { host } = await useSharedClusters(t);
  const ns = await testNamespace(t, host, 'kcpolicy');
  await host.kubectl(['create', 'secret', 'generic', 'remote', '-n', ns, `--from-literal=kubeconfig=${EXEC}`]);
  const config = (allow?: KubernetesProviderConfig['remote'] extends infer R ? R extends { secret: { allow?: infer A } } ? A : never : never): KubernetesProviderConfig => ({
    type: 'kubernetes',
    remote: { secret: { namespace: ns, name: 'remote', ...(allow ? { allow } : {}) } },
  });
  const ctx = { nodeName: 'vk-policy', internalIP: '127.0.0.1', host: { kind: 'file' as const, path: host.kubeconfigPath }, logger: silentLogger };
  const error = await createProvider(config(), ctx).then(() => undefined, (e: unknown) => e);
  t.ok(error instanceof ProviderSetupError, 'a configuration error (exit code 2)');
  t.match((error as Error).message, new RegExp(`node vk-policy: secret ${ns}/remote key kubeconfig: users\\[name=u\\]\\.user\\.exec runs a program`));
  const allowed = await createProvider(config(['exec']), ctx);
  await allowed.stop();
  t.pass('allowed per node');
});
