/**
 * Issue 22: the start-up reads (the host cluster's UID, the remote kubeconfig's Secret) and the
 * simulated provider's ConfigMap/Secret reads have a deadline that reaches the request itself:
 * at the deadline, or when the caller's signal aborts, the request is abandoned (its connection
 * closed), not left running behind a promise that has already rejected.
 */
import t, { type Test } from 'tap';
import { readClusterUid } from '../../../src/adapters/kubernetes/clusterUid.js';
import { createConfigObjectReader } from '../../../src/adapters/kubernetes/configObjects.js';
import type { KubeconfigSource } from '../../../src/adapters/kubernetes/kubeconfig.js';
import { readSecretData } from '../../../src/adapters/kubernetes/secrets.js';
import { until } from '../../support/until.js';
import { MockApiServer } from './mockApiServer.js';

/**
 * Long enough for the first request to reach the server on a loaded machine (it loads TLS and
 * connects first): a deadline that passes before the request is sent leaves nothing to abandon,
 * and the test would wait for an abandonment that cannot come.
 */
const DEADLINE_MS = 1500;

async function hangingServer(t: Test): Promise<{ server: MockApiServer; source: KubeconfigSource }> {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route(() => 'hang');
  return { server, source: { kind: 'string', yaml: server.kubeConfigYaml() } };
}

t.test('reading the cluster UID from an API server that never answers rejects at its deadline and abandons the request', async (t) => {
  const { server, source } = await hangingServer(t);
  await t.rejects(readClusterUid(source, { timeoutMs: DEADLINE_MS }), new RegExp(`timed out after ${DEADLINE_MS} ms`));
  await until('the request is abandoned', () => server.abandoned.some((r) => r.url.pathname === '/api/v1/namespaces/kube-system'));
});

t.test('reading the cluster UID stops its request when the caller aborts', async (t) => {
  const { server, source } = await hangingServer(t);
  const stop = new AbortController();
  const read = readClusterUid(source, { signal: stop.signal });
  await until('the request reached the server', () => server.requests.length === 1);
  stop.abort(new Error('shutting down'));
  await t.rejects(read, /shutting down/);
  await until('the request is abandoned', () => server.abandoned.length === 1);
});

t.test('reading the remote kubeconfig Secret rejects at its deadline and abandons the request', async (t) => {
  const { server, source } = await hangingServer(t);
  await t.rejects(readSecretData(source, 'tether', 'remote', { timeoutMs: DEADLINE_MS }), new RegExp(`timed out after ${DEADLINE_MS} ms`));
  await until('the request is abandoned', () => server.abandoned.some((r) => r.url.pathname === '/api/v1/namespaces/tether/secrets/remote'));
});

t.test('the start-up reads still answer from a server that does', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) =>
    r.url.pathname === '/api/v1/namespaces/kube-system'
      ? { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', uid: 'uid-ks' } } }
      : r.url.pathname === '/api/v1/namespaces/tether/secrets/remote'
        ? { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'remote' }, data: { kubeconfig: 'eWFtbA==' } } }
        : undefined,
  );
  const source: KubeconfigSource = { kind: 'string', yaml: server.kubeConfigYaml() };
  t.equal(await readClusterUid(source), 'uid-ks');
  t.same(await readSecretData(source, 'tether', 'remote'), { kubeconfig: 'eWFtbA==' });
  t.equal(server.abandoned.length, 0);
});

t.test('a ConfigMap or Secret read that hangs is abandoned at its deadline, and when its caller aborts', async (t) => {
  const { server } = await hangingServer(t);
  const reader = createConfigObjectReader(server.kubeConfig(), DEADLINE_MS);
  await t.rejects(reader.configMap('ns', 'settings'), new RegExp(`timed out after ${DEADLINE_MS} ms`));
  await until('the ConfigMap request is abandoned', () => server.abandoned.some((r) => r.url.pathname === '/api/v1/namespaces/ns/configmaps/settings'));
  const stop = new AbortController();
  const read = createConfigObjectReader(server.kubeConfig(), 60_000).secret('ns', 'token', stop.signal);
  await until('the Secret request reached the server', () => server.requests.some((r) => r.url.pathname === '/api/v1/namespaces/ns/secrets/token'));
  stop.abort(new Error('exec client gone'));
  await t.rejects(read, /exec client gone/);
  await until('the Secret request is abandoned', () => server.abandoned.some((r) => r.url.pathname === '/api/v1/namespaces/ns/secrets/token'));
});
