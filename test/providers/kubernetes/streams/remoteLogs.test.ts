/**
 * Remote container logs (issue 22): opening the stream has a deadline, and the caller leaving
 * (its signal) abandons the remote request, whether it is still opening or already streaming.
 * A refusal keeps the remote's message and class; the stream comes back in whole lines.
 */
import http from 'node:http';
import { request } from 'node:https';
import t, { type Test } from 'tap';
import type { KubeConfig } from '@kubernetes/client-node';
import { startKubeletServer } from '../../../../src/kubelet/kubeletServer.js';
import { providerKindOf } from '../../../../src/providers/errors.js';
import { SimulatedProvider } from '../../../../src/providers/simulated/simulatedProvider.js';
import { FakeAccessReviewer } from '../../../support/fakeAccessReviewer.js';
import { MAX_PARTIAL_LINE_BYTES, streamRemoteLogs, wholeLines } from '../../../../src/providers/kubernetes/streams/remoteLogs.js';
import { loopbackKubeConfig } from '../../../support/streamFlow.js';
import { until } from '../../../support/until.js';

interface FakeRemote {
  readonly kubeConfig: KubeConfig;
  /** Requests seen, with whether each has been closed by Tether before the server ended it. */
  readonly requests: Array<{ url: URL; res: http.ServerResponse; abandoned: boolean }>;
}

/** A remote API server whose log endpoint does what `answer` says (nothing: it never answers). */
async function fakeRemote(t: Test, answer: (res: http.ServerResponse, url: URL) => void = () => undefined): Promise<FakeRemote> {
  const requests: FakeRemote['requests'] = [];
  const server = http.createServer((req, res) => {
    const entry = { url: new URL(req.url ?? '/', 'http://remote'), res, abandoned: false };
    requests.push(entry);
    res.once('close', () => (entry.abandoned = !res.writableFinished));
    answer(res, entry.url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const kubeConfig = loopbackKubeConfig(server);
  return { kubeConfig, requests };
}

const target = { namespace: 'shop-remote', pod: 'web', container: 'app' };

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of lines) out.push(chunk);
  return out;
}

t.test('a remote that never answers the log request fails the open as transient at its deadline, and the request is abandoned', async (t) => {
  const remote = await fakeRemote(t);
  const error: unknown = await streamRemoteLogs(remote, target, {}, undefined, { openTimeoutMs: 100 }).catch((e: unknown) => e);
  t.equal(providerKindOf(error), 'transient', 'the kubelet route answers 503');
  t.match(String(error), /logs of container app of remote pod shop-remote\/web: the remote API server did not answer within 100 ms/);
  await until('the remote request is closed', () => remote.requests[0]?.abandoned === true);
});

t.test('the caller leaving while the log request opens abandons it', async (t) => {
  const remote = await fakeRemote(t);
  const caller = new AbortController();
  const opening = streamRemoteLogs(remote, target, { follow: true }, caller.signal);
  await until('the request reached the remote', () => remote.requests.length === 1);
  caller.abort(new Error('client went away'));
  await t.rejects(opening, /client went away/);
  await until('the remote request is closed', () => remote.requests[0]?.abandoned === true);
});

t.test('the caller leaving a followed stream ends it quietly and closes the remote request', async (t) => {
  const remote = await fakeRemote(t, (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('one\ntw');
  });
  const caller = new AbortController();
  const lines = await streamRemoteLogs(remote, target, { follow: true }, caller.signal);
  const iterator = lines[Symbol.asyncIterator]();
  t.same(await iterator.next(), { value: 'one\n', done: false });
  const rest = iterator.next();
  caller.abort(new Error('client went away'));
  t.same(await rest, { value: undefined, done: true }, 'the stream ends without an error');
  await until('the remote request is closed', () => remote.requests[0]?.abandoned === true);
  t.equal(remote.requests[0]?.url.searchParams.get('follow'), 'true');
  t.equal(remote.requests[0]?.url.searchParams.get('container'), 'app');
});

t.test('a log the remote ends comes back in whole lines, with the request options on its query', async (t) => {
  const remote = await fakeRemote(t, (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('a\nb');
    res.end('c\nlast');
  });
  const lines = await streamRemoteLogs(remote, target, { tailLines: 3, timestamps: true, previous: true, sinceSeconds: 60, limitBytes: 1000 });
  t.same((await collect(lines)).join(''), 'a\nbc\nlast');
  const query = remote.requests[0]?.url.searchParams;
  t.same(
    { tailLines: query?.get('tailLines'), timestamps: query?.get('timestamps'), previous: query?.get('previous'), sinceSeconds: query?.get('sinceSeconds'), limitBytes: query?.get('limitBytes') },
    { tailLines: '3', timestamps: 'true', previous: 'true', sinceSeconds: '60', limitBytes: '1000' },
  );
});

t.test('a refusal rejects with the remote\'s message and class: 404 notFound, 400 invalidInput, 5xx transient', async (t) => {
  for (const [code, kind] of [[404, 'not-found'], [400, 'invalid-input'], [500, 'transient']] as const) {
    const remote = await fakeRemote(t, (res) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', status: 'Failure', code, message: `container "app" in pod "web" is waiting to start (${code})` }));
    });
    const error: unknown = await streamRemoteLogs(remote, target, {}).catch((e: unknown) => e);
    t.equal(providerKindOf(error), kind, `HTTP ${code}`);
    t.match(String(error), new RegExp(`is waiting to start \\(${code}\\)`));
  }
});

t.test('a refusal with an endless body is read only up to a bound', async (t) => {
  const remote = await fakeRemote(t, (res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    const flood = (): void => {
      while (res.write(Buffer.alloc(64 * 1024, 'x')));
      res.once('drain', flood);
    };
    flood();
  });
  const error: unknown = await streamRemoteLogs(remote, target, {}).catch((e: unknown) => e);
  t.equal(providerKindOf(error), 'transient');
  t.ok(String(error).length < 2_000, 'the message quotes a bounded part of the body');
  await until('the remote request is closed', () => remote.requests[0]?.abandoned === true);
});

t.test('a line longer than the partial-line bound comes out in pieces rather than piling up', async (t) => {
  const big = 'y'.repeat(MAX_PARTIAL_LINE_BYTES * 3);
  async function* source(): AsyncGenerator<string> {
    for (let at = 0; at < big.length; at += 1000) yield big.slice(at, at + 1000);
    yield '\nend\n';
  }
  const chunks = await collect(wholeLines(source()));
  t.equal(chunks.join(''), `${big}\nend\n`);
  t.ok(chunks.every((c) => c.length <= MAX_PARTIAL_LINE_BYTES + 1000), 'no chunk beyond the bound (plus one read)');
});

t.test('through the kubelet API: a remote that never answers a log open is answered 503, and its request abandoned', async (t) => {
  const remote = await fakeRemote(t);
  // A provider whose logs come from the remote, with a short open deadline.
  const provider = Object.assign(new SimulatedProvider({ startLatencyMs: 0 }), {
    getContainerLogs: (namespace: string, pod: string, container: string, options: object, signal?: AbortSignal) =>
      streamRemoteLogs(remote, { namespace, pod, container }, options, signal, { openTimeoutMs: 100 }),
  });
  const server = await startKubeletServer({ nodeName: 'vk-1', provider, reviewer: new FakeAccessReviewer(), address: '127.0.0.1', port: 0 });
  t.teardown(async () => {
    await server.stop();
    void provider.stop();
  });
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`https://127.0.0.1:${server.port}/containerLogs/shop/web/app?follow=true`, { rejectUnauthorized: false, headers: { authorization: 'Bearer good' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  t.equal(status, 503);
  await until('the remote request is closed', () => remote.requests[0]?.abandoned === true);
});
