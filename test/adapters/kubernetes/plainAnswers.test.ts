import t from 'tap';
import { CoreV1Api, ResponseContext, type ConfigurationOptions } from '@kubernetes/client-node';
import { PodApiClient } from '../../../src/adapters/kubernetes/podApiClient.js';
import { plainAnswer, unreadAnswer } from '../../../src/adapters/kubernetes/plainAnswers.js';
import { MockApiServer, pod } from './mockApiServer.js';

const now = { schedule: <T>(_: unknown, fn: () => Promise<T>): Promise<T> => fn() };

/** Runs the answer through the middleware the helper added (the last one), as client-node does. */
async function throughLast(options: ConfigurationOptions, status: number, body: { text: () => Promise<string> }): Promise<ResponseContext> {
  const middleware = options.middleware?.at(-1);
  if (!middleware) throw new Error('no middleware added');
  return middleware.post(new ResponseContext(status, { 'content-type': 'application/json' }, { ...body, binary: () => body.text().then((s) => Buffer.from(s)) })).toPromise();
}

t.test("a status patch's answer is the stored pod as the API server sent it: no model classes, timestamps the server's strings", async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const stored = { ...pod('p', '42'), status: { phase: 'Running', startTime: '2026-12-07T10:00:00Z', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-07T10:00:01Z' }] } };
  server.route((r) => (r.method === 'PATCH' ? { body: stored } : undefined));
  const pods = new PodApiClient(server.kubeConfig().makeApiClient(CoreV1Api), now);
  const answer = await pods.patchPodStatus('default', 'p', 'uid-p', { phase: 'Running' });
  t.same(answer, stored, 'what the server sent, field for field');
  t.equal(answer.status?.startTime, '2026-12-07T10:00:00Z' as unknown as Date, 'a string, as a watch carries it, not a Date');
  t.equal(answer.metadata?.resourceVersion, '42');
});

t.test('plainAnswer hands client-node nothing to model for a 2xx answer, and every other answer as it came', async (t) => {
  const answer = plainAnswer<{ kind: string }>();
  t.equal(answer.value(), undefined, 'nothing before an answer');
  const success = await throughLast(answer.options, 200, { text: () => Promise.resolve('{"kind":"Pod"}') });
  t.equal(await success.body.text(), '{}');
  t.same(answer.value(), { kind: 'Pod' });

  const failure = plainAnswer();
  const status = '{"kind":"Status","code":409}';
  const refused = await throughLast(failure.options, 409, { text: () => Promise.resolve(status) });
  t.equal(refused.httpStatusCode, 409);
  t.equal(await refused.body.text(), status, 'an error is read by client-node as before');
  t.equal(failure.value(), undefined);

  const garbage = plainAnswer();
  const notJson = await throughLast(garbage.options, 200, { text: () => Promise.resolve('<html>proxy error</html>') });
  t.equal(await notJson.body.text(), '<html>proxy error</html>', 'not JSON: client-node gets it as it came, and rejects it as it always has');
  t.equal(garbage.value(), undefined);
});

t.test("unreadAnswer never reads a 2xx answer's body, and passes any other answer on untouched", async (t) => {
  let reads = 0;
  const body = { text: () => ((reads += 1), Promise.resolve('{"kind":"Event"}')) };
  const options = unreadAnswer({ middleware: [] });
  const success = await throughLast(options, 201, body);
  t.equal(await success.body.text(), '{}');
  t.equal(reads, 0, 'the answer was not read');
  const refused = await throughLast(options, 403, body);
  t.equal(await refused.body.text(), '{"kind":"Event"}');
});

t.test('the middleware is added after the options it is given, which keep theirs', (t) => {
  const first = { pre: (c: never) => c, post: (c: never) => c } as unknown as NonNullable<ConfigurationOptions['middleware']>[number];
  const options = unreadAnswer({ middleware: [first] });
  t.equal(options.middleware?.length, 2);
  t.equal(options.middleware?.[0], first);
  t.equal(options.middlewareMergeStrategy, 'append');
  t.end();
});
