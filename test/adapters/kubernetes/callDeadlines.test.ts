/**
 * Every API call has a deadline (issue 13, item 1): a request the API server accepts and never
 * answers fails as `unavailable` once its class's deadline passes, and a request still queued in
 * the rate limiter when its writer is fenced off is dropped, never sent.
 */
import t from 'tap';
import { CoreV1Api } from '@kubernetes/client-node';
import { KubeApiError } from '../../../src/adapters/kubernetes/errors.js';
import { PodApiClient } from '../../../src/adapters/kubernetes/podApiClient.js';
import { RateLimiter } from '../../../src/adapters/kubernetes/rateLimiter.js';
import { ManualClock } from '../../support/manualClock.js';
import { MockApiServer, pod } from './mockApiServer.js';

const podPath = '/api/v1/namespaces/ns/pods/p';

t.test('a read the API server never answers fails as unavailable at its deadline', { timeout: 20_000 }, async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'GET' && r.url.pathname === podPath ? 'hang' : undefined));
  const limiter = new RateLimiter({ qps: Infinity, burst: 1 });
  const pods = new PodApiClient(server.kubeConfig().makeApiClient(CoreV1Api), { limiter, deadlines: { other: 100 } });
  const err = await pods.getPod('ns', 'p').then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof KubeApiError, 'rejects with a KubeApiError');
  t.equal((err as KubeApiError).kind, 'transient', 'a deadline is a transient failure');
  t.match((err as KubeApiError).message, /get pod ns\/p: .*timed out after 100 ms/);
  t.same(limiter.requestCounts().get('get network'), 1, 'counted as a request without an answer');
});

t.test('a status patch that hangs is bounded by the status deadline, a list page by the list deadline', { timeout: 20_000 }, async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route(() => 'hang');
  const limiter = new RateLimiter({ qps: Infinity, burst: 1 });
  const pods = new PodApiClient(server.kubeConfig().makeApiClient(CoreV1Api), { limiter, deadlines: { status: 80, list: 120 } });
  await t.rejects(pods.patchPodStatus('ns', 'p', 'uid-p', { phase: 'Running' }), /timed out after 80 ms/);
  await t.rejects(pods.listPods({ namespace: 'ns' }), /timed out after 120 ms/);
});

t.test('calls still queued when the fence aborts are dropped, never sent', { timeout: 20_000 }, async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'PATCH' ? { body: pod('p', '2') } : undefined));
  // One token, refilled only on a clock that never moves: the second and third writes wait in the queue.
  const limiter = new RateLimiter({ qps: 1, burst: 1, clock: new ManualClock() });
  const fence = new AbortController();
  const pods = new PodApiClient(server.kubeConfig().makeApiClient(CoreV1Api), { limiter, signal: () => fence.signal });
  const first = pods.patchPodStatus('ns', 'p', 'uid-p', { phase: 'Running' });
  const queued = [pods.patchPodStatus('ns', 'p', 'uid-p', { phase: 'Failed' }), pods.patchPodAnnotations('ns', 'p', 'uid-p', { a: '1' })];
  await first;
  t.equal(limiter.stats().status.queued + limiter.stats().other.queued, 2, 'two writes wait for a token');
  fence.abort(new Error('node lock lost'));
  for (const q of queued) await t.rejects(q, /node lock lost/);
  t.equal(limiter.stats().status.queued + limiter.stats().other.queued, 0, 'the queue is empty');
  t.equal(server.requests.filter((r) => r.method === 'PATCH').length, 1, 'only the write that started before the fence reached the server');
});
