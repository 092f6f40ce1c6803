/**
 * What a SPDY connection (connection.ts) offers and is configured with: its streams, its
 * options, how it closed.
 */
import type { PassThrough } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Headers } from './headerBlock.js';
import type { OutboundLimits } from './outboundQueue.js';
import type { SpdyProtocolError } from './protocolErrors.js';

export const CLOSE_NORMAL = 1000;
export const CLOSE_PROTOCOL_ERROR = 1002;
/** A slow reader (outboundQueue.ts). */
export const CLOSE_POLICY = 1008;
export const CLOSE_TOO_BIG = 1009;
export const CLOSE_INTERNAL_ERROR = 1011;

export interface SpdyStream {
  readonly id: number;
  /** The headers of its SYN_STREAM (server side) or SYN_REPLY (client side). */
  readonly headers: Headers;
  /** What the peer sends, until its FIN; ends early (without error) on a reset or a lost this. */
  readonly input: AsyncIterable<Buffer>;
  /** One or more DATA frames; rejects StreamClosedError once the stream is reset or the connection gone. */
  write(chunk: Buffer): Promise<void>;
  /** Half-closes our side (an empty DATA frame with FIN). */
  end(): Promise<void>;
  /** Ends the stream both ways (RST_STREAM, CANCEL unless told). */
  reset(status?: number): void;
  /** Settles when both sides are closed or the stream was reset. */
  readonly done: Promise<void>;
  /** True once the peer reset it or the connection is gone. */
  readonly aborted: boolean;
}

export interface SpdyConnectionOptions {
  readonly socket: WebSocket;
  readonly role: 'server' | 'client';
  /** Server role: a new stream from the peer; return false to refuse it (RST_STREAM REFUSED_STREAM). */
  readonly onStream?: (stream: SpdyStream) => boolean;
  /** Any frame in either direction, for idle timeouts. */
  readonly onActivity?: () => void;
  /** Largest frame accepted; default 1 MiB. */
  readonly maxFrameBytes?: number;
  /** Streams open at once; default 256. */
  readonly maxStreams?: number;
  /** Bounds of the outbound queue; defaults OUTBOUND_HIGH_WATER_BYTES, OUTBOUND_LIMIT_BYTES, OUTBOUND_STALL_MS. */
  readonly outbound?: Partial<OutboundLimits>;
  /** Once per connection Tether closes for the peer's sake (or its own defect), with a detail for the log. */
  readonly onProtocolError?: (reason: SpdyProtocolError, detail: string) => void;
}

export interface CloseInfo {
  readonly code: number;
  readonly reason: string;
}

/** A stream's bookkeeping inside its connection. */
export interface StreamState {
  readonly stream: SpdyStream;
  readonly incoming: PassThrough;
  localClosed: boolean;
  remoteClosed: boolean;
  reset: boolean;
  replied: boolean;
  /** This stream's reader is behind, and has paused the socket. */
  pausing: boolean;
  settle(): void;
  /** Server role: resolves once the SYN_REPLY is queued, so no write overtakes it. */
  readonly ready: Promise<void>;
  markReady(): void;
  reply?: (headers: Headers) => void;
}
