/**
 * One `kubectl port-forward` connection, as the kubelet serves it: SPDY tunnelled in a WebSocket
 * (adapters/spdy/connection.ts), and in it, per forwarded TCP connection, an error stream and a data
 * stream sharing a `requestID` (portForwardStream.ts). Once both have arrived, the pair goes to
 * the provider's port-forward; the provider's failure (unknown pod, nothing on that port) is
 * written on the error stream as the kubelet words it, and both streams are then closed.
 * Bounded as the kubelet bounds it: a pair whose second stream does not come within
 * `pairTimeoutMs` (the kubelet's streamCreationTimeout, 30 s) fails on its error stream; a
 * connection with no frame either way for `idleTimeoutMs` closes (kubectl pings every 10 s, so a
 * live kubectl keeps it open, as it keeps the kubelet's); at most `maxPairs` connections forwarded
 * at once; an error stream carries at most MAX_ERROR_MESSAGE_BYTES, and what the client writes on
 * it is dropped (so it cannot hold the socket). The client resetting a data stream, or going away, aborts the provider's call. The
 * returned promise settles once the socket is closed and every provider call has settled.
 */
import type { WebSocket } from 'ws';
import type { Logger } from '../adapters/logger.js';
import { CLOSE_NORMAL, SpdyConnection, type SpdyStream } from '../adapters/spdy/connection.js';
import type { SpdyProtocolError } from '../adapters/spdy/protocolErrors.js';
import type { PortConnection } from '../providers/provider.js';
import { readPortForwardStream } from './portForwardStream.js';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS } from './streamSession.js';

export interface PortForwardSessionOptions {
  readonly socket: WebSocket;
  /** The provider's call for one forwarded connection. */
  readonly forward: (port: number, connection: PortConnection, signal: AbortSignal) => Promise<void>;
  /** For messages: "shop/web, uid 1234". */
  readonly pod: string;
  readonly idleTimeoutMs?: number;
  readonly pairTimeoutMs?: number;
  readonly maxPairs?: number;
  readonly logger?: Logger;
  /** Once if the connection is closed for a protocol reason (the kubelet counts it as a rejection). */
  readonly onProtocolError?: (reason: SpdyProtocolError) => void;
}

export const DEFAULT_PAIR_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_PAIRS = 128;
/** What Tether writes on one error stream at most (a provider's message is cut there). */
export const MAX_ERROR_MESSAGE_BYTES = 4 * 1024;

interface Pair {
  readonly port: number;
  data?: SpdyStream;
  error?: SpdyStream;
  timer?: NodeJS.Timeout;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `message` as UTF-8, cut to MAX_ERROR_MESSAGE_BYTES on a character boundary. */
function boundedMessage(message: string): Buffer {
  const bytes = Buffer.from(message, 'utf8');
  if (bytes.length <= MAX_ERROR_MESSAGE_BYTES) return bytes;
  let end = MAX_ERROR_MESSAGE_BYTES;
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** The client does not write on an error stream; whatever it sends is dropped, so it cannot hold the socket. */
async function discard(input: AsyncIterable<Buffer>): Promise<void> {
  for await (const chunk of input) void chunk;
}

export async function runPortForwardSession(session: PortForwardSessionOptions): Promise<void> {
  const idleTimeoutMs = session.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  const pairTimeoutMs = session.pairTimeoutMs ?? DEFAULT_PAIR_TIMEOUT_MS;
  const maxPairs = session.maxPairs ?? DEFAULT_MAX_PAIRS;
  const waiting = new Map<string, Pair>();
  const running = new Set<Promise<void>>();
  const gone = new AbortController();
  let idle: NodeJS.Timeout | undefined;

  /** Writes `message` on the error stream (if the client still reads it) and closes the pair. */
  const failPair = async (pair: Pair, message: string): Promise<void> => {
    if (pair.error) await pair.error.write(boundedMessage(message)).catch(() => undefined);
    await Promise.all([pair.error?.end(), pair.data?.end()]);
  };

  const forward = async (pair: Pair, data: SpdyStream, error: SpdyStream): Promise<void> => {
    const stop = new AbortController();
    const signal = AbortSignal.any([gone.signal, stop.signal]);
    // kubectl resets the data stream once it has read the pod's answer to its end.
    void data.done.then(() => {
      if (data.aborted) stop.abort(new Error('the client closed the forwarded connection'));
    });
    try {
      await session.forward(pair.port, { input: data.input, write: (chunk) => data.write(chunk) }, signal);
      await Promise.all([data.end(), error.end()]);
    } catch (failure) {
      if (signal.aborted) {
        // The client waits for the error stream's end before it lets the local connection go.
        data.reset();
        return void (await error.end());
      }
      session.logger?.debug('port-forward failed', { pod: session.pod, port: pair.port, error: messageOf(failure) });
      await failPair(pair, `error forwarding port ${pair.port} to pod ${session.pod}: ${messageOf(failure)}`);
    }
  };

  const start = (pair: Pair): void => {
    clearTimeout(pair.timer);
    const { data, error } = pair as Required<Pair>;
    const run = running.size >= maxPairs
      ? failPair(pair, `too many forwarded connections to pod ${session.pod} (at most ${maxPairs} at once); try again later`)
      : forward(pair, data, error);
    running.add(run);
    void run.finally(() => running.delete(run));
  };

  const onStream = (stream: SpdyStream): boolean => {
    const parsed = readPortForwardStream(stream.headers, stream.id);
    if (!parsed.ok) {
      session.logger?.debug('port-forward stream refused', { pod: session.pod, reason: parsed.reason });
      return false;
    }
    let pair = waiting.get(parsed.requestId);
    if (!pair) {
      const created: Pair = { port: parsed.port };
      created.timer = setTimeout(() => {
        waiting.delete(parsed.requestId);
        void failPair(created, `timed out waiting for the ${created.data ? 'error' : 'data'} stream of request ${parsed.requestId} (port ${created.port})`);
      }, pairTimeoutMs);
      created.timer.unref();
      waiting.set(parsed.requestId, created);
      pair = created;
    }
    if (pair[parsed.streamType] || pair.port !== parsed.port) return false;
    pair[parsed.streamType] = stream;
    if (parsed.streamType === 'error') void discard(stream.input).catch(() => undefined);
    if (pair.data && pair.error) {
      waiting.delete(parsed.requestId);
      start(pair);
    }
    return true;
  };

  const connection = new SpdyConnection({
    socket: session.socket,
    role: 'server',
    onStream,
    onActivity: () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.close(CLOSE_NORMAL, 'idle timeout'), idleTimeoutMs);
      idle.unref();
    },
    maxStreams: maxPairs * 2 + 2,
    onProtocolError: (reason, detail) => {
      const fields = { pod: session.pod, reason, detail };
      if (reason === 'spdy-internal-error') session.logger?.warn('port-forward connection closed by a defect', fields);
      else session.logger?.debug('port-forward connection closed', fields);
      session.onProtocolError?.(reason);
    },
  });
  idle = setTimeout(() => connection.close(CLOSE_NORMAL, 'idle timeout'), idleTimeoutMs);
  idle.unref();

  const closed = await connection.closed;
  clearTimeout(idle);
  gone.abort(new Error(`the client closed the port-forward connection (${closed.code})`));
  for (const pair of waiting.values()) clearTimeout(pair.timer);
  waiting.clear();
  await Promise.all([...running]);
}
