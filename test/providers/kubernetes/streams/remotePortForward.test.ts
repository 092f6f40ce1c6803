/**
 * One port-forwarded connection relayed to a remote API server (remotePortForward.ts), against a
 * fake remote speaking SPDY/3.1 tunnelled in a WebSocket on loopback (issue 22): backpressure
 * both ways, so neither a remote pod that stops reading nor a host client that stops reading
 * grows Tether's memory beyond the stated bounds; the remote's error stream is bounded.
 */
import http from 'node:http';
import t, { type Test } from 'tap';
import type { KubeConfig } from '@kubernetes/client-node';
import { WebSocketServer, type WebSocket } from 'ws';
import { SpdyConnection, type SpdyStream } from '../../../../src/adapters/spdy/connection.js';
import { headerValue } from '../../../../src/adapters/spdy/headerBlock.js';
import { answerWithTunnelProtocol, openTunnelSocket, prepareTunnelRequest } from '../../../../src/adapters/spdy/tunnelProtocol.js';
import { providerKindOf } from '../../../../src/providers/errors.js';
import type { PortConnection } from '../../../../src/providers/provider.js';
import { MAX_ERROR_STREAM_BYTES, remotePortForwardRelay } from '../../../../src/providers/kubernetes/streams/remotePortForward.js';
import { REMOTE_MAX_PAYLOAD_BYTES } from '../../../../src/providers/kubernetes/streams/remoteSocketFlow.js';
import { countedSource, loopbackKubeConfig, silentRemote } from '../../../support/streamFlow.js';
import { drain, until } from '../../../support/until.js';

interface FakeRemote {
  readonly kubeConfig: KubeConfig;
  readonly relay: ReturnType<typeof remotePortForwardRelay>;
  /** Tether's side of the tunnel, and the bytes it has received on it. */
  readonly client: () => WebSocket | undefined;
  readonly received: () => number;
}

/** A remote whose port-forward runs `data` on the data stream and `error` on the error stream. */
async function fakeRemote(t: Test, streams: { data: (s: SpdyStream) => void; error?: (s: SpdyStream) => void }): Promise<FakeRemote> {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  answerWithTunnelProtocol(wss);
  const connections: SpdyConnection[] = [];
  const server = http.createServer();
  server.on('upgrade', (req, socket, head) => {
    prepareTunnelRequest(req);
    wss.handleUpgrade(req, socket, head, (ws) => {
      connections.push(new SpdyConnection({
        socket: ws,
        role: 'server',
        onStream: (stream) => {
          const type = headerValue(stream.headers, 'streamType');
          if (type === 'error') (streams.error ?? ((s) => void s.end()))(stream);
          else streams.data(stream);
          return true;
        },
      }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const c of connections) c.close();
    server.closeAllConnections();
    server.close();
  });
  const kubeConfig = loopbackKubeConfig(server);
  let client: WebSocket | undefined;
  let received = 0;
  const relay = remotePortForwardRelay((url, options) => {
    t.equal(options.maxPayload, REMOTE_MAX_PAYLOAD_BYTES, 'the tunnel refuses oversized messages');
    const opened = openTunnelSocket(url, options);
    client = opened.socket;
    opened.socket.on('message', (data: Buffer) => void (received += data.length));
    return opened;
  });
  return { kubeConfig, relay, client: () => client, received: () => received };
}

const target = { namespace: 'shop-remote', pod: 'web', port: 8080 };
const CHUNK = 64 * 1024;

t.test('bytes towards a remote pod that stops reading: the host side is no longer pulled, Tether holds one frame', async (t) => {
  const remote = await fakeRemote(t, { data: () => undefined }); // the pod never reads
  const client = countedSource(Buffer.alloc(CHUNK, 'p'));
  const abort = new AbortController();
  const connection: PortConnection = { input: client.input, write: async () => undefined };
  const relay = remote.relay(remote.kubeConfig, target, connection, 'port-forward', abort.signal);
  await until('the tunnel backs up into Tether', () => (remote.client()?.bufferedAmount ?? 0) > 0, 30_000);
  await drain(50);
  const stalledAt = client.pulled();
  await drain(200);
  t.equal(client.pulled(), stalledAt, 'the host side is no longer pulled');
  t.ok(stalledAt < 64 * 1024 * 1024, 'not read to its end');
  const held = remote.client()?.bufferedAmount ?? 0;
  t.ok(held <= CHUNK + 64, `Tether holds at most one data frame (${held} bytes)`);
  abort.abort();
  await relay;
});

t.test('the pod\'s answer towards a host client that does not read: the remote is read only up to a bound', async (t) => {
  let remoteWritten = 0;
  const remote = await fakeRemote(t, {
    data: (stream) => void (async () => {
      // The answer starts once the request has come, so Tether has the stream's reply in hand.
      for await (const request of stream.input) if (request.length > 0) break;
      const chunk = Buffer.alloc(CHUNK, 'a');
      while (remoteWritten < 64 * 1024 * 1024) {
        await stream.write(chunk);
        remoteWritten += chunk.length;
      }
    })().catch(() => undefined),
  });
  let handed = 0;
  const connection: PortConnection = {
    input: (async function* (): AsyncGenerator<Buffer> {
      yield Buffer.from('GET / HTTP/1.1\r\n\r\n');
      await new Promise(() => undefined);
    })(),
    write: (chunk) => {
      handed += chunk.length;
      return new Promise<void>(() => undefined); // the host client never takes it
    },
  };
  const abort = new AbortController();
  const relay = remote.relay(remote.kubeConfig, target, connection, 'port-forward', abort.signal);
  await until('the first answer is handed to the host', () => handed > 0, 10_000);
  await drain(100);
  const writtenAt = remoteWritten;
  await drain(200);
  t.equal(remoteWritten, writtenAt, 'the remote can no longer write');
  // The stream's reader buffer (256 KiB each side of its PassThrough), one read of the socket
  // (64 KiB), the chunk handed on, and frame headers.
  const bound = 2 * 256 * 1024 + 64 * 1024 + CHUNK + 4096;
  const held = remote.received() - handed;
  t.ok(held <= bound, `Tether holds at most ${bound} bytes of the answer (${held})`);
  abort.abort();
  await relay;
  t.pass('the caller leaving settles the relay, though the host never took the answer');
});

t.test('an endless error stream from the remote is kept to its bound, and rejects with the remote\'s words', async (t) => {
  const remote = await fakeRemote(t, {
    error: (stream) => void (async () => {
      await stream.write(Buffer.from('error forwarding port 8080: connection refused; '));
      for (let i = 0; i < 64; i++) await stream.write(Buffer.alloc(CHUNK, 'e'));
      await stream.end();
    })().catch(() => undefined),
    data: (stream) => void stream.end(),
  });
  const connection: PortConnection = { input: (async function* (): AsyncGenerator<Buffer> {})(), write: async () => undefined };
  const error: unknown = await remote.relay(remote.kubeConfig, target, connection, 'port-forward').catch((e: unknown) => e);
  t.equal(providerKindOf(error), 'invalid-input');
  t.match(String(error), /port-forward: error forwarding port 8080: connection refused/);
  t.ok(String(error).length <= MAX_ERROR_STREAM_BYTES + 100, `the message is bounded (${String(error).length} characters)`);
});

t.test('a connection both sides end relays every byte, in order', async (t) => {
  const remote = await fakeRemote(t, {
    data: (stream) => void (async () => {
      for await (const chunk of stream.input) await stream.write(Buffer.from(chunk.toString().toUpperCase()));
      await stream.end();
    })().catch(() => undefined),
  });
  let answer = '';
  const connection: PortConnection = {
    input: (async function* (): AsyncGenerator<Buffer> {
      yield Buffer.from('hello ');
      yield Buffer.from('remote');
    })(),
    write: async (chunk) => void (answer += chunk.toString()),
  };
  await remote.relay(remote.kubeConfig, target, connection, 'port-forward');
  t.equal(answer, 'HELLO REMOTE');
});

t.test('a caller that leaves while the remote has not answered the upgrade settles the relay and closes the tunnel socket', async (t) => {
  const remote = await silentRemote(t);
  let tunnel: WebSocket | undefined;
  const relay = remotePortForwardRelay((url, options) => {
    const opened = openTunnelSocket(url, options);
    tunnel = opened.socket;
    return opened;
  });
  const abort = new AbortController();
  const nothing: PortConnection = { input: (async function* (): AsyncGenerator<Buffer> {})(), write: async () => undefined };
  const relayed = relay(remote.kubeConfig, target, nothing, 'port-forward', abort.signal);
  await until('the remote holds the upgrade request', () => remote.held.length === 1);
  abort.abort(new Error('the client left'));
  await t.rejects(relayed, /the client left/, 'the relay settles with the caller\'s reason');
  await until('Tether\'s tunnel socket is closed', () => tunnel?.readyState === 3);
  await until('the remote sees the connection go', () => remote.gone(0));
});
