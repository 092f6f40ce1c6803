import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import t, { type Test } from 'tap';
import fc from 'fast-check';
import { CoreV1Api, HttpMethod, RequestContext } from '@kubernetes/client-node';
import { ClientKubeConfig } from '../../../src/adapters/kubernetes/clientKubeConfig.js';
import { ClusterClient } from '../../../src/adapters/kubernetes/clusterClient.js';
import { ConnectionPool, pooledKubeConfig } from '../../../src/adapters/kubernetes/connectionPool.js';
import { classifyApiError } from '../../../src/adapters/kubernetes/errors.js';
import { sendRequest, TransportError } from '../../../src/adapters/kubernetes/httpLibrary.js';
import { KindedError, kindOf } from '../../../src/lib/errorKind.js';
import { until } from '../../support/until.js';
import { MockApiServer } from './mockApiServer.js';

interface Seen {
  readonly method: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A plain HTTP server answering every request with `answer`; records what it was sent, and its connections. */
async function server(t: Test, answer: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<{ url: string; seen: Seen[]; opened: () => number; closed: () => number }> {
  const seen: Seen[] = [];
  let opened = 0;
  let closed = 0;
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', headers: req.headers, body });
      answer(req, res, body);
    });
  });
  s.on('connection', (socket) => {
    opened += 1;
    socket.on('close', () => (closed += 1));
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    s.closeAllConnections();
    s.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, seen, opened: () => opened, closed: () => closed };
}

function request(url: string, method = HttpMethod.GET, body?: string): RequestContext {
  const r = new RequestContext(url, method);
  r.setHeaderParam('Accept', 'application/json');
  if (body !== undefined) {
    r.setHeaderParam('Content-Type', 'application/json');
    r.setBody(body);
  }
  return r;
}

t.test('sends the method, headers and a string body with its byte length; answers status, headers and body', async (t) => {
  const s = await server(t, (_req, res, body) => {
    res.writeHead(201, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] });
    res.end(JSON.stringify({ echoed: body }));
  });
  const body = JSON.stringify({ note: 'ünïcødé ✓' });
  const got = await sendRequest(request(`${s.url}/api/v1/things?x=1`, HttpMethod.POST, body));
  t.equal(got.httpStatusCode, 201);
  t.equal(got.headers['content-type'], 'application/json');
  t.equal(got.headers['set-cookie'], 'a=1, b=2', 'a header sent twice is one string, as node-fetch made it');
  t.same(JSON.parse(await got.body.text()), { echoed: body });
  t.equal(s.seen[0]?.method, 'POST');
  t.equal(s.seen[0]?.headers['content-length'], String(Buffer.byteLength(body)), 'bytes, not characters');
  t.equal(s.seen[0]?.headers['content-type'], 'application/json');
  t.equal(s.seen[0]?.headers['accept-encoding'], 'gzip');
  t.match(s.seen[0]?.headers['user-agent'], /^tether /);
});

t.test("the caller's own Accept-Encoding and User-Agent are kept", async (t) => {
  const s = await server(t, (_req, res) => res.end('{}'));
  const r = request(s.url);
  r.setHeaderParam('Accept-Encoding', 'identity');
  r.setHeaderParam('User-Agent', 'someone/1');
  await sendRequest(r);
  t.equal(s.seen[0]?.headers['accept-encoding'], 'identity');
  t.equal(s.seen[0]?.headers['user-agent'], 'someone/1');
});

t.test('requests through a keep-alive agent share one connection', async (t) => {
  const s = await server(t, (_req, res) => res.end('{"kind":"Pod"}'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  for (let i = 0; i < 5; i++) {
    const r = request(s.url);
    r.setAgent(agent);
    t.equal(await (await sendRequest(r)).body.text(), '{"kind":"Pod"}');
  }
  t.equal(s.opened(), 1);
});

t.test('gzip answers are decoded, a gzip cut short too (as node-fetch reads it)', async (t) => {
  const whole = zlib.gzipSync(Buffer.from('{"kind":"Pod"}'));
  for (const [encoding, bytes, expected] of [['gzip', whole, '{"kind":"Pod"}'], ['x-gzip', whole, '{"kind":"Pod"}'], ['gzip', whole.subarray(0, whole.length - 8), '{"kind":"Pod"}']] as const) {
    const s = await server(t, (_req, res) => {
      res.writeHead(200, { 'content-encoding': encoding });
      res.end(bytes);
    });
    const got = await sendRequest(request(s.url));
    t.equal(await got.body.text(), expected, `${encoding}, ${bytes.length} bytes`);
  }
});

t.test('bodies that are empty by definition are not decoded, whatever Content-Encoding says', async (t) => {
  for (const [status, method] of [[204, HttpMethod.DELETE], [304, HttpMethod.GET], [200, HttpMethod.HEAD], [200, HttpMethod.GET]] as const) {
    const s = await server(t, (_req, res) => {
      res.writeHead(status, { 'content-encoding': 'gzip', 'content-length': '0' });
      res.end();
    });
    const got = await sendRequest(request(s.url, method));
    t.equal(got.httpStatusCode, status, `${method} answered ${status}`);
    t.equal(await got.body.text(), '');
  }
});

t.test('an answer over the bound is cut off and rejects, plain or compressed', async (t) => {
  const plain = await server(t, (_req, res) => {
    res.writeHead(200);
    // Streams until the client goes: a server that would send forever.
    const more = (): void => {
      if (res.write(Buffer.alloc(16 * 1024, 'x'))) setImmediate(more);
      else res.once('drain', more);
    };
    res.on('close', () => undefined);
    more();
  });
  const err = await sendRequest(request(plain.url), 100_000).then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof TransportError, 'rejects');
  t.match((err as Error).message, /over 100000 bytes/);
  t.equal(kindOf(err), 'transient');
  await until('the endless answer\'s socket closed', () => plain.closed() === 1);

  const bomb = await server(t, (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' });
    res.end(zlib.gzipSync(Buffer.alloc(10 * 1024 * 1024)));
  });
  const inflated = await sendRequest(request(bomb.url), 100_000).then(() => undefined, (e: unknown) => e);
  t.ok(inflated instanceof TransportError, 'a small gzip that inflates past the bound rejects too');
  t.equal(((inflated as Error).cause as { code?: string } | undefined)?.code, 'ERR_BUFFER_TOO_LARGE', 'for its size, not another decoding failure');
});

t.test('an abort while the request runs rejects and closes its socket: with a reason that has a kind, that reason; else a transient error', async (t) => {
  const fence = new KindedError('transient', 'writes fenced');
  const plain = new Error('gave up');
  const cases: [Error, (err: unknown) => void][] = [
    [fence, (err) => t.equal(err, fence, 'a kinded reason as it is')],
    [plain, (err) => {
      t.ok(err instanceof TransportError, 'a plain reason wrapped');
      t.equal(kindOf(err), 'transient');
      t.equal((err as Error).cause, plain);
    }],
  ];
  for (const [reason, check] of cases) {
    const s = await server(t, () => undefined); // never answers
    const r = request(s.url);
    const controller = new AbortController();
    r.setSignal(controller.signal);
    const pending = sendRequest(r);
    await until('the request reached the server', () => s.seen.length === 1);
    controller.abort(reason);
    check(await pending.then(() => undefined, (e: unknown) => e));
    await until('the socket closed', () => s.closed() === 1);
  }
});

t.test('an abort mid-answer rejects and closes the socket', async (t) => {
  const s = await server(t, (_req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('{"kind":');
  });
  const r = request(s.url);
  const controller = new AbortController();
  r.setSignal(controller.signal);
  const pending = sendRequest(r);
  await until('the answer began', () => s.seen.length === 1);
  controller.abort(new KindedError('transient', 'deadline'));
  t.match(await pending.then(() => undefined, (e: unknown) => e), { message: 'deadline' });
  await until('the socket closed', () => s.closed() === 1);
});

t.test('a request already aborted is not sent, and the idle pooled socket survives', async (t) => {
  const s = await server(t, (_req, res) => res.end('{}'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const warm = request(s.url);
  warm.setAgent(agent);
  await sendRequest(warm);
  const r = request(s.url);
  r.setAgent(agent);
  r.setSignal(AbortSignal.abort(new KindedError('transient', 'deadline')));
  t.match(await sendRequest(r).then(() => undefined, (e: unknown) => e), { message: 'deadline' });
  const again = request(s.url);
  again.setAgent(agent);
  await sendRequest(again);
  t.equal(s.seen.length, 2, 'the aborted one never reached the server');
  t.equal(s.opened(), 1, 'and the warm connection was used again');
});

t.test('a refused connection and a cut-off answer reject as transient transport errors', async (t) => {
  const refused = await sendRequest(request('http://127.0.0.1:1/api')).then(() => undefined, (e: unknown) => e);
  t.ok(refused instanceof TransportError);
  t.equal((refused as TransportError).code, 'ECONNREFUSED');
  t.equal(classifyApiError(refused).kind, 'transient');
  t.match((refused as Error).message, /GET http:\/\/127\.0\.0\.1:1\/api/, 'names the request');

  const cut = await server(t, (_req, res) => {
    res.writeHead(200, { 'content-length': '1000' });
    res.write('{"kind":');
    setImmediate(() => res.socket?.destroy());
  });
  const err = await sendRequest(request(cut.url)).then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof TransportError, 'an answer cut short is a failure, not a short body');
  t.equal(classifyApiError(err).kind, 'transient');
});

t.test('a body that is not a string is refused unsent, as a defect (no kind), not a network failure', async (t) => {
  const s = await server(t, (_req, res) => res.end());
  const r = request(s.url, HttpMethod.POST);
  r.setBody(new URLSearchParams({ a: 'b' }));
  const err = await sendRequest(r).then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof TypeError);
  t.equal(classifyApiError(err).kind, undefined);
  t.equal(s.seen.length, 0);
});

t.test('property: any body reaches the server intact and any answer comes back intact, plain or gzip', async (t) => {
  const s = await server(t, (req, res, body) => {
    const gzip = req.headers['x-gzip'] === '1';
    res.writeHead(200, gzip ? { 'content-encoding': 'gzip' } : {});
    res.end(gzip ? zlib.gzipSync(Buffer.from(body)) : body);
  });
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.boolean(), async (text, gzip) => {
      const r = request(s.url, HttpMethod.PUT, text);
      if (gzip) r.setHeaderParam('x-gzip', '1');
      const got = await sendRequest(r);
      return (await got.body.text()) === text && s.seen.at(-1)?.body === text;
    }),
    { numRuns: 60 },
  );
  t.pass();
});

t.test('API clients of a ClientKubeConfig, a pooled one, and a ClusterClient without a pool all send through this library', async (t) => {
  const mock = await MockApiServer.start({ tls: true });
  const pool = new ConnectionPool();
  t.teardown(async () => {
    await pool.stop();
    await mock.close();
  });
  mock.route((r) => (r.url.pathname === '/api/v1/namespaces/kube-system' ? { body: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'kube-system', uid: 'u-1' } } } : undefined));
  const kc = new ClientKubeConfig();
  kc.loadFromString(mock.kubeConfigYaml());
  const unpooled = new ClusterClient(mock.kubeConfig(), { connectionPool: false });
  t.teardown(() => unpooled.stop());
  for (const [name, core] of [['ClientKubeConfig', kc.makeApiClient(CoreV1Api)], ['pooled', pooledKubeConfig(mock.kubeConfig(), pool).makeApiClient(CoreV1Api)], ['ClusterClient, no pool', unpooled.core]] as const) {
    const ns = await core.readNamespace({ name: 'kube-system' });
    t.equal(ns.metadata?.uid, 'u-1', `${name}: client-node parses the answer`);
    t.equal(mock.requests.at(-1)?.headers['accept-encoding'], 'gzip', `${name}: this library's header (node-fetch sends gzip,deflate)`);
    t.equal(mock.requests.at(-1)?.headers.authorization, 'Bearer secret-token', `${name}: client-node's authentication still applies`);
  }
});

t.test("an error answer reaches client-node's processor and is classified with its Retry-After", async (t) => {
  const mock = await MockApiServer.start({ tls: true });
  t.teardown(() => mock.close());
  mock.route(() => ({ status: 429, headers: { 'retry-after': '7' }, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'TooManyRequests', message: 'slow down', code: 429 } }));
  const kc = new ClientKubeConfig();
  kc.loadFromString(mock.kubeConfigYaml());
  const err = await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'x' }).then(() => undefined, (e: unknown) => e);
  t.match(classifyApiError(err), { kind: 'transient', status: 429, message: 'slow down', retryAfterSeconds: 7 });
});
