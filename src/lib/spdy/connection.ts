/**
 * A SPDY/3.1 connection tunnelled through a WebSocket, as Kubernetes port-forward does by
 * default since 1.31 (subprotocol `SPDY/3.1+portforward.k8s.io`: every binary message carries
 * the next bytes of the SPDY stream, with no alignment to frames). Either role: a server accepts the peer's streams
 * (`onStream`), a client opens them (`openStream`). What moby/spdystream, the Go side, needs:
 * every accepted SYN_STREAM answered by a SYN_REPLY before any data, pings echoed, no flow control
 * (spdystream neither sends nor honours WINDOW_UPDATE; backpressure is the WebSocket's own).
 * Bounded: frames and header blocks have size limits, streams have a cap, and a protocol error
 * ends the connection with GOAWAY and WebSocket close 1002 (1009 for an oversized frame), so a
 * bad peer gets a clear close rather than a crash. When the WebSocket goes, every stream ends.
 */
import { PassThrough } from 'node:stream';
import { WebSocket, type RawData } from 'ws';
import {
  encodeData, encodeGoaway, encodePing, encodeRstStream, encodeSynReply, encodeSynStream, FrameReader, GOAWAY, RST,
  type Frame,
} from './frames.js';
import { HeaderBlockError, HeaderCompressor, HeaderDecompressor, type Headers } from './headerBlock.js';

export const CLOSE_NORMAL = 1000;
export const CLOSE_PROTOCOL_ERROR = 1002;
export const CLOSE_TOO_BIG = 1009;

/** Data frames Tether writes are at most this big (spdystream's own writes are 32 KiB). */
const MAX_DATA_FRAME = 64 * 1024;
/** Bytes buffered for a stream's reader before the WebSocket is paused. */
const READ_HIGH_WATER = 256 * 1024;

export class StreamClosedError extends Error {
  override readonly name = 'StreamClosedError';
}

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
}

export interface CloseInfo {
  readonly code: number;
  readonly reason: string;
}

interface StreamState {
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

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export class SpdyConnection {
  private readonly socket: WebSocket;
  private readonly reader: FrameReader;
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streams = new Map<number, StreamState>();
  private readonly maxStreams: number;
  private nextStreamId: number;
  private lastPeerStreamId = 0;
  private inbound: Promise<void> = Promise.resolve();
  private outbound: Promise<void> = Promise.resolve();
  private pausedBy = 0;
  private goneAway = false;
  private ended = false;
  /** Settles once the WebSocket is closed and every stream has ended. */
  readonly closed: Promise<CloseInfo>;

  constructor(private readonly options: SpdyConnectionOptions) {
    this.socket = options.socket;
    this.reader = new FrameReader(options.maxFrameBytes ?? 1024 * 1024);
    this.maxStreams = options.maxStreams ?? 256;
    this.nextStreamId = options.role === 'client' ? 1 : 2;
    this.closed = new Promise((resolve) => {
      const done = (code: number, reason: string): void => {
        this.teardown();
        resolve({ code, reason });
      };
      if (this.socket.readyState === WebSocket.CLOSED) done(1006, '');
      else this.socket.once('close', (code, reason) => done(code, reason.toString('utf8')));
    });
    this.socket.on('error', () => undefined);
    this.socket.on('message', (data, isBinary) => {
      if (this.ended) return;
      if (!isBinary) return this.fail(CLOSE_PROTOCOL_ERROR, 'the SPDY tunnel carries binary messages only');
      options.onActivity?.();
      const { frames, error } = this.reader.push(toBuffer(data));
      for (const frame of frames) this.inbound = this.inbound.then(() => this.handle(frame));
      if (error) this.inbound = this.inbound.then(() => this.fail(error.tooLarge ? CLOSE_TOO_BIG : CLOSE_PROTOCOL_ERROR, error.reason));
    });
  }

  /** Streams not yet ended (what a leak check counts). */
  openStreams(): number {
    return this.streams.size;
  }

  /** Client role: opens a stream and waits for the peer's SYN_REPLY (or its refusal). */
  async openStream(headers: Iterable<readonly [string, string]>, timeoutMs = 30_000): Promise<SpdyStream> {
    if (this.ended || this.goneAway) throw new StreamClosedError('the SPDY connection is closed');
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const state = this.track(id, new Map());
    state.markReady();
    const replied = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new StreamClosedError(`no reply to stream ${id} within ${timeoutMs} ms`)), timeoutMs);
      timer.unref();
      state.reply = (replyHeaders) => {
        clearTimeout(timer);
        (state.stream as { headers: Headers }).headers = replyHeaders;
        resolve();
      };
      void state.stream.done.then(() => {
        clearTimeout(timer);
        reject(new StreamClosedError(`stream ${id} was refused or the connection closed`));
      });
    });
    const entries = [...headers];
    void this.enqueue(async () => encodeSynStream(id, await this.compressor.compress(entries))).catch(() => undefined);
    try {
      await replied;
    } catch (error) {
      state.stream.reset();
      throw error;
    }
    return state.stream;
  }

  /** Sends GOAWAY and closes the WebSocket (every stream ends). */
  close(code = CLOSE_NORMAL, reason = ''): void {
    if (this.ended) return;
    this.ended = true;
    void this.enqueue(() => encodeGoaway(this.lastPeerStreamId, code === CLOSE_NORMAL ? GOAWAY.ok : GOAWAY.protocolError)).catch(() => undefined);
    // The GOAWAY goes after the frames already queued; a peer that never answers the close is cut off.
    setTimeout(() => this.socket.terminate(), 5_000).unref();
    void this.outbound.finally(() => {
      if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close(code, reason);
    });
    this.teardown();
  }

  private fail(code: number, reason: string): void {
    this.close(code, reason.slice(0, 120));
  }

  private teardown(): void {
    this.ended = true;
    for (const state of this.streams.values()) this.abort(state);
    this.compressor.close();
    this.decompressor.close();
  }

  /** Queues a frame for the WebSocket; frames leave in the order they were queued. */
  private enqueue(build: () => Buffer | Promise<Buffer>): Promise<void> {
    const sent = this.outbound.then(async () => {
      const frame = await build();
      if (this.socket.readyState !== WebSocket.OPEN) throw new StreamClosedError('the SPDY connection is closed');
      this.options.onActivity?.();
      await new Promise<void>((resolve, reject) => this.socket.send(frame, { binary: true }, (e) => (e ? reject(new StreamClosedError(e.message)) : resolve())));
    });
    this.outbound = sent.catch(() => undefined);
    return sent;
  }

  private pause(): void {
    if (this.pausedBy++ === 0) this.socket.pause();
  }

  private resume(): void {
    if (--this.pausedBy === 0 && !this.ended) this.socket.resume();
  }

  private track(id: number, headers: Headers): StreamState {
    let settle = (): void => undefined;
    const done = new Promise<void>((resolve) => (settle = resolve));
    let markReady = (): void => undefined;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    const incoming = new PassThrough({ highWaterMark: READ_HIGH_WATER });
    const state: StreamState = {
      incoming, localClosed: false, remoteClosed: false, reset: false, replied: false, pausing: false, ready, markReady,
      settle: () => {
        this.streams.delete(id);
        settle();
      },
      stream: undefined as unknown as SpdyStream,
    };
    const closedError = (): StreamClosedError => new StreamClosedError(`stream ${id} is closed`);
    const stream: SpdyStream = {
      id,
      headers,
      input: incoming,
      get aborted() {
        return state.reset;
      },
      done,
      write: async (chunk) => {
        await ready;
        if (state.reset || state.localClosed) throw closedError();
        for (let at = 0; at < chunk.length; at += MAX_DATA_FRAME) {
          const part = chunk.subarray(at, at + MAX_DATA_FRAME);
          await this.enqueue(() => {
            if (state.reset) throw closedError();
            return encodeData(id, part);
          });
        }
      },
      end: async () => {
        await ready;
        if (state.reset || state.localClosed) return;
        state.localClosed = true;
        await this.enqueue(() => encodeData(id, Buffer.alloc(0), true)).catch(() => undefined);
        if (state.remoteClosed) state.settle();
      },
      reset: (status = RST.cancel) => {
        if (state.reset || !this.streams.has(id)) return;
        void this.enqueue(() => encodeRstStream(id, status)).catch(() => undefined);
        this.abort(state);
      },
    };
    (state as { stream: SpdyStream }).stream = stream;
    this.streams.set(id, state);
    return state;
  }

  /** Ends a stream at once, both ways, without telling the peer. */
  private abort(state: StreamState): void {
    if (state.reset) return;
    state.reset = true;
    if (!state.incoming.writableEnded) state.incoming.end();
    state.settle();
  }

  private async handle(frame: Frame): Promise<void> {
    if (this.ended) return;
    switch (frame.type) {
      case 'data':
        return this.onData(frame.streamId, frame.data, frame.fin);
      case 'syn-stream':
        return this.onSynStream(frame.streamId, frame.headerBlock, frame.fin);
      case 'syn-reply':
      case 'headers': {
        const headers = await this.headers(frame.headerBlock);
        const state = headers && this.streams.get(frame.streamId);
        if (!headers || !state) return;
        if (frame.type === 'syn-reply' && !state.replied) {
          state.replied = true;
          state.reply?.(headers);
        }
        if (frame.fin) this.remoteFin(state);
        return;
      }
      case 'rst-stream': {
        const state = this.streams.get(frame.streamId);
        if (state) this.abort(state);
        return;
      }
      case 'ping':
        // Echo the peer's pings (their parity is not ours); ours are never sent.
        if ((frame.id & 1) !== (this.options.role === 'client' ? 1 : 0)) void this.enqueue(() => encodePing(frame.id)).catch(() => undefined);
        return;
      case 'goaway':
        this.goneAway = true;
        if (this.streams.size === 0) this.close();
        return;
      case 'ignored':
        return;
    }
  }

  /** Inflates a header block; a broken one ends the connection (the zlib context is lost). */
  private async headers(block: Buffer): Promise<Headers | undefined> {
    try {
      return await this.decompressor.decompress(block);
    } catch (error) {
      const reason = error instanceof HeaderBlockError ? error.message : String(error);
      this.fail(CLOSE_PROTOCOL_ERROR, reason);
      return undefined;
    }
  }

  private async onSynStream(id: number, block: Buffer, fin: boolean): Promise<void> {
    const headers = await this.headers(block);
    if (!headers) return;
    const peerParity = this.options.role === 'server' ? 1 : 0;
    if ((id & 1) !== peerParity || id <= this.lastPeerStreamId) {
      return this.fail(CLOSE_PROTOCOL_ERROR, `stream id ${id} is not a new id of the peer`);
    }
    this.lastPeerStreamId = id;
    if (this.goneAway || this.streams.size >= this.maxStreams || !this.options.onStream) {
      void this.enqueue(() => encodeRstStream(id, RST.refusedStream)).catch(() => undefined);
      return;
    }
    const state = this.track(id, headers);
    state.replied = true;
    if (fin) this.remoteFin(state);
    let accepted = false;
    try {
      accepted = this.options.onStream(state.stream);
    } finally {
      // Refused as the kubelet refuses (RST_STREAM, no reply); accepted: the reply is queued
      // before any write the handler started, which waits for `ready`.
      if (!accepted) state.stream.reset(RST.refusedStream);
      else void this.enqueue(async () => encodeSynReply(id, await this.compressor.compress([]))).catch(() => undefined);
      state.markReady();
    }
  }

  private onData(id: number, data: Buffer, fin: boolean): void {
    const state = this.streams.get(id);
    // Data for a stream that has ended (or never was) is dropped, as spdystream does.
    if (!state || state.reset || state.remoteClosed) return;
    if (data.length > 0 && !state.incoming.write(data) && !state.pausing) {
      // No flow control in SPDY as spdystream speaks it: a slow reader holds the whole socket.
      state.pausing = true;
      this.pause();
      const release = (): void => {
        if (!state.pausing) return;
        state.pausing = false;
        this.resume();
      };
      state.incoming.once('drain', release);
      // A reader that stops reading for good (the stream ends) must not keep the socket paused.
      void state.stream.done.then(release);
    }
    if (fin) this.remoteFin(state);
  }

  private remoteFin(state: StreamState): void {
    if (state.remoteClosed) return;
    state.remoteClosed = true;
    state.incoming.end();
    if (state.localClosed) state.settle();
  }
}
