/**
 * One exec or attach session over a WebSocket speaking a `channel.k8s.io` protocol
 * (channelProtocol.ts): the client's stdin and resizes go to the provider as async iterables, the
 * provider's output comes back as frames, and the end is a Status on the error channel followed by
 * a normal close (1000). Bounded: a session idle (no frame either way) for `idleTimeoutMs` ends
 * with a Failure Status; a protocol error ends with close code 1002; a client that goes away
 * aborts the provider's call. The returned promise settles only when the provider's call has
 * settled and the socket is closed, so a caller counting sessions never leaks one.
 * Backpressure both ways: stdin the provider does not take stops the reading of the client's
 * socket once the stdin buffer (16 KiB) is full, so Tether holds at most that plus one read of
 * the socket (64 KiB); resizes are the newest size only (LatestValue), however many the client
 * sends; an output write resolves once its frame has left for the kernel, so a client that does
 * not read stalls the provider with at most one frame per output channel held.
 * A paused socket is not read, so a client that leaves meanwhile (Ctrl-C on
 * `head -c 1M /dev/zero | kubectl exec -i pod -- sleep 86400`) sends a FIN or a close frame no
 * one sees: while paused, the session pings the client every `pausedPingIntervalMs` (30 s), and a
 * write to a peer that has gone fails and closes the socket, which ends the session. A client that
 * is there but does not read is left alone (it is paused for stdin only); pongs are not awaited.
 */
import { PassThrough } from 'node:stream';
import { WebSocket, type RawData } from 'ws';
import type { Logger } from '../adapters/logger.js';
import { LatestValue } from '../lib/latestValue.js';
import type { ContainerStreams, TerminalSize } from '../providers/provider.js';
import {
  decodeClientFrame, encodeFrame, ERROR, exitStatus, failureStatus, STDERR, STDIN, STDOUT,
  type ChannelProtocol, type EndStatus,
} from './channelProtocol.js';
import type { StreamOptions } from './streamRequest.js';
import { definedOnly } from '../lib/defaults.js';

/** Close codes (RFC 6455) a session ends with. */
export const CLOSE_NORMAL = 1000;
export const CLOSE_PROTOCOL_ERROR = 1002;

export interface StreamSessionOptions {
  readonly socket: WebSocket;
  readonly protocol: ChannelProtocol;
  readonly options: Omit<StreamOptions, 'command'>;
  /** The provider's call; its number is the exit code, undefined for "ended without one". */
  readonly run: (streams: ContainerStreams, signal: AbortSignal) => Promise<number | undefined>;
  /** Default 4 hours, the kubelet's streamingConnectionIdleTimeout. */
  readonly idleTimeoutMs?: number;
  /** How often a socket paused for stdin is pinged, to learn that its client has gone. Default 30 s. */
  readonly pausedPingIntervalMs?: number;
  readonly logger?: Logger;
  /** For messages: "exec in shop/web/app". */
  readonly description?: string;
}

export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 4 * 60 * 60 * 1000;
export const DEFAULT_PAUSED_PING_INTERVAL_MS = 30_000;

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export async function runStreamSession(session: StreamSessionOptions): Promise<void> {
  const { socket, protocol, options } = session;
  const idleTimeoutMs = session.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  const abort = new AbortController();
  const stdin = new PassThrough();
  const resize = new LatestValue<TerminalSize>();
  const closed = new Promise<void>((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) resolve();
    else socket.once('close', () => resolve());
  });
  let ended = false;
  let pausedPing: NodeJS.Timeout | undefined;
  const pauseReading = (): void => {
    socket.pause();
    clearInterval(pausedPing);
    pausedPing = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.ping();
    }, session.pausedPingIntervalMs ?? DEFAULT_PAUSED_PING_INTERVAL_MS);
    pausedPing.unref();
  };
  const resumeReading = (): void => {
    clearInterval(pausedPing);
    pausedPing = undefined;
    if (socket.isPaused) socket.resume();
  };

  const endInputs = (): void => {
    if (!stdin.writableEnded) stdin.end();
    resize.end();
  };
  /** Ends the session from our side: `status` on the error channel (if any), then close. */
  const finish = (code: number, reason: string, status?: EndStatus): void => {
    if (ended) return;
    ended = true;
    clearTimeout(idle);
    endInputs();
    abort.abort(new Error(reason || 'stream ended'));
    // A socket paused for stdin must read again, or the client's close reply is never seen.
    resumeReading();
    if (socket.readyState !== WebSocket.OPEN) return;
    if (status) socket.send(encodeFrame(ERROR, JSON.stringify(status)), { binary: true });
    socket.close(code, reason);
  };
  let idle: NodeJS.Timeout | undefined;
  const touch = (): void => {
    clearTimeout(idle);
    if (ended) return;
    idle = setTimeout(() => {
      const seconds = Math.round(idleTimeoutMs / 1000);
      finish(CLOSE_NORMAL, 'idle timeout', failureStatus(`${session.description ?? 'stream'} idle for ${seconds}s, closed by Tether`, 'Timeout'));
    }, idleTimeoutMs);
    idle.unref();
  };
  touch();

  socket.on('message', (data, isBinary) => {
    touch();
    if (ended) return;
    if (!isBinary) return finish(CLOSE_PROTOCOL_ERROR, `${protocol} carries binary messages only`);
    const frame = decodeClientFrame(toBuffer(data), protocol);
    switch (frame.type) {
      case 'stdin':
        if (!options.stdin || stdin.writableEnded) return;
        // The messages of one read of the socket still come once it is paused: one listener for them all.
        if (!stdin.write(frame.data) && !socket.isPaused) {
          pauseReading();
          stdin.once('drain', () => {
            if (!ended) resumeReading();
          });
        }
        return;
      case 'resize':
        if (options.tty) resize.set({ width: frame.width, height: frame.height });
        return;
      case 'close':
        if (frame.channel === STDIN && !stdin.writableEnded) stdin.end();
        return;
      case 'invalid':
        return finish(CLOSE_PROTOCOL_ERROR, frame.reason);
      case 'ignored':
        return;
    }
  });
  // An oversized message or a broken connection: ws closes the socket itself (1009, 1006).
  socket.on('error', (error) => {
    session.logger?.debug('stream socket error', { stream: session.description, error: String(error) });
  });
  void closed.then(() => {
    ended = true;
    clearTimeout(idle);
    clearInterval(pausedPing);
    endInputs();
    abort.abort(new Error('the client closed the stream'));
  });

  const writer = (channel: number) => (chunk: string | Buffer): Promise<void> =>
    new Promise((resolve, reject) => {
      if (ended || socket.readyState !== WebSocket.OPEN) return reject(new Error('the client has closed the stream'));
      touch();
      socket.send(encodeFrame(channel, chunk), { binary: true }, (error) => (error ? reject(error) : resolve()));
    });
  const streams: ContainerStreams = {
    tty: options.tty,
    ...definedOnly({
      stdin: options.stdin ? stdin : undefined,
      stdout: options.stdout ? writer(STDOUT) : undefined,
      stderr: options.stderr ? writer(STDERR) : undefined,
      resize: options.tty ? resize : undefined,
    }),
  };
  // As the kubelet does: an empty frame on the first output channel says the session is open.
  socket.send(encodeFrame(options.stdout ? STDOUT : options.stderr ? STDERR : ERROR, Buffer.alloc(0)), { binary: true });

  try {
    const code = await session.run(streams, abort.signal);
    finish(CLOSE_NORMAL, '', code === undefined ? { metadata: {}, status: 'Success' } : exitStatus(code));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!abort.signal.aborted) session.logger?.debug('stream ended with an error', { stream: session.description, error: message });
    finish(CLOSE_NORMAL, '', failureStatus(message));
  }
  await closed;
}
