/**
 * Clients that misbehave on purpose against a kubelet port, written on raw TCP/TLS sockets so that
 * every byte is the attacker's choice: a request exchange that reports what came back (or that the
 * peer went away), upgrade requests abandoned before the server has decided, a WebSocket opened by
 * hand (masked client frames built here, so a frame split a byte per message costs the client
 * nothing), and the floods that run on it. Each flood is bounded by bytes and by time and stops by
 * itself; none of them reads what the server answers unless told to.
 */
import { randomBytes } from 'node:crypto';
import { connect as netConnect, createServer, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

export interface KubeletAddress {
  readonly address: string;
  readonly port: number;
}

/** Who the client says it is: a client certificate (PEM), a bearer token, or nobody. */
export interface ClientIdentity {
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
}

export interface Exchange {
  /** The HTTP status of the answer, if one came. */
  readonly status: number | undefined;
  /** The first bytes of the answer, for messages. */
  readonly head: string;
  /** How it ended: the peer closed (or reset) the connection, or it was still open at the deadline. */
  readonly ended: 'closed' | 'timeout';
  readonly error?: string;
}

export interface ExchangeOptions {
  readonly identity?: ClientIdentity;
  /** Plain TCP instead of TLS (bytes that are not a TLS handshake). */
  readonly plain?: boolean;
  /** Half-close after writing (the server sees EOF); default false. */
  readonly endAfterWrite?: boolean;
  readonly timeoutMs?: number;
  /** Source address of the connection (e.g. 127.0.0.1, to be another client than the test's others). */
  readonly localAddress?: string;
}

export function openSocket(target: KubeletAddress, options: Pick<ExchangeOptions, 'identity' | 'plain' | 'localAddress'>): Socket | TLSSocket {
  const where = { host: target.address, port: target.port, ...(options.localAddress ? { localAddress: options.localAddress } : {}) };
  if (options.plain) return netConnect(where);
  const { cert, key } = options.identity ?? {};
  return tlsConnect({ ...where, rejectUnauthorized: false, ...(cert && key ? { cert, key } : {}) });
}

const connectEvent = (options: Pick<ExchangeOptions, 'plain'>): 'connect' | 'secureConnect' => (options.plain ? 'connect' : 'secureConnect');

/** Sends `bytes` on a fresh connection and collects the answer until the peer closes or the deadline. */
export function exchange(target: KubeletAddress, bytes: Buffer | string, options: ExchangeOptions = {}): Promise<Exchange> {
  const socket = openSocket(target, options);
  const chunks: Buffer[] = [];
  let error: string | undefined;
  let finished = false;
  return new Promise((resolve) => {
    const finish = (ended: Exchange['ended']): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      const head = Buffer.concat(chunks).toString('latin1').slice(0, 400);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), head, ended, ...(error ? { error } : {}) });
    };
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs ?? 10_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e) => (error = e.message));
    socket.once('close', () => finish('closed'));
    socket.once(connectEvent(options), () => {
      if (options.endAfterWrite) socket.end(bytes);
      else socket.write(bytes);
    });
  });
}

/** A request's text, CRLF-separated, with the blank line that ends its headers. */
export function httpRequest(requestLine: string, headers: readonly string[]): string {
  return [requestLine, ...headers, '', ''].join('\r\n');
}

/** The headers of a WebSocket upgrade (RFC 6455), with `protocol` offered. */
export function upgradeHeaders(protocol: string, identity: ClientIdentity = {}): string[] {
  return [
    'Host: kubelet',
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    `Sec-WebSocket-Protocol: ${protocol}`,
    ...(identity.token ? [`Authorization: Bearer ${identity.token}`] : []),
  ];
}

/**
 * `count` upgrade requests for `path`, each connection reset (TCP RST, as when a client process
 * dies with bytes unread) `afterMs` after its request is written: the client is gone while the
 * server is still authenticating and authorizing it. The connections are opened first and the
 * requests sent one after another, so that the server reads each request before its reset.
 */
export async function abandonedUpgrades(target: KubeletAddress, path: string, identity: ClientIdentity, count: number, afterMs = 1): Promise<number> {
  const open = (): Promise<{ tcp: Socket; tls: TLSSocket } | undefined> => new Promise((resolve) => {
    const tcp = netConnect({ host: target.address, port: target.port });
    tcp.on('error', () => undefined);
    const { cert, key } = identity;
    const tls = tlsConnect({ socket: tcp, rejectUnauthorized: false, ...(cert && key ? { cert, key } : {}) });
    tls.on('error', () => resolve(undefined));
    tls.once('secureConnect', () => resolve({ tcp, tls }));
  });
  const connections = await Promise.all(Array.from({ length: count }, open));
  let written = 0;
  for (const connection of connections) {
    if (!connection) continue;
    const { tcp, tls } = connection;
    await new Promise<void>((resolve) => {
      tls.once('close', () => resolve());
      tls.write(httpRequest(`GET ${path} HTTP/1.1`, upgradeHeaders('v5.channel.k8s.io', identity)), (error) => {
        if (!error) written++;
        setTimeout(() => {
          tcp.resetAndDestroy();
          tls.destroy();
        }, afterMs);
      });
    });
  }
  return written;
}

/** The first flight of a real TLS client (its ClientHello), captured from a local listener. */
export async function clientHello(): Promise<Buffer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    const hello = new Promise<Buffer>((resolve) => server.once('connection', (s: Socket) => s.once('data', (d: Buffer) => {
      resolve(d);
      s.destroy();
    })));
    const client = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    client.on('error', () => undefined);
    const bytes = await hello;
    client.destroy();
    return bytes;
  } finally {
    server.close();
  }
}

/** A masked client WebSocket frame (RFC 6455 section 5.2), binary unless told. */
export function clientFrame(payload: Buffer, opcode = 0x2): Buffer {
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 65_536 ? 2 : 8;
  const frame = Buffer.alloc(2 + extra + 4 + length);
  frame[0] = 0x80 | opcode;
  if (extra === 0) frame[1] = 0x80 | length;
  else if (extra === 2) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  const maskAt = 2 + extra;
  randomBytes(4).copy(frame, maskAt);
  for (let i = 0; i < length; i++) frame[maskAt + 4 + i] = (payload[i] as number) ^ (frame[maskAt + (i & 3)] as number);
  return frame;
}

/**
 * `data` split into one-byte binary messages, packed back to back in buffers of about `chunkBytes`
 * (7 bytes on the wire per byte of data: header, length, mask and the masked byte).
 */
export function* oneBytePerMessage(data: Buffer, chunkBytes = 64 * 1024): Generator<Buffer> {
  const perChunk = Math.max(1, Math.floor(chunkBytes / 7));
  for (let at = 0; at < data.length; at += perChunk) {
    const slice = data.subarray(at, at + perChunk);
    const out = Buffer.alloc(slice.length * 7);
    const mask = randomBytes(4);
    for (let i = 0; i < slice.length; i++) {
      const o = i * 7;
      out[o] = 0x82;
      out[o + 1] = 0x81;
      mask.copy(out, o + 2);
      out[o + 6] = (slice[i] as number) ^ (mask[0] as number);
    }
    yield out;
  }
}

export interface WebSocketTunnel {
  readonly socket: TLSSocket;
  /** The status line of the handshake's answer. */
  readonly status: number;
  readonly protocol: string | undefined;
  /** Settles when the server (or the network) has closed the connection. */
  readonly closed: Promise<void>;
  isClosed(): boolean;
}

/** A WebSocket opened by hand over TLS; rejects with the answer when it is not a 101. */
export function openWebSocket(target: KubeletAddress, path: string, protocol: string, identity: ClientIdentity, timeoutMs = 15_000): Promise<WebSocketTunnel> {
  const socket = openSocket(target, { identity }) as TLSSocket;
  let closed = false;
  const gone = new Promise<void>((resolve) => socket.once('close', () => {
    closed = true;
    resolve();
  }));
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to the WebSocket upgrade of ${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.off('data', onData);
      // Whatever the server sends from now on stays unread.
      socket.pause();
      const text = head.subarray(0, end).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      if (status !== 101) {
        socket.destroy();
        return reject(new Error(`the upgrade of ${path} was answered ${text.split('\r\n')[0] ?? ''}: ${head.subarray(end + 4).toString('utf8').trim()}`));
      }
      const chosen = /^sec-websocket-protocol:\s*(.+)$/im.exec(text)?.[1]?.trim();
      resolve({ socket, status, protocol: chosen, closed: gone, isClosed: () => closed });
    };
    socket.on('data', onData);
    socket.once('close', () => {
      clearTimeout(timer);
      reject(new Error(`the connection closed before the upgrade of ${path} was answered`));
    });
    socket.once('secureConnect', () => socket.write(httpRequest(`GET ${path} HTTP/1.1`, upgradeHeaders(protocol, identity))));
  });
}

export interface FloodResult {
  /** Bytes handed to the socket (the kernel may still hold some when the server closed). */
  readonly bytesWritten: number;
  /** The server closed the connection before the flood had sent everything. */
  readonly closedByServer: boolean;
  readonly elapsedMs: number;
}

/**
 * Writes `chunks` to the tunnel as fast as the connection takes them (waiting for drain: the
 * client's own memory stays flat) until they run out, `budgetMs` passes or the server closes; the
 * socket is destroyed at the end either way.
 */
export async function flood(tunnel: WebSocketTunnel, chunks: Iterable<Buffer>, budgetMs: number): Promise<FloodResult> {
  const started = Date.now();
  let bytesWritten = 0;
  const deadline = started + budgetMs;
  const drained = (): Promise<void> => new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      tunnel.socket.off('drain', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
    tunnel.socket.once('drain', done);
    void tunnel.closed.then(done);
  });
  for (const chunk of chunks) {
    if (tunnel.isClosed() || Date.now() >= deadline) break;
    bytesWritten += chunk.length;
    if (!tunnel.socket.write(chunk)) await drained();
  }
  const closedByServer = tunnel.isClosed();
  tunnel.socket.destroy();
  return { bytesWritten, closedByServer, elapsedMs: Date.now() - started };
}

/** An HTTPS GET with `identity`, as a scraper makes it: the status code, or 0 when no answer came. */
export async function getStatus(target: KubeletAddress, path: string, identity: ClientIdentity, localAddress?: string): Promise<number> {
  const answer = await exchange(target, httpRequest(`GET ${path} HTTP/1.1`, [
    'Host: kubelet', 'Connection: close', ...(identity.token ? [`Authorization: Bearer ${identity.token}`] : []),
  ]), { identity, timeoutMs: 10_000, ...(localAddress ? { localAddress } : {}) });
  return answer.status ?? 0;
}
