/**
 * The frames a SPDY connection has queued for its WebSocket, counted and bounded. Frames leave
 * one at a time, in order (each waits for the previous one's send callback), so what a peer that
 * does not read costs is what waits here: each frame is charged its size plus a fixed overhead
 * (the closure and promise it takes, ~590 B measured for a 12-byte PING echo), together with
 * the socket's own `bufferedAmount`. Past the high-water mark the connection stops reading the
 * peer (its input makes the replies); past the limit of control frames (what the peer's input
 * made: echoes, refusals), or with frames waiting and none leaving for the stall bound, the peer
 * is a slow reader and the connection is closed. Data writes wait for room (`room()`) and count
 * only towards the high-water mark (each stream has one frame queued at most), so busy streams
 * are backpressured, never closed.
 */
import { WebSocket } from 'ws';
import { StreamClosedError } from './streamClosedError.js';

/** Past this many bytes queued (ours plus the socket's), the peer's input is paused. */
export const OUTBOUND_HIGH_WATER_BYTES = 256 * 1024;
/** Past this many bytes of control frames queued, the peer is a slow reader and the connection is closed. */
export const OUTBOUND_LIMIT_BYTES = 4 * 1024 * 1024;
/** Frames waiting and none sent for this long: the peer is a slow reader. */
export const OUTBOUND_STALL_MS = 60_000;
/** A peer closed as a slow reader gets this long to take the GOAWAY before it is cut off. */
export const SLOW_READER_GRACE_MS = 1_000;
/** What one queued frame costs beyond its bytes (its closure and promises), for the counts. */
export const FRAME_OVERHEAD_BYTES = 256;

export interface OutboundLimits {
  readonly highWaterBytes: number;
  readonly limitBytes: number;
  readonly stallMs: number;
}

export interface OutboundHooks {
  /** A frame is being sent (for idle timeouts). */
  readonly onSend: () => void;
  /** Crossed the high-water mark upwards (true) or drained below it (false). */
  readonly onPressure: (high: boolean) => void;
  /** Past the limit, or stalled: the connection must end. */
  readonly onSlowReader: (detail: string) => void;
}

export class OutboundQueue {
  private tail: Promise<void> = Promise.resolve();
  private queuedBytes = 0;
  private controlBytes = 0;
  private waiting = 0;
  private high = false;
  private overflowed = false;
  private stall: NodeJS.Timeout | undefined;
  private readonly roomWaiters: Array<() => void> = [];

  private readonly limits: OutboundLimits;

  /** `limits` default to OUTBOUND_HIGH_WATER_BYTES, OUTBOUND_LIMIT_BYTES and OUTBOUND_STALL_MS. */
  constructor(private readonly socket: WebSocket, limits: Partial<OutboundLimits>, private readonly hooks: OutboundHooks) {
    this.limits = {
      highWaterBytes: limits.highWaterBytes ?? OUTBOUND_HIGH_WATER_BYTES,
      limitBytes: limits.limitBytes ?? OUTBOUND_LIMIT_BYTES,
      stallMs: limits.stallMs ?? OUTBOUND_STALL_MS,
    };
  }

  /** Bytes Tether holds for the peer: its own queue plus the socket's buffer. */
  load(): number {
    return this.queuedBytes + this.socket.bufferedAmount;
  }

  /** Settles once every frame queued so far has left (or failed). */
  settled(): Promise<void> {
    return this.tail;
  }

  /** Resolves once the load is under the high-water mark (at once if it is). */
  room(): Promise<void> {
    if (!this.high || this.overflowed) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Queues a frame of about `size` bytes; it is built just before it is sent. */
  enqueue(size: number, build: () => Buffer | Promise<Buffer>, kind: 'data' | 'control' = 'control'): Promise<void> {
    const cost = size + FRAME_OVERHEAD_BYTES;
    const control = kind === 'control' ? cost : 0;
    this.queuedBytes += cost;
    this.controlBytes += control;
    if (this.waiting++ === 0) this.armStall();
    this.check();
    const sent = this.tail.then(async () => {
      const frame = await build();
      if (this.socket.readyState !== WebSocket.OPEN) throw new StreamClosedError('the SPDY connection is closed');
      this.hooks.onSend();
      await new Promise<void>((resolve, reject) => this.socket.send(frame, { binary: true }, (e) => (e ? reject(new StreamClosedError(e.message)) : resolve())));
    });
    const done = sent.catch(() => undefined).then(() => {
      this.queuedBytes -= cost;
      this.controlBytes -= control;
      if (--this.waiting === 0) clearTimeout(this.stall);
      else this.armStall();
      this.check();
    });
    this.tail = done;
    return sent;
  }

  /** Ends the watch (the connection is gone); anyone waiting for room goes on (and fails). */
  stop(): void {
    clearTimeout(this.stall);
    this.overflowed = true;
    for (const wake of this.roomWaiters.splice(0)) wake();
  }

  private armStall(): void {
    clearTimeout(this.stall);
    if (this.overflowed) return;
    this.stall = setTimeout(() => this.slow(`no frame left for ${this.limits.stallMs} ms`), this.limits.stallMs);
    this.stall.unref();
  }

  private check(): void {
    if (this.controlBytes > this.limits.limitBytes) {
      return this.slow(`${this.controlBytes} bytes of replies queued for a peer that does not read (limit ${this.limits.limitBytes})`);
    }
    const load = this.load();
    const high = load > this.limits.highWaterBytes;
    if (high === this.high) return;
    this.high = high;
    this.hooks.onPressure(high);
    if (!high) for (const wake of this.roomWaiters.splice(0)) wake();
  }

  private slow(detail: string): void {
    if (this.overflowed) return;
    this.stop();
    this.hooks.onSlowReader(detail);
  }
}
