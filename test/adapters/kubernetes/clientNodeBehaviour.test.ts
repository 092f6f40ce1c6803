/**
 * Pins the @kubernetes/client-node 1.4 behaviours the adapters work around, so an upgrade that
 * changes them fails here first, with a name saying which workaround to revisit.
 */
import t from 'tap';
import { until } from '../../support/until.js';
import { ApiException, CoreV1Api, KubeConfig, ListWatch, Watch } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import {MockApiServer, pod, status} from './mockApiServer.js';

t.test('PATCH defaults to application/json-patch+json (podApiClient sets the type per call)', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'PATCH' ? { body: pod('p', '1') } : undefined));
  await server.kubeConfig().makeApiClient(CoreV1Api).patchNamespacedPodStatus({ name: 'p', namespace: 'ns', body: { status: {} } });
  t.equal(server.requests.at(-1)?.headers['content-type'], 'application/json-patch+json');
});

t.test('ApiException.body is the raw JSON string of the Status (errors.ts parses it)', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const err: unknown = await server.kubeConfig().makeApiClient(CoreV1Api).readNamespacedPod({ name: 'x', namespace: 'ns' }).catch((e: unknown) => e);
  t.ok(err instanceof ApiException);
  t.equal((err as ApiException<unknown>).code, 404);
  t.type((err as ApiException<unknown>).body, 'string');
});

t.test('an http:// server without insecure-skip-tls-verify is refused (kubeconfig.ts reports it up front)', async (t) => {
  const kc = new KubeConfig();
  kc.loadFromString(`clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c`);
  await t.rejects(kc.makeApiClient(CoreV1Api).listNode(), /HTTP protocol is not allowed when skipTLSVerify is not set/);
});

t.test('ListWatch: a non-410 error stops it for good, and stop() emits an error (cachedListWatch.ts)', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  let watchStatus = 500;
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return watchStatus === 200 ? 'watch' : { status: watchStatus, body: status(500, 'InternalError', 'x') };
    return { body: { kind: 'PodList', metadata: { resourceVersion: '1' }, items: [] } };
  });
  const kc = server.kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const errors: unknown[] = [];
  const lw = new ListWatch<V1Pod>('/api/v1/pods', new Watch(kc), () => core.listPodForAllNamespaces(), false);
  lw.on('error', (e) => errors.push(e));
  await lw.start();
  await until('the watch error', () => errors.length === 1);
  const watchRequests = (): number => server.requests.filter((r) => r.url.searchParams.get('watch') === 'true').length;
  t.equal(watchRequests(), 1, 'no retry by itself (checked again below, after a restart)');
  watchStatus = 200;
  await lw.start();
  await until('the manual restart', () => server.watches.length === 1);
  t.equal(watchRequests(), 2);
  await lw.stop();
  await until('the error emitted by stop()', () => errors.length === 2);
  t.match(String(errors[1]), /abort/i);
});
