/**
 * exec/attach relayed to a remote API server (remoteStreams.ts), against a fake remote speaking
 * v5.channel.k8s.io on loopback (issue 22): backpressure both ways, so neither a remote that
 * stops reading stdin nor a host client that stops reading output grows Tether's memory beyond
 * the stated bounds; and the relay still ends with the remote's Status.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import t, { type Test } from 'tap';
import type { KubeConfig } from '@kubernetes/client-node';
import { WebSocket, WebSocketServer } from 'ws';
import { remoteStreamRelay, type OpenSocket } from '../../../../src/providers/kubernetes/streams/remoteStreams.js';
import {
  REMOTE_MAX_PAYLOAD_BYTES, REMOTE_RECEIVE_HIGH_WATER_BYTES, REMOTE_SEND_HIGH_WATER_BYTES,
} from '../../../../src/providers/kubernetes/streams/remoteSocketFlow.js';
import { providerKindOf } from '../../../../src/providers/errors.js';
import { boundedBody, MAX_REFUSAL_BODY_BYTES } from '../../../../src/providers/kubernetes/streams/remoteRefusal.js';
import { countedSource, loopbackKubeConfig, silentRemote } from '../../../support/streamFlow.js';
import { drain, until } from '../../../support/until.js';

const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
const path = '/api/v1/namespaces/shop-remote/pods/web/exec?container=app&command=cat&stdin=true&stdout=true';
const success = Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify({ metadata: {}, status: 'Success' }))]);

interface FakeRemote {
  readonly kubeConfig: KubeConfig;
  /** Tether's side of each session, as the relay opened it. */
  readonly clients: WebSocket[];
  readonly open: OpenSocket;
  /** Output messages Tether's side has received (stdout and stderr frames), from the socket's creation on. */
  readonly received: () => number;
}

/** A remote API server whose exec endpoint runs `session` on each WebSocket. */
async function fakeRemote(t: Test, session: (ws: WebSocket) => void): Promise<FakeRemote> {
  const server = http.createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false, handleProtocols: (offered) => (offered.has(PROTOCOLS[0] as string) ? PROTOCOLS[0] as string : false) });
  wss.on('connection', session);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const ws of wss.clients) ws.terminate();
    server.closeAllConnections();
    server.close();
  });
  const kubeConfig = loopbackKubeConfig(server);
  const clients: WebSocket[] = [];
  let received = 0;
  const open: OpenSocket = (url, options) => {
    t.equal(options.maxPayload, REMOTE_MAX_PAYLOAD_BYTES, 'the remote socket refuses oversized messages');
    const ws = new WebSocket(url, PROTOCOLS, options);
    ws.on('message', (data: Buffer) => {
      if (data[0] === 1 || data[0] === 2) received += 1;
    });
    clients.push(ws);
    return ws;
  };
  return { kubeConfig, clients, open, received: () => received };
}

const CHUNK = 64 * 1024;

t.test('stdin towards a remote that stops reading stalls the host side once the send bound is in flight', async (t) => {
  let remoteReceived = 0;
  let remoteSocket: WebSocket | undefined;
  const remote = await fakeRemote(t, (ws) => {
    remoteSocket = ws;
    ws.pause(); // a command that does not read its stdin
    ws.on('message', (data: Buffer) => {
      if (data[0] === 0) remoteReceived += data.length - 1;
      if (data[0] === 255) {
        ws.send(success);
        ws.close(1000);
      }
    });
  });
  const stdin = countedSource(Buffer.alloc(CHUNK, 'z'));
  const relay = remoteStreamRelay(remote.open)(remote.kubeConfig, path, { tty: false, stdin: stdin.input }, 'exec in remote pod');
  await until('the kernel buffers towards the remote are full and Tether holds bytes itself', () => (remote.clients[0]?.bufferedAmount ?? 0) > REMOTE_SEND_HIGH_WATER_BYTES, 30_000);
  await drain(50);
  const stalledAt = stdin.pulled();
  await drain(200);
  t.equal(stdin.pulled(), stalledAt, 'stdin is no longer pulled while the remote does not read');
  const client = remote.clients[0] as WebSocket;
  t.ok(client.bufferedAmount <= REMOTE_SEND_HIGH_WATER_BYTES + CHUNK + 1, `Tether holds at most the high-water mark plus one chunk (${client.bufferedAmount} bytes)`);
  t.ok(stdin.pulled() < 64 * 1024 * 1024, 'stdin was not read to its end');

  stdin.stop();
  remoteSocket?.resume();
  t.equal(await relay, 0, 'the remote reads on, sees stdin close, and its Status ends the relay');
  t.equal(remoteReceived, stdin.pulled(), 'every byte pulled from stdin reached the remote, once');
});

t.test('output from the remote towards a host client that does not read: the remote is read only up to the receive bound', async (t) => {
  const message = Buffer.concat([Buffer.from([1]), Buffer.alloc(1023, 'o')]);
  const total = 16 * 1024;
  let sent = 0;
  const remote = await fakeRemote(t, (ws) => {
    // Sends as fast as its own socket lets it, then the Status.
    const pump = (): void => {
      while (sent < total && ws.bufferedAmount < 1024 * 1024) {
        sent += 1;
        ws.send(message);
      }
      if (sent < total) {
        sent += 1;
        ws.send(message, () => pump());
      } else {
        ws.send(success);
        ws.close(1000);
      }
    };
    pump();
  });
  const releases: Array<() => void> = [];
  let called = 0;
  let autoRelease = false;
  const stdout = (): Promise<void> => {
    called += 1;
    if (autoRelease) return Promise.resolve();
    return new Promise((resolve) => releases.push(resolve));
  };
  const relay = remoteStreamRelay(remote.open)(remote.kubeConfig, path, { tty: false, stdout }, 'exec in remote pod');
  let mostWaiting = 0;
  // The host client takes one write at a time, slowly: each release lets the event loop turn.
  for (let i = 0; i < 400; i++) {
    await until('a write towards the host is pending', () => releases.length > 0);
    mostWaiting = Math.max(mostWaiting, (remote.received() - called) * message.length);
    releases.shift()?.();
    await drain(3);
  }
  // The high-water mark, one read of the socket (64 KiB) delivered after the pause, and a frame straddling it.
  const bound = REMOTE_RECEIVE_HIGH_WATER_BYTES + 64 * 1024 + 2 * message.length;
  t.ok(mostWaiting <= bound, `at most ${bound} bytes of the remote's output wait in Tether (most seen: ${mostWaiting})`);
  t.ok(remote.received() < total, 'the remote was not read to its end');
  autoRelease = true;
  for (const release of releases.splice(0)) release();
  t.equal(await relay, 0, 'once the host reads again, the output flows to its end and the Status ends the relay');
  t.equal(called, total, `every message written to the host, once (${called} of ${total})`);
});

t.test('a remote that sends a message over the payload bound is cut off, and the relay rejects', async (t) => {
  const remote = await fakeRemote(t, (ws) => ws.send(Buffer.alloc(REMOTE_MAX_PAYLOAD_BYTES + 1, 1)));
  await t.rejects(remoteStreamRelay(remote.open)(remote.kubeConfig, path, { tty: false, stdout: () => Promise.resolve() }, 'exec in remote pod'),
    /exec in remote pod: the remote closed the stream without a status/);
});

t.test('resizes are sent on as the remote reads them, one at a time', async (t) => {
  const sizes: string[] = [];
  const remote = await fakeRemote(t, (ws) => {
    ws.on('message', (data: Buffer) => {
      if (data[0] !== 4) return;
      sizes.push(data.subarray(1).toString('utf8'));
      if (sizes.length === 2) {
        ws.send(success);
        ws.close(1000);
      }
    });
  });
  async function* resize(): AsyncGenerator<{ width: number; height: number }> {
    yield { width: 80, height: 24 };
    yield { width: 120, height: 40 };
  }
  t.equal(await remoteStreamRelay(remote.open)(remote.kubeConfig, path, { tty: true, resize: resize() }, 'attach'), 0);
  t.same(sizes, ['{"Width":80,"Height":24}', '{"Width":120,"Height":40}']);
});

t.test('a refused upgrade rejects with the remote\'s message and class, its body read up to a bound', async (t) => {
  const server = http.createServer();
  server.on('upgrade', (_req, socket) => {
    const body = JSON.stringify({ kind: 'Status', status: 'Failure', code: 404, message: 'pods "web" not found' });
    socket.end(`HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const kubeConfig = loopbackKubeConfig(server);
  const error: unknown = await remoteStreamRelay()(kubeConfig, path, { tty: false }, 'exec in remote pod').catch((e: unknown) => e);
  t.equal(providerKindOf(error), 'not-found');
  t.match(String(error), /exec in remote pod: pods "web" not found/);
});

t.test('a caller that leaves while the remote has not answered the upgrade settles the relay and closes the remote socket', async (t) => {
  const remote = await silentRemote(t);
  const opened: WebSocket[] = [];
  const abort = new AbortController();
  const relay = remoteStreamRelay((url, options) => {
    const ws = new WebSocket(url, PROTOCOLS, options);
    opened.push(ws);
    return ws;
  })(remote.kubeConfig, path, { tty: false, stdout: () => Promise.resolve() }, 'exec in remote pod', abort.signal);
  await until('the remote holds the upgrade request', () => remote.held.length === 1);
  abort.abort(new Error('the client left'));
  await t.rejects(relay, /the client left/, 'the relay settles with the caller\'s reason');
  await until('Tether\'s socket to the remote is closed', () => opened[0]?.readyState === WebSocket.CLOSED);
  await until('the remote sees the connection go', () => remote.gone(0));
});

t.test('a caller that leaves while the credentials are being fetched settles the relay and opens no socket', async (t) => {
  const remote = await silentRemote(t);
  let credentialsAsked = false;
  // An exec-credential plugin that never answers.
  remote.kubeConfig.applyToHTTPSOptions = () => {
    credentialsAsked = true;
    return new Promise<void>(() => undefined);
  };
  let opens = 0;
  const abort = new AbortController();
  const relay = remoteStreamRelay((url, options) => {
    opens += 1;
    return new WebSocket(url, PROTOCOLS, options);
  })(remote.kubeConfig, path, { tty: false }, 'exec in remote pod', abort.signal);
  await until('the credentials are being fetched', () => credentialsAsked);
  abort.abort(new Error('the client left'));
  await t.rejects(relay, /the client left/);
  t.equal(opens, 0, 'no socket to the remote was opened');
});

t.test('a caller that leaves while a refusal\'s body trickles in settles the relay', async (t) => {
  const server = http.createServer();
  const held: Socket[] = [];
  server.on('upgrade', (_req, socket: Socket) => {
    held.push(socket);
    socket.write('HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"message":');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of held) socket.destroy();
    server.close();
  });
  const abort = new AbortController();
  const relay = remoteStreamRelay()(loopbackKubeConfig(server), path, { tty: false }, 'exec in remote pod', abort.signal);
  await until('the remote has begun its refusal', () => held.length === 1);
  await drain(50);
  abort.abort(new Error('the client left'));
  await t.rejects(relay, /the client left|exec in remote pod/);
});

t.test('a refusal\'s body that never ends is read only until its deadline', async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(403, { 'Content-Type': 'application/json' });
    res.write('{"message":"forbid');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const res = await new Promise<http.IncomingMessage>((resolve) => http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, resolve));
  const body = await boundedBody(res, MAX_REFUSAL_BODY_BYTES, { deadlineMs: 20 });
  t.equal(body, '{"message":"forbid', 'what came before the deadline is kept');
  t.ok(res.destroyed, 'the rest is not read');
});
