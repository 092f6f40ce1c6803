/**
 * SPDY/3 frames (draft-mbelshe-httpbis-spdy-00, section 2.2), as Go's moby/spdystream writes and
 * reads them for Kubernetes port-forward: decoded incrementally from a byte stream (a frame may
 * span many WebSocket messages, and one message may hold several frames) and encoded one by one.
 * Pure: header blocks are handed on still compressed (headerBlock.ts inflates them). Bounded: the
 * bytes not yet read are a chunk list (byteQueue.ts: linear work however the bytes are split), a
 * frame over the reader's limit is refused from its header, and frames are parsed one `read()` at
 * a time, so a consumer that stops reading holds bytes, not parsed frames.
 * Written by hand: the only npm SPDY library (spdy-transport, last released in 2018) enforces flow
 * control windows that spdystream never replenishes (it sends no WINDOW_UPDATE), so a forwarded
 * response over 64 KiB would stall; and it cannot be given limits on frame sizes.
 */
import { ByteQueue } from './byteQueue.js';

export const SPDY_VERSION = 3;

export const FRAME_HEADER_BYTES = 8;
/** A frame's length field is 24 bits. */
export const MAX_FRAME_PAYLOAD = 0xffffff;
/** The largest frame a reader accepts unless told otherwise (spdystream writes data frames of 32 KiB). */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;
/**
 * The largest WebSocket message of the tunnel (ws `maxPayload`, both sides): client-go writes one
 * frame per message, so the largest frame and its header.
 */
export const MAX_TUNNEL_MESSAGE_BYTES = DEFAULT_MAX_FRAME_BYTES + FRAME_HEADER_BYTES;

export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

/** RST_STREAM status codes (section 2.4.2). */
export const RST = { protocolError: 1, invalidStream: 2, refusedStream: 3, cancel: 5, internalError: 6 } as const;
/** GOAWAY status codes (section 2.6.6). */
export const GOAWAY = { ok: 0, protocolError: 1, internalError: 2 } as const;

const TYPE = { synStream: 1, synReply: 2, rstStream: 3, settings: 4, ping: 6, goaway: 7, headers: 8, windowUpdate: 9 } as const;

export type Frame =
  | { readonly type: 'data'; readonly streamId: number; readonly fin: boolean; readonly data: Buffer }
  | { readonly type: 'syn-stream'; readonly streamId: number; readonly fin: boolean; readonly headerBlock: Buffer }
  | { readonly type: 'syn-reply'; readonly streamId: number; readonly fin: boolean; readonly headerBlock: Buffer }
  | { readonly type: 'headers'; readonly streamId: number; readonly fin: boolean; readonly headerBlock: Buffer }
  | { readonly type: 'rst-stream'; readonly streamId: number; readonly status: number }
  | { readonly type: 'ping'; readonly id: number }
  | { readonly type: 'goaway'; readonly lastGoodStreamId: number; readonly status: number }
  /** SETTINGS, WINDOW_UPDATE and unknown control frames: the spec lets a receiver ignore them. */
  | { readonly type: 'ignored'; readonly frameType: number };

/** Why the byte stream cannot be read on: the connection ends with GOAWAY and this reason. */
export interface FrameError {
  readonly reason: string;
  /** A frame larger than the reader's limit (WebSocket close 1009) rather than a malformed one (1002). */
  readonly tooLarge: boolean;
}

export interface ReadResult {
  readonly frames: readonly Frame[];
  readonly error?: FrameError;
}

const streamIdAt = (b: Buffer, offset: number): number => b.readUInt32BE(offset) & 0x7fffffff;

/** The minimum payload of each control frame with a fixed part. */
const MIN_PAYLOAD: Record<number, number> = {
  [TYPE.synStream]: 10, [TYPE.synReply]: 4, [TYPE.headers]: 4, [TYPE.rstStream]: 8, [TYPE.ping]: 4, [TYPE.goaway]: 8,
};

function controlFrame(type: number, flags: number, p: Buffer): Frame | FrameError {
  const min = MIN_PAYLOAD[type];
  if (min !== undefined && p.length < min) return { reason: `control frame type ${type} has ${p.length} bytes, needs at least ${min}`, tooLarge: false };
  const fin = (flags & FLAG_FIN) !== 0;
  switch (type) {
    case TYPE.synStream:
    case TYPE.synReply:
    case TYPE.headers: {
      const streamId = streamIdAt(p, 0);
      if (streamId === 0) return { reason: `control frame type ${type} for stream 0`, tooLarge: false };
      const kind = type === TYPE.synStream ? 'syn-stream' : type === TYPE.synReply ? 'syn-reply' : 'headers';
      // SYN_STREAM: stream id, associated id, priority and slot before the block.
      return { type: kind, streamId, fin, headerBlock: p.subarray(type === TYPE.synStream ? 10 : 4) };
    }
    case TYPE.rstStream:
      return { type: 'rst-stream', streamId: streamIdAt(p, 0), status: p.readUInt32BE(4) };
    case TYPE.ping:
      return { type: 'ping', id: p.readUInt32BE(0) };
    case TYPE.goaway:
      return { type: 'goaway', lastGoodStreamId: streamIdAt(p, 0), status: p.readUInt32BE(4) };
    default:
      return { type: 'ignored', frameType: type };
  }
}

/** One step of reading: the next frame, why the stream cannot be read on, or (undefined) not enough bytes yet. */
export type ReadStep = { readonly frame: Frame } | { readonly error: FrameError };

interface FrameHead {
  readonly control: boolean;
  readonly word0: number;
  readonly flags: number;
  readonly length: number;
}

/**
 * Splits a byte stream into frames, one `read()` at a time, so a consumer that falls behind leaves
 * the bytes as bytes (a chunk list, byteQueue.ts) rather than as parsed frames. A frame's length is
 * checked as soon as its 8-byte header is in, before any of its payload is held. After an error it
 * reads nothing more and holds nothing.
 */
export class FrameReader {
  private readonly queue = new ByteQueue();
  private readonly scratch = Buffer.alloc(FRAME_HEADER_BYTES);
  /** The header of the frame being received, once its 8 bytes are in. */
  private head: FrameHead | undefined;
  private failed: FrameError | undefined;

  /** `maxPayload`: the largest frame accepted (a larger one is an error, not a buffered allocation). */
  constructor(private readonly maxPayload: number = DEFAULT_MAX_FRAME_BYTES) {}

  /** Bytes held: at most one partial frame (8 + maxPayload) plus whatever was written and not yet read. */
  get buffered(): number {
    return this.queue.length;
  }

  /** Bytes copied since the start; linear in the bytes written (each is copied at most twice). */
  get bytesCopied(): number {
    return this.queue.bytesCopied;
  }

  write(chunk: Buffer): void {
    if (!this.failed) this.queue.push(chunk);
  }

  read(): ReadStep | undefined {
    if (this.failed) return { error: this.failed };
    if (!this.head) {
      if (this.queue.length < FRAME_HEADER_BYTES) return undefined;
      this.queue.peek(this.scratch, FRAME_HEADER_BYTES);
      const word1 = this.scratch.readUInt32BE(4);
      this.head = { control: ((this.scratch[0] as number) & 0x80) !== 0, word0: this.scratch.readUInt32BE(0), flags: word1 >>> 24, length: word1 & 0xffffff };
      if (this.head.length > this.maxPayload) {
        return this.fail({ reason: `frame of ${this.head.length} bytes exceeds the limit of ${this.maxPayload}`, tooLarge: true });
      }
    }
    const { control, word0, flags, length } = this.head;
    if (this.queue.length < FRAME_HEADER_BYTES + length) return undefined;
    this.head = undefined;
    this.queue.skip(FRAME_HEADER_BYTES);
    const payload = this.queue.take(length);
    if (control) {
      const version = (word0 >>> 16) & 0x7fff;
      if (version !== SPDY_VERSION) return this.fail({ reason: `unsupported SPDY version ${version}`, tooLarge: false });
      const frame = controlFrame(word0 & 0xffff, flags, payload);
      return 'type' in frame ? { frame } : this.fail(frame);
    }
    const streamId = word0 & 0x7fffffff;
    if (streamId === 0) return this.fail({ reason: 'data frame for stream 0', tooLarge: false });
    return { frame: { type: 'data', streamId, fin: (flags & FLAG_FIN) !== 0, data: payload } };
  }

  /** Writes `chunk` and reads every complete frame (what a consumer that never falls behind does). */
  push(chunk: Buffer): ReadResult {
    this.write(chunk);
    const frames: Frame[] = [];
    for (let step = this.read(); step; step = this.read()) {
      if ('error' in step) return { frames, error: step.error };
      frames.push(step.frame);
    }
    return { frames };
  }

  private fail(error: FrameError): { error: FrameError } {
    this.failed = error;
    this.head = undefined;
    this.queue.clear();
    return { error };
  }
}

function control(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(FRAME_HEADER_BYTES);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24 | payload.length) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

function words(...values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
}

export function encodeData(streamId: number, data: Buffer, fin = false): Buffer {
  if (data.length > MAX_FRAME_PAYLOAD) throw new RangeError(`data frame of ${data.length} bytes is over the 24-bit limit`);
  const head = Buffer.alloc(FRAME_HEADER_BYTES);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(((fin ? FLAG_FIN : 0) << 24 | data.length) >>> 0, 4);
  return Buffer.concat([head, data]);
}

/** `headerBlock` already compressed; priority 0 (highest), slot 0. */
export function encodeSynStream(streamId: number, headerBlock: Buffer, fin = false): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt32BE(streamId & 0x7fffffff, 0);
  return control(TYPE.synStream, fin ? FLAG_FIN : 0, Buffer.concat([fixed, headerBlock]));
}

export function encodeSynReply(streamId: number, headerBlock: Buffer, fin = false): Buffer {
  return control(TYPE.synReply, fin ? FLAG_FIN : 0, Buffer.concat([words(streamId & 0x7fffffff), headerBlock]));
}

export function encodeRstStream(streamId: number, status: number): Buffer {
  return control(TYPE.rstStream, 0, words(streamId & 0x7fffffff, status));
}

export function encodePing(id: number): Buffer {
  return control(TYPE.ping, 0, words(id));
}

export function encodeGoaway(lastGoodStreamId: number, status: number): Buffer {
  return control(TYPE.goaway, 0, words(lastGoodStreamId & 0x7fffffff, status));
}

/** For tests and completeness: a SETTINGS frame with no entries, which receivers ignore. */
export function encodeSettings(): Buffer {
  return control(TYPE.settings, 0, words(0));
}
