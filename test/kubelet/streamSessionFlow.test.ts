/**
 * Flow control of one exec/attach session towards the host client (streamSession.ts, issue 22):
 * output to a client that does not read stalls the provider's writes with a bounded amount held
 * by Tether; stdin the provider does not read pauses the client's socket instead of piling up
 * (and without piling up listeners); a flood of resizes costs one pending size.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PassThrough } from 'node:stream';
import t, { type Test } from 'tap';
import { WebSocket, WebSocketServer } from 'ws';
import { encodeFrame, RESIZE, STDIN } from '../../src/kubelet/channelProtocol.js';
import { runStreamSession, type StreamSessionOptions } from '../../src/kubelet/streamSession.js';
import type { ContainerStreams, TerminalSize } from '../../src/providers/provider.js';
import { drain, until } from '../support/until.js';

interface Session {
  /** Tether's side of the socket. */
  readonly server: () => WebSocket | undefined;
  readonly client: WebSocket;
  readonly ended: Promise<void>;
}

/** A session on loopback: `run` is the provider's call; the client speaks v5.channel.k8s.io. */
async function session(t: Test, options: Partial<StreamSessionOptions['options']>, run: StreamSessionOptions['run']): Promise<Session> {
  const httpServer = http.createServer();
  const wss = new WebSocketServer({ server: httpServer, perMessageDeflate: false, handleProtocols: () => 'v5.channel.k8s.io' });
  let server: WebSocket | undefined;
  let ended: Promise<void> = Promise.resolve();
  wss.on('connection', (ws) => {
    server = ws;
    ended = runStreamSession({ socket: ws, protocol: 'v5.channel.k8s.io', options: { stdin: false, stdout: true, stderr: false, tty: false, ...options }, run });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const ws of wss.clients) ws.terminate();
    httpServer.closeAllConnections();
    httpServer.close();
  });
  const client = new WebSocket(`ws://127.0.0.1:${(httpServer.address() as AddressInfo).port}`, ['v5.channel.k8s.io'], { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    client.once('open', () => resolve());
    client.once('error', reject);
  });
  await until('the session runs', () => server !== undefined);
  return { server: () => server, client, ended: new Promise((resolve) => void until('started', () => server !== undefined).then(() => ended.then(resolve))) };
}

const CHUNK = 64 * 1024;

t.test('output to a client that does not read stalls the provider\'s writes; Tether holds at most one chunk per output channel', async (t) => {
  let written = 0;
  let writeFailed = false;
  const s = await session(t, { stdout: true, stderr: true }, async (streams, signal) => {
    const chunk = Buffer.alloc(CHUNK, 'o');
    try {
      // Ends at 64 MiB so that a writer that does not wait fails the test rather than the machine.
      while (!signal.aborted && written < 64 * 1024 * 1024) {
        await Promise.all([streams.stdout?.(chunk), streams.stderr?.(chunk)]);
        written += 2 * CHUNK;
      }
    } catch {
      writeFailed = true;
    }
    return undefined;
  });
  s.client.pause();
  const server = s.server() as WebSocket;
  await until('the kernel buffers towards the client are full and Tether holds bytes itself', () => server.bufferedAmount > 0, 30_000);
  await drain(50);
  const stalledAt = written;
  await drain(200);
  t.equal(written, stalledAt, 'no write completes while the client does not read');
  t.ok(written < 64 * 1024 * 1024, 'the provider did not write to its end');
  t.ok(server.bufferedAmount <= 2 * (CHUNK + 1 + 10), `Tether holds at most a chunk per channel (${server.bufferedAmount} bytes)`);
  s.client.terminate();
  await s.ended;
  t.ok(writeFailed, 'the client leaving fails the pending write, so the provider stops');
});

t.test('stdin the provider does not read pauses the client\'s socket: bounded, and one drain listener however many messages', async (t) => {
  let stdin: PassThrough | undefined;
  let release = (): void => undefined;
  const s = await session(t, { stdin: true }, async (streams, signal) => {
    stdin = streams.stdin as PassThrough;
    await new Promise<void>((resolve) => {
      release = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    let read = 0;
    for await (const chunk of streams.stdin ?? []) read += (chunk as Buffer).length;
    return read === sent * 1023 ? 0 : 1;
  });
  // Small messages, so that one read of the socket holds many of them.
  const message = encodeFrame(STDIN, Buffer.alloc(1023, 'i'));
  let sent = 0;
  let feeding = true;
  const feed = (): void => {
    while (feeding && s.client.bufferedAmount < 256 * 1024) {
      s.client.send(message);
      sent += 1;
    }
    if (!feeding) return;
    sent += 1;
    s.client.send(message, () => feed());
  };
  feed();
  await until('the client can no longer send', () => s.client.bufferedAmount >= 256 * 1024, 30_000);
  await drain(50);
  t.ok(s.server()?.isPaused, 'Tether stopped reading the client');
  const held = stdin?.readableLength ?? 0;
  t.ok(held <= 16 * 1024 + 64 * 1024 + 2 * 1024, `Tether holds at most the stdin buffer and one read of the socket (${held} bytes)`);
  t.ok((stdin?.listenerCount('drain') ?? 0) <= 1, `one drain listener (${stdin?.listenerCount('drain') ?? 0})`);
  feeding = false;
  s.client.send(Buffer.from([255, STDIN]));
  release();
  let code: string | undefined;
  s.client.on('message', (data: Buffer) => {
    if (data[0] === 3) code = data.subarray(1).toString('utf8');
  });
  s.client.resume();
  await s.ended;
  t.match(code, /"status":"Success"/, 'once the provider reads, every byte sent arrives, once');
});

t.test('a flood of resizes the provider does not take costs one pending size, the newest', async (t) => {
  let marker = false;
  const s = await session(t, { tty: true, stdin: true }, async (streams: ContainerStreams) => {
    const sizes: AsyncIterable<TerminalSize> | undefined = streams.resize;
    if (!sizes) throw new Error('a tty session has resizes');
    // The stdin marker comes after every resize: once it is read, all resizes have been handled.
    for await (const chunk of streams.stdin ?? []) if ((chunk as Buffer).toString() === 'marker') break;
    marker = true;
    const iterator = sizes[Symbol.asyncIterator]();
    const first = await iterator.next();
    const second = await Promise.race([iterator.next(), drain(20).then(() => 'nothing more' as const)]);
    t.same(first.value, { width: 10_000 % 500, height: 24 }, 'the newest size');
    t.equal(second, 'nothing more', 'and no older one queued behind it');
    return 0;
  });
  for (let i = 1; i <= 10_000; i++) s.client.send(encodeFrame(RESIZE, JSON.stringify({ Width: i % 500, Height: 24 })));
  s.client.send(encodeFrame(STDIN, Buffer.from('marker')));
  await s.ended;
  t.ok(marker);
});
