/**
 * exec and attach forwarded to the remote pod through the remote API server, over the same
 * `v5.channel.k8s.io` WebSocket protocol kubectl speaks (kubelet/channelProtocol.ts describes the
 * framing): the host side's stdin and resizes are sent on, the remote's stdout and stderr written
 * back, and the remote's Status becomes the exit code (NonZeroExitCode) or an error carrying the
 * remote's message unchanged. An HTTP refusal before the upgrade (unknown pod, bad container,
 * forbidden) rejects classified, with the remote's message.
 * Backpressure both ways (remoteSocketFlow.ts): stdin and resizes are taken from the host side
 * only as fast as the remote reads them (at most REMOTE_SEND_HIGH_WATER_BYTES, 256 KiB, plus one
 * chunk held), and the remote is read only as fast as the host client takes its output (at most
 * REMOTE_RECEIVE_HIGH_WATER_BYTES, 64 KiB, plus one socket read held).
 * client-node's Exec/Attach hand output to plain Writables without backpressure or half-close,
 * hence this small relay on `ws` with the kubeconfig's TLS and credentials.
 */
import WebSocket from 'ws';
import type { ClientOptions } from 'ws';
import type { KubeConfig } from '@kubernetes/client-node';
import { onAbort } from '../../../lib/abortFanOut.js';
import { invalidInput, transient } from '../../errors.js';
import type { ContainerStreams } from '../../provider.js';
import { boundedBody, MAX_REFUSAL_BODY_BYTES, refusal } from './remoteRefusal.js';
import { receivePaced, REMOTE_MAX_PAYLOAD_BYTES, sendPaced } from './remoteSocketFlow.js';

const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

interface RemoteStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: { causes?: Array<{ reason?: string; type?: string; message?: string }> };
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

/** Opens a WebSocket to `url` with the kubeconfig's TLS and credentials in `options`. */
export type OpenSocket = (url: string, options: ClientOptions) => WebSocket;

const openChannelSocket: OpenSocket = (url, options) => new WebSocket(url, PROTOCOLS, options);

/** Resolves as `work` does, or rejects with the signal's reason once it aborts. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const unsubscribe = onAbort(signal, () => reject(signal.reason));
    work.then(resolve, reject).finally(unsubscribe);
  });
}

/**
 * A WebSocket to `path` on the remote API server, open; a refusal before the upgrade rejects
 * classified with the remote's message. The handshake has a 30 s deadline. A `signal` that
 * aborts before the socket is open (while the credentials are fetched, during the handshake,
 * while a refusal's body is read) rejects with its reason at once and terminates the socket, so
 * a caller that leaves never holds a connection to the remote.
 */
export async function connectRemote(
  kubeConfig: KubeConfig, path: string, operation: string, open: OpenSocket = openChannelSocket, signal?: AbortSignal,
): Promise<WebSocket> {
  signal?.throwIfAborted();
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw invalidInput(`${operation}: the remote kubeconfig names no server`);
  const options: ClientOptions = { handshakeTimeout: 30_000, perMessageDeflate: false, maxPayload: REMOTE_MAX_PAYLOAD_BYTES };
  // An exec-credential plugin may take its time: a caller that leaves meanwhile does not wait for it.
  await unlessAborted(kubeConfig.applyToHTTPSOptions(options), signal);
  signal?.throwIfAborted();
  // A pooled keep-alive agent would keep the upgraded socket's slot: connect on a fresh one.
  delete options.agent;
  const socket = open(`${server.replace(/^http/, 'ws').replace(/\/$/, '')}${path}`, options);
  // ws reports an aborted handshake as an error too: never unhandled.
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let unsubscribe = (): void => undefined;
    const settle = (outcome: () => void): void => {
      unsubscribe();
      outcome();
    };
    socket.once('open', () => settle(() => resolve(socket)));
    socket.once('unexpected-response', (_req, res) => {
      void boundedBody(res, MAX_REFUSAL_BODY_BYTES, { signal }).then((body) => settle(() => reject(refusal(res.statusCode ?? 0, body, operation))));
    });
    socket.once('error', (error) => settle(() => reject(transient(`${operation}: ${error.message}`))));
    if (signal) unsubscribe = onAbort(signal, () => {
      // Rejected first: terminating reports an error of its own.
      reject(signal.reason);
      socket.terminate();
    });
  });
}

/** Relays one remote exec/attach session (`path` on the remote API server) to `streams`. */
export type RemoteStreamRelay = (
  kubeConfig: KubeConfig, path: string, streams: ContainerStreams, operation: string, signal?: AbortSignal,
) => Promise<number | undefined>;

/** The relay, opening its sockets with `open` (tests watch the socket Tether opens). */
export const remoteStreamRelay = (open: OpenSocket = openChannelSocket): RemoteStreamRelay => async (kubeConfig, path, streams, operation, signal) => {
  let status: RemoteStatus | undefined;
  const relayOutput = (message: Buffer): Promise<void> | undefined => {
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
    return write && payload.length > 0 ? write(payload) : undefined;
  };
  let output: { settled: () => Promise<void> } | undefined;
  // Output is taken from the socket's creation on: what the remote sends along with its 101
  // answer is read before `open` has been seen here.
  const socket = await connectRemote(kubeConfig, path, operation, (url, options) => {
    const opened = open(url, options);
    output = receivePaced(opened, relayOutput, () => opened.close(1000));
    return opened;
  }, signal);
  socket.on('error', () => undefined);
  // Subscribed at once if the caller left between the socket's opening and here.
  const unsubscribe = signal ? onAbort(signal, () => socket.close(1000)) : (): void => undefined;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // Each loop takes its next item only once the last has been sent on (or is within the bound).
  if (streams.stdin) void (async () => {
    for await (const chunk of streams.stdin ?? []) await sendPaced(socket, frame(0, chunk));
    if (socket.protocol === 'v5.channel.k8s.io') await sendPaced(socket, Buffer.from([255, 0]));
  })().catch(() => undefined);
  if (streams.resize) void (async () => {
    for await (const size of streams.resize ?? []) await sendPaced(socket, frame(4, JSON.stringify({ Width: size.width, Height: size.height })));
  })().catch(() => undefined);
  try {
    await closed;
    await output?.settled();
  } finally {
    unsubscribe();
  }
  if (status) return exitCodeOf(status, operation);
  if (signal?.aborted) return undefined;
  throw transient(`${operation}: the remote closed the stream without a status`);
};

export const relayRemoteStream: RemoteStreamRelay = remoteStreamRelay();
