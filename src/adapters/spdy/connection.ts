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
 * Both directions counted: frames parsed but not handled yet (header blocks inflate
 * asynchronously) pause the socket past INBOUND_HIGH_WATER_BYTES; frames queued for a peer that
 * does not read pause it too, and end the connection past a limit (outboundQueue.ts); at most
 * MAX_PENDING_PINGS echoes wait, later pings go unanswered. After the peer's GOAWAY no new stream;
 * the open ones finish, then the connection closes. An exception handling a frame ends this
 * connection alone (GOAWAY INTERNAL_ERROR, close 1011). `onProtocolError` hears each close once.
 */
import { PassThrough } from 'node:stream';
import { WebSocket, type RawData } from 'ws';
import {
  encodeData, encodeGoaway, encodePing, encodeRstStream, encodeSynReply, encodeSynStream, FrameReader, GOAWAY, RST,
  type Frame,
} from './frames.js';
import { HeaderBlockError, HeaderCompressor, HeaderDecompressor, type Headers } from './headerBlock.js';
import { FRAME_OVERHEAD_BYTES, OutboundQueue, SLOW_READER_GRACE_MS } from './outboundQueue.js';
import {
  CLOSE_INTERNAL_ERROR, CLOSE_NORMAL, CLOSE_POLICY, CLOSE_PROTOCOL_ERROR, CLOSE_TOO_BIG, type CloseInfo, type SpdyConnectionOptions, type SpdyStream,
  type StreamState,
} from './connectionTypes.js';
import type { SpdyProtocolError } from './protocolErrors.js';
import { StreamClosedError } from './streamClosedError.js';

export { StreamClosedError } from './streamClosedError.js';
export type { CloseInfo, SpdyConnectionOptions, SpdyStream } from './connectionTypes.js';

export { CLOSE_INTERNAL_ERROR, CLOSE_NORMAL, CLOSE_POLICY, CLOSE_PROTOCOL_ERROR, CLOSE_TOO_BIG } from './connectionTypes.js';

/** Bytes of parsed frames waiting to be handled past which the socket is paused. */
export const INBOUND_HIGH_WATER_BYTES = 256 * 1024;
/** PING echoes waiting to leave at most; a ping beyond them goes unanswered. */
export const MAX_PENDING_PINGS = 16;
/** A peer that does not answer our close within this long is cut off. */
const CLOSE_GRACE_MS = 5_000;

/** Data frames Tether writes are at most this big (spdystream's own writes are 32 KiB). */
const MAX_DATA_FRAME = 64 * 1024;
/** Bytes buffered for a stream's reader before the WebSocket is paused. */
const READ_HIGH_WATER = 256 * 1024;

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
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
  private inboundBytes = 0;
  private inboundPaused = false;
  private readonly outbound: OutboundQueue;
  private pendingPings = 0;
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
    this.outbound = new OutboundQueue(this.socket, options.outbound ?? {}, {
      onSend: () => options.onActivity?.(),
      onPressure: (high) => (high ? this.pause() : this.resume()),
      onSlowReader: (detail) => this.fail(CLOSE_POLICY, 'the peer does not read', 'spdy-slow-reader', detail),
    });
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
      try {
        this.onMessage(data, isBinary);
      } catch (error) {
        this.internalError(error);
      }
    });
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.ended) return;
    if (!isBinary) return this.fail(CLOSE_PROTOCOL_ERROR, 'the SPDY tunnel carries binary messages only', 'spdy-protocol-error');
    this.options.onActivity?.();
    const { frames, error } = this.reader.push(toBuffer(data));
    for (const frame of frames) this.receive(frame);
    const [code, kind] = error?.tooLarge ? [CLOSE_TOO_BIG, 'spdy-frame-too-large' as const] : [CLOSE_PROTOCOL_ERROR, 'spdy-protocol-error' as const];
    if (error) this.inbound = this.inbound.then(() => this.fail(code, error.reason, kind));
  }

  /** Queues a parsed frame for `handle`, counted until handled; an exception ends the connection. */
  private receive(frame: Frame): void {
    const cost = FRAME_OVERHEAD_BYTES + (frame.type === 'data' ? frame.data.length : 'headerBlock' in frame ? frame.headerBlock.length : 0);
    this.inboundBytes += cost;
    if (!this.inboundPaused && this.inboundBytes > INBOUND_HIGH_WATER_BYTES) {
      this.inboundPaused = true;
      this.pause();
    }
    this.inbound = this.inbound.then(() => this.handle(frame)).catch((error: unknown) => this.internalError(error)).then(() => {
      this.inboundBytes -= cost;
      if (this.inboundPaused && this.inboundBytes <= INBOUND_HIGH_WATER_BYTES / 2) {
        this.inboundPaused = false;
        this.resume();
      }
    });
  }

  private internalError(error: unknown): void {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.fail(CLOSE_INTERNAL_ERROR, 'internal error', 'spdy-internal-error', detail);
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
    void this.outbound.enqueue(256, async () => encodeSynStream(id, await this.compressor.compress(entries))).catch(() => undefined);
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
    const status = code === CLOSE_NORMAL ? GOAWAY.ok : code === CLOSE_INTERNAL_ERROR ? GOAWAY.internalError : GOAWAY.protocolError;
    const closeSocket = (): void => {
      if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close(code, reason);
    };
    if (code === CLOSE_POLICY) {
      // A slow reader's queue does not move: the GOAWAY skips it (every message holds whole frames).
      if (this.socket.readyState === WebSocket.OPEN) this.socket.send(encodeGoaway(this.lastPeerStreamId, status), { binary: true }, () => undefined);
      closeSocket();
      setTimeout(() => this.socket.terminate(), SLOW_READER_GRACE_MS).unref();
    } else {
      // The GOAWAY goes after the frames already queued; a peer that never answers the close is cut off.
      void this.outbound.enqueue(16, () => encodeGoaway(this.lastPeerStreamId, status)).catch(() => undefined);
      setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
      void this.outbound.settled().finally(closeSocket);
    }
    this.teardown();
  }

  /** Closes for the peer's sake (or a defect of ours), telling `onProtocolError` once. */
  private fail(code: number, reason: string, kind: SpdyProtocolError, detail = reason): void {
    if (this.ended) return;
    try {
      this.options.onProtocolError?.(kind, detail.slice(0, 300));
    } catch {
      // A broken observer must not keep a bad connection open.
    }
    this.close(code, reason.slice(0, 120));
  }

  private teardown(): void {
    this.ended = true;
    this.outbound.stop();
    for (const state of this.streams.values()) this.abort(state);
    this.compressor.close();
    this.decompressor.close();
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
        // After the peer's GOAWAY, the last stream to finish closes the connection.
        if (this.goneAway && this.streams.size === 0) this.close();
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
          // A peer that does not read holds the writer here, not in the queue.
          await this.outbound.room();
          await this.outbound.enqueue(part.length + 8, () => {
            if (state.reset) throw closedError();
            return encodeData(id, part);
          }, 'data');
        }
      },
      end: async () => {
        await ready;
        if (state.reset || state.localClosed) return;
        state.localClosed = true;
        await this.outbound.enqueue(8, () => encodeData(id, Buffer.alloc(0), true)).catch(() => undefined);
        if (state.remoteClosed) state.settle();
      },
      reset: (status = RST.cancel) => {
        if (state.reset || !this.streams.has(id)) return;
        void this.outbound.enqueue(16, () => encodeRstStream(id, status)).catch(() => undefined);
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
        // Per SPDY/3.1 a reset of an unknown or closed stream is ignored, and a reset is never answered.
        const state = this.streams.get(frame.streamId);
        if (state) this.abort(state);
        return;
      }
      case 'ping':
        return this.onPing(frame.id);
      case 'goaway':
        return this.onGoaway(frame.lastGoodStreamId);
      case 'ignored':
        return;
    }
  }

  /** Echoes the peer's pings (their parity is not ours; ours are never sent), at most MAX_PENDING_PINGS waiting. */
  private onPing(id: number): void {
    if ((id & 1) === (this.options.role === 'client' ? 1 : 0) || this.pendingPings >= MAX_PENDING_PINGS) return;
    this.pendingPings++;
    void this.outbound.enqueue(12, () => encodePing(id)).catch(() => undefined).finally(() => this.pendingPings--);
  }

  /**
   * SPDY/3.1: no new stream after GOAWAY; ours above its last good id were never seen and end
   * now; the others finish, and the last one closes the connection.
   */
  private onGoaway(lastGoodStreamId: number): void {
    this.goneAway = true;
    const ours = this.options.role === 'client' ? 1 : 0;
    for (const [id, state] of this.streams) if ((id & 1) === ours && id > lastGoodStreamId) this.abort(state);
    if (this.streams.size === 0) this.close();
  }

  /** Inflates a header block; a broken one ends the connection (the zlib context is lost). */
  private async headers(block: Buffer): Promise<Headers | undefined> {
    try {
      return await this.decompressor.decompress(block);
    } catch (error) {
      if (!(error instanceof HeaderBlockError)) throw error;
      this.fail(CLOSE_PROTOCOL_ERROR, error.message, error.tooLarge ? 'spdy-header-too-large' : 'spdy-protocol-error');
      return undefined;
    }
  }

  private async onSynStream(id: number, block: Buffer, fin: boolean): Promise<void> {
    const headers = await this.headers(block);
    if (!headers) return;
    const peerParity = this.options.role === 'server' ? 1 : 0;
    if ((id & 1) !== peerParity || id <= this.lastPeerStreamId) {
      return this.fail(CLOSE_PROTOCOL_ERROR, `stream id ${id} is not a new id of the peer`, 'spdy-protocol-error');
    }
    this.lastPeerStreamId = id;
    if (this.goneAway || this.streams.size >= this.maxStreams || !this.options.onStream) {
      void this.outbound.enqueue(16, () => encodeRstStream(id, RST.refusedStream)).catch(() => undefined);
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
      else void this.outbound.enqueue(64, async () => encodeSynReply(id, await this.compressor.compress([]))).catch(() => undefined);
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
