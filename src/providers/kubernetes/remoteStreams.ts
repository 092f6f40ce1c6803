/**
 * exec and attach forwarded to the remote pod through the remote API server, over the same
 * `v5.channel.k8s.io` WebSocket protocol kubectl speaks (kubelet/channelProtocol.ts describes the
 * framing): the host side's stdin and resizes are sent on, the remote's stdout and stderr written
 * back with backpressure, and the remote's Status becomes the exit code (NonZeroExitCode) or an
 * error carrying the remote's message unchanged. An HTTP refusal before the upgrade (unknown pod,
 * bad container, forbidden) rejects classified, with the remote's message.
 * client-node's Exec/Attach hand output to plain Writables without backpressure or half-close,
 * hence this small relay on `ws` with the kubeconfig's TLS and credentials.
 */
import WebSocket from 'ws';
import type { ClientOptions, RawData } from 'ws';
import type { KubeConfig } from '@kubernetes/client-node';
import { invalidInput, notFound, transient } from '../errors.js';
import type { ContainerStreams } from '../provider.js';

const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

interface RemoteStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: { causes?: Array<{ reason?: string; type?: string; message?: string }> };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function frame(channel: number, data: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from([channel]), typeof data === 'string' ? Buffer.from(data) : data]);
}

/** The exit code of a remote Status, or an error with the remote's message. */
export function exitCodeOf(status: RemoteStatus, operation: string): number {
  if (status.status === 'Success') return 0;
  if (status.reason === 'NonZeroExitCode') {
    const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode' || c.type === 'ExitCode');
    const code = Number(cause?.message);
    if (Number.isInteger(code)) return code;
  }
  throw invalidInput(status.message ?? `${operation} failed on the remote cluster`);
}

function refusal(code: number, body: string, operation: string): Error {
  let message = body.trim();
  try {
    message = (JSON.parse(body) as RemoteStatus).message ?? message;
  } catch {
    // not a Status: the body as it is
  }
  const text = `${operation}: ${message || `HTTP ${code}`}`;
  return code === 404 ? notFound(text) : code === 400 || code === 403 || code === 422 ? invalidInput(text) : transient(text);
}

/** Opens a WebSocket to `url` with the kubeconfig's TLS and credentials in `options`. */
export type OpenSocket = (url: string, options: ClientOptions) => WebSocket;

const openChannelSocket: OpenSocket = (url, options) => new WebSocket(url, PROTOCOLS, options);

/**
 * A WebSocket to `path` on the remote API server, open; a refusal before the upgrade rejects
 * classified with the remote's message. The handshake has a 30 s deadline.
 */
export async function connectRemote(kubeConfig: KubeConfig, path: string, operation: string, open: OpenSocket = openChannelSocket): Promise<WebSocket> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw invalidInput(`${operation}: the remote kubeconfig names no server`);
  const options: ClientOptions = { handshakeTimeout: 30_000, perMessageDeflate: false };
  await kubeConfig.applyToHTTPSOptions(options);
  // A pooled keep-alive agent would keep the upgraded socket's slot: connect on a fresh one.
  delete options.agent;
  const socket = open(`${server.replace(/^http/, 'ws').replace(/\/$/, '')}${path}`, options);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => reject(refusal(res.statusCode ?? 0, body, operation)));
      res.on('error', () => reject(refusal(res.statusCode ?? 0, body, operation)));
    });
    socket.once('error', (error) => reject(transient(`${operation}: ${error.message}`)));
  });
}

/** Relays one remote exec/attach session (`path` on the remote API server) to `streams`. */
export async function relayRemoteStream(
  kubeConfig: KubeConfig,
  path: string,
  streams: ContainerStreams,
  operation: string,
  signal?: AbortSignal,
): Promise<number | undefined> {
  signal?.throwIfAborted();
  const socket = await connectRemote(kubeConfig, path, operation);
  socket.on('error', () => undefined);
  const stop = (): void => socket.close(1000);
  signal?.addEventListener('abort', stop, { once: true });
  let status: RemoteStatus | undefined;
  let writes = Promise.resolve();
  socket.on('message', (data) => {
    const message = toBuffer(data);
    const channel = message[0];
    const payload = message.subarray(1);
    if (channel === 3 && payload.length > 0) {
      try {
        status = JSON.parse(payload.toString('utf8')) as RemoteStatus;
      } catch {
        status = { status: 'Failure', message: payload.toString('utf8') };
      }
      return;
    }
    const write = channel === 1 ? streams.stdout : channel === 2 ? streams.stderr : undefined;
    if (!write || payload.length === 0) return;
    socket.pause();
    writes = writes.then(() => write(payload)).then(() => socket.resume(), () => socket.close(1000));
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const send = (data: Buffer): void => {
    if (socket.readyState === WebSocket.OPEN) socket.send(data);
  };
  if (streams.stdin) void (async () => {
    for await (const chunk of streams.stdin ?? []) send(frame(0, chunk));
    if (socket.protocol === 'v5.channel.k8s.io') send(Buffer.from([255, 0]));
  })().catch(() => undefined);
  if (streams.resize) void (async () => {
    for await (const size of streams.resize ?? []) send(frame(4, JSON.stringify({ Width: size.width, Height: size.height })));
  })().catch(() => undefined);
  try {
    await closed;
    await writes.catch(() => undefined);
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  if (status) return exitCodeOf(status, operation);
  if (signal?.aborted) return undefined;
  throw transient(`${operation}: the remote closed the stream without a status`);
}
