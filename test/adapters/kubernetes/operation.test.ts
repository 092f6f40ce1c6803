/**
 * An API call is a typed operation: whether it is fenced, the verb its metric counts, its default
 * deadline and its words are all derived from `{ verb, target }`, never parsed out of a string.
 */
import t from 'tap';
import fc from 'fast-check';
import { call } from '../../../src/adapters/kubernetes/call.js';
import { ClusterClient } from '../../../src/adapters/kubernetes/clusterClient.js';
import { describeOperation, isRead, operation, VERBS, type Verb } from '../../../src/adapters/kubernetes/operation.js';
import { RateLimiter } from '../../../src/adapters/kubernetes/rateLimiter.js';
import { DeadlineExceededError } from '../../../src/lib/callWithDeadline.js';
import { ManualClock } from '../../support/manualClock.js';
import { drain } from '../../support/until.js';
import { MockApiServer } from './mockApiServer.js';

const READS: readonly Verb[] = ['get', 'list', 'watch'];

t.test('get, list and watch are reads; create, update, patch and delete are writes', async (t) => {
  for (const verb of VERBS) t.equal(isRead(operation(verb, 'pod ns/p')), READS.includes(verb), verb);
});

t.test('whatever its target says, an operation is read or write by its verb alone', async (t) => {
  fc.assert(fc.property(fc.constantFrom(...VERBS), fc.constantFrom(...VERBS), fc.string(), (verb, other, words) =>
    isRead(operation(verb, `${other} ${words}`)) === READS.includes(verb)));
  t.notOk(isRead(operation('delete', 'get rid of pod ns/p')), 'a write whose words start with a read verb is still a write');
  t.ok(isRead(operation('get', 'delete-me pod')), 'and a read is a read');
});

t.test('the words of an operation are its verb and its target', async (t) => {
  t.equal(describeOperation(operation('patch', 'status of pod ns/p (uid u)')), 'patch status of pod ns/p (uid u)');
});

t.test('the request metric counts the operation\'s verb', async (t) => {
  const limiter = new RateLimiter({ qps: Infinity, burst: 1 });
  await call(limiter, 'other', operation('update', 'event series e'), () => Promise.resolve(1));
  await call(limiter, 'status', operation('patch', 'status of pod ns/p'), () => Promise.resolve(1));
  t.same([...limiter.requestCounts().entries()].sort(), [['patch 2xx', 1], ['update 2xx', 1]]);
});

t.test('a list gets the list deadline unless told otherwise; anything else its priority\'s', async (t) => {
  const clock = new ManualClock();
  const limiter = new RateLimiter({ qps: Infinity, burst: 1, clock });
  const deadlines = { list: 300, other: 100 };
  const hang = (): Promise<never> => new Promise<never>(() => undefined);
  const outcome = (p: Promise<unknown>): Promise<unknown> => p.then(() => 'answered', (e: unknown) => (e as { cause?: unknown }).cause);
  const list = outcome(call({ limiter, clock, deadlines }, 'other', operation('list', 'pods'), hang));
  const get = outcome(call({ limiter, clock, deadlines }, 'other', operation('get', 'pod ns/p'), hang));
  await drain();
  clock.advance(100);
  t.match(await get, new DeadlineExceededError(100), 'a get: the other deadline');
  clock.advance(200);
  t.match(await list, new DeadlineExceededError(300), 'a list: the list deadline');
});

t.test('a ClusterClient fences an operation by its verb: a fenced client still reads', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'GET' ? { body: { metadata: { name: 'p' } } } : undefined));
  const client = new ClusterClient(server.kubeConfig());
  t.teardown(() => client.stop());
  client.fenceWrites('lost');
  t.match(await client.call('other', operation('get', 'pod ns/p'), (core, o) => core.readNamespacedPod({ name: 'p', namespace: 'ns' }, o)), { metadata: { name: 'p' } });
  await t.rejects(client.call('other', operation('patch', 'pod ns/p'), (core, o) => core.patchNamespacedPod({ name: 'p', namespace: 'ns', body: {} }, o)), /writes fenced: lost/);
  t.equal(server.requests.length, 1, 'the write was never sent');
});
