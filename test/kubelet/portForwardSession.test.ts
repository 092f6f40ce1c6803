/**
 * Port-forward on the kubelet API as kubectl speaks it once the API server hands the upgrade
 * through: SPDY in a WebSocket (`SPDY/3.1+portforward.k8s.io`), an error and a data stream per
 * forwarded connection, paired by requestID. A real HTTPS kubelet server with the simulated
 * provider (whose declared ports answer HTTP), and a client built on the same SPDY connection in
 * the client role. Also the kubelet's answers on the error stream, refused streams, the refusals
 * before the upgrade, and the bounds: pair timeout, idle timeout, the cap on pairs, resets and
 * abrupt closes that abort the provider and leave no stream behind.
 */
import { createServer } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import WebSocket, { WebSocketServer } from 'ws';
import { startSimulatedKubelet } from '../support/simulatedKubelet.js';
import { SpdyConnection, StreamClosedError, type SpdyStream } from '../../src/adapters/spdy/connection.js';
import { MAX_ERROR_MESSAGE_BYTES, runPortForwardSession, type PortForwardSessionOptions } from '../../src/kubelet/portForwardSession.js';
import { openTunnelSocket } from '../../src/adapters/spdy/tunnelProtocol.js';
import { startKubeletServer, type KubeletServer, type KubeletServerOptions } from '../../src/kubelet/kubeletServer.js';
import type { RejectionReason } from '../../src/kubelet/rejections.js';
import { FakeAccessReviewer } from '../support/fakeAccessReviewer.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { waitFor } from '../harness/waitFor.js';

const pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
  spec: { containers: [{ name: 'app', image: 'x', ports: [{ containerPort: 8080 }] }] },
};

async function setup(t: Test, streams?: KubeletServerOptions['streams']): Promise<KubeletServer> {
  return startSimulatedKubelet(t, new SimulatedProvider({ startLatencyMs: 0 }), pod, streams);
}

/** Opens the tunnel as kubectl does; rejects with the HTTP status and body of a refusal. */
async function tunnel(t: Test, url: string, protocols?: string[]): Promise<{ socket: WebSocket; spdy: SpdyConnection; accepted: () => boolean }> {
  const options = { rejectUnauthorized: false, headers: { authorization: 'Bearer good' } };
  const { socket, accepted } = protocols ? { socket: new WebSocket(url, protocols, options), accepted: () => false } : openTunnelSocket(url, options);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(Object.assign(new Error(body.trim()), { status: res.statusCode })));
    });
  });
  t.teardown(() => socket.terminate());
  return { socket, accepted, spdy: new SpdyConnection({ socket, role: 'client' }) };
}

async function readAll(stream: SpdyStream): Promise<string> {
  let text = '';
  for await (const chunk of stream.input) text += (chunk as Buffer).toString('utf8');
  return text;
}

/** One forwarded connection, as kubectl opens it: the error stream, then the data stream. */
async function pair(spdy: SpdyConnection, port: number, requestId: number): Promise<{ error: SpdyStream; data: SpdyStream }> {
  const headers = (type: string): Array<[string, string]> => [['streamType', type], ['port', String(port)], ['requestID', String(requestId)]];
  const error = await spdy.openStream(headers('error'));
  void error.end();
  const data = await spdy.openStream(headers('data'));
  return { error, data };
}

async function httpGet(streams: { error: SpdyStream; data: SpdyStream }, path: string): Promise<{ response: string; error: string }> {
  await streams.data.write(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
  const [response, error] = await Promise.all([readAll(streams.data), readAll(streams.error)]);
  return { response, error };
}

const url = (server: KubeletServer, path = '/portForward/shop/web'): string => `wss://127.0.0.1:${server.port}${path}`;

t.test('an HTTP GET through a forwarded port, two connections at once, then nothing is left', async (t) => {
  const server = await setup(t);
  const { accepted, spdy } = await tunnel(t, url(server));
  t.ok(accepted(), 'the server chose SPDY/3.1+portforward.k8s.io');
  const [a, b] = await Promise.all([pair(spdy, 8080, 0), pair(spdy, 8080, 1)]);
  const [first, second] = await Promise.all([httpGet(a, '/one'), httpGet(b, '/two')]);
  t.match(first.response, /^HTTP\/1.1 200 OK\r\n/);
  t.match(first.response, /Hello from pod shop\/web, container app, port 8080 \(Tether simulated provider\): GET \/one\n$/);
  t.match(second.response, /GET \/two\n$/);
  t.equal(first.error, '', 'nothing on the error stream');
  a.data.reset();
  b.data.reset();
  await waitFor('streams ended', () => spdy.openStreams() === 0, { timeoutMs: 5_000, intervalMs: 10 });
  t.equal(server.activeStreams(), 1, 'the connection holds one slot of the node\'s cap');
  spdy.close();
  await waitFor('slot free', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 10 });
  t.pass('released');
});

t.test('a port nothing listens on: the kubelet\'s message on the error stream, both streams closed', async (t) => {
  const server = await setup(t);
  const { spdy } = await tunnel(t, url(server, '/portForward/shop/web/u1'));
  const streams = await pair(spdy, 9999, 0);
  const [data, error] = await Promise.all([readAll(streams.data), readAll(streams.error)]);
  t.equal(data, '');
  t.equal(error, 'error forwarding port 9999 to pod shop/web, uid u1: nothing listens on port 9999 of pod shop/web: no container declares it');
  spdy.close();
});

t.test('a session stays with the pod it was opened for: a pod re-created under the same name is not reached', async (t) => {
  const provider = new SimulatedProvider({ startLatencyMs: 0, stopLatencyMs: 0 });
  const server = await startSimulatedKubelet(t, provider, pod);
  const { spdy } = await tunnel(t, url(server));
  t.match((await httpGet(await pair(spdy, 8080, 0), '/')).response, /200 OK/, 'the pod it was opened for answers');
  await provider.deletePod(structuredClone(pod));
  await waitFor('the old pod gone', async () => (await provider.getPod('shop', 'web')) === undefined, { timeoutMs: 5_000, intervalMs: 10 });
  await provider.createPod({ ...structuredClone(pod), metadata: { ...pod.metadata, uid: 'u2' } });
  await waitFor('its successor running', async () => (await provider.getPodStatus('shop', 'web'))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  const { response, error } = await httpGet(await pair(spdy, 8080, 1), '/');
  t.equal(response, '', 'nothing reaches the pod that took the name');
  t.equal(error, 'error forwarding port 8080 to pod shop/web: pod shop/web is no longer the pod this port-forward was opened for (uid u1, now u2)');
  spdy.close();
});

t.test('streams with bad headers are refused (RST_STREAM), as the kubelet refuses them', async (t) => {
  const server = await setup(t);
  const { spdy } = await tunnel(t, url(server));
  for (const headers of [
    [['streamType', 'data'], ['requestID', '0']],
    [['streamType', 'data'], ['port', 'http'], ['requestID', '0']],
    [['streamType', 'data'], ['port', '70000'], ['requestID', '0']],
    [['streamType', 'stdin'], ['port', '8080'], ['requestID', '0']],
  ] as Array<Array<[string, string]>>) {
    await t.rejects(spdy.openStream(headers), StreamClosedError, JSON.stringify(headers));
  }
  const ok = await pair(spdy, 8080, 7);
  t.match((await httpGet(ok, '/')).response, /200 OK/, 'the connection goes on');
  spdy.close();
});

t.test('refusals before the upgrade: unknown pod, other subprotocols, the node\'s cap', async (t) => {
  const server = await setup(t, { maxConcurrentStreams: 1 });
  await t.rejects(tunnel(t, url(server, '/portForward/shop/ghost')), { status: 404, message: /pod shop\/ghost does not exist on node vk-1/ });
  await t.rejects(tunnel(t, url(server, '/portForward/shop/web/u2')), { status: 404, message: /does not exist/ }, 'a pod of another UID');
  await t.rejects(tunnel(t, url(server), ['v4.channel.k8s.io']), { status: 400, message: /SPDY\/3.1\+portforward.k8s.io/ });
  const spdy = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpsRequest(`https://127.0.0.1:${server.port}/portForward/shop/web`, {
      method: 'POST', rejectUnauthorized: false,
      headers: { authorization: 'Bearer good', connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'portforward.k8s.io' },
    }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
  t.equal(spdy.status, 400, 'a plain SPDY upgrade (an API server without the gates) is refused');
  t.match(spdy.body, /SPDY\/3.1\+portforward.k8s.io.*ExtendWebSocketsToKubelet/);
  const held = await tunnel(t, url(server));
  await t.rejects(tunnel(t, url(server)), { status: 429, message: /too many concurrent streams/ });
  held.spdy.close();
  await waitFor('slot free', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 10 });
});

/** The session alone, on a loopback WebSocket pair, with a fake provider call. */
async function session(t: Test, options: Omit<PortForwardSessionOptions, 'socket' | 'pod'>): Promise<{ spdy: SpdyConnection; client: WebSocket; done: Promise<void> }> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(http.address() as AddressInfo).port}`);
  client.on('error', () => undefined);
  await new Promise((resolve) => client.once('open', resolve));
  const done = runPortForwardSession({ socket: await accepted, pod: 'shop/web', ...options });
  t.teardown(async () => {
    client.terminate();
    await done;
    wss.close();
    await new Promise((resolve) => http.close(resolve));
  });
  return { spdy: new SpdyConnection({ socket: client, role: 'client' }), client, done };
}

/** A provider call that holds the connection until aborted, and counts its calls. */
function holding(): { forward: PortForwardSessionOptions['forward']; calls: () => number; aborted: () => number } {
  let calls = 0;
  let aborted = 0;
  return {
    calls: () => calls,
    aborted: () => aborted,
    forward: (_port, _connection, signal) => new Promise((_resolve, reject) => {
      calls++;
      signal.addEventListener('abort', () => {
        aborted++;
        reject(signal.reason as Error);
      }, { once: true });
    }),
  };
}

t.test('a pair whose data stream never comes times out on its error stream', async (t) => {
  const provider = holding();
  const { spdy } = await session(t, { forward: provider.forward, pairTimeoutMs: 50 });
  const error = await spdy.openStream([['streamType', 'error'], ['port', '80'], ['requestID', '3']]);
  t.equal(await readAll(error), 'timed out waiting for the data stream of request 3 (port 80)');
  t.equal(provider.calls(), 0);
});

t.test('the client resetting the data stream aborts the provider and ends the error stream', async (t) => {
  const provider = holding();
  const { spdy } = await session(t, { forward: provider.forward });
  const streams = await pair(spdy, 80, 0);
  await waitFor('forwarding', () => provider.calls() === 1, { timeoutMs: 5_000, intervalMs: 5 });
  streams.data.reset();
  t.equal(await readAll(streams.error), '', 'the error stream ends without a message');
  t.equal(provider.aborted(), 1);
});

t.test('beyond the cap on pairs the error stream says so; an idle connection closes', async (t) => {
  const provider = holding();
  const { spdy, done } = await session(t, { forward: provider.forward, maxPairs: 1, idleTimeoutMs: 300 });
  await pair(spdy, 80, 0);
  const second = await pair(spdy, 80, 1);
  t.match(await readAll(second.error), /too many forwarded connections to pod shop\/web \(at most 1 at once\)/);
  t.match(await spdy.closed, { code: 1000, reason: 'idle timeout' });
  await done;
  t.equal(provider.aborted(), 1, 'the held connection was aborted');
});

t.test('an abrupt close aborts every provider call and the session settles', async (t) => {
  const provider = holding();
  const { spdy, client, done } = await session(t, { forward: provider.forward });
  await Promise.all([pair(spdy, 80, 0), pair(spdy, 81, 1)]);
  await waitFor('forwarding', () => provider.calls() === 2, { timeoutMs: 5_000, intervalMs: 5 });
  client.terminate();
  await done;
  t.equal(provider.aborted(), 2);
});

t.test('a client breaking the SPDY protocol is told once to onProtocolError, and the session settles', async (t) => {
  const told: string[] = [];
  const { client, done } = await session(t, { forward: holding().forward, onProtocolError: (reason) => told.push(reason) });
  client.send('not SPDY');
  await done;
  t.same(told, ['spdy-protocol-error']);
});

t.test('a port-forward connection closed for a protocol reason is counted by the kubelet as a protocol-error rejection', async (t) => {
  const provider = new SimulatedProvider({ startLatencyMs: 0 });
  provider.notifyPods(() => undefined);
  const rejected: RejectionReason[] = [];
  await provider.createPod(structuredClone(pod));
  await waitFor('web running', async () => (await provider.getPodStatus('shop', 'web'))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  const server = await startKubeletServer({
    nodeName: 'vk-1', provider, reviewer: new FakeAccessReviewer(), address: '127.0.0.1', port: 0, rejections: { onRejected: (reason) => rejected.push(reason) },
  });
  t.teardown(async () => {
    await server.stop();
    void provider.stop();
  });
  const { socket } = await tunnel(t, url(server));
  const closed = new Promise<number>((resolve) => socket.once('close', resolve));
  socket.send(Buffer.from([0x80, 0x02, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1]));
  t.equal(await closed, 1002);
  await waitFor('the rejection counted', () => rejected.includes('protocol-error'), { timeoutMs: 5_000, intervalMs: 5 });
  t.same(rejected, ['protocol-error'], 'counted once');
});

t.test('a provider\'s message longer than MAX_ERROR_MESSAGE_BYTES is cut on the error stream, on a character boundary', async (t) => {
  const { spdy } = await session(t, { forward: () => Promise.reject(new Error('é'.repeat(100_000))) });
  const streams = await pair(spdy, 80, 0);
  const text = await readAll(streams.error);
  t.match(text, /^error forwarding port 80 to pod shop\/web: éé/);
  t.ok(Buffer.byteLength(text) <= MAX_ERROR_MESSAGE_BYTES, `${Buffer.byteLength(text)} bytes`);
  t.notOk(text.includes('\ufffd'), 'no character cut in half');
});

t.test('what the client writes on an error stream is dropped and never holds the connection', async (t) => {
  const provider = holding();
  const { spdy } = await session(t, { forward: provider.forward });
  // kubectl half-closes its error streams at once; a hostile client writes on one instead.
  const error = await spdy.openStream([['streamType', 'error'], ['port', '80'], ['requestID', '0']]);
  await spdy.openStream([['streamType', 'data'], ['port', '80'], ['requestID', '0']]);
  await waitFor('forwarding', () => provider.calls() === 1, { timeoutMs: 5_000, intervalMs: 5 });
  await error.write(Buffer.alloc(1024 * 1024, 'x'));
  await pair(spdy, 81, 1);
  await waitFor('the next pair forwarded', () => provider.calls() === 2, { timeoutMs: 5_000, intervalMs: 5 });
  t.pass('the connection is still read');
});
