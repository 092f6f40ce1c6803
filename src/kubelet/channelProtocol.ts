/**
 * The framing of the `channel.k8s.io` WebSocket subprotocols that exec and attach speak (as
 * k8s.io/streaming's wsstream and client-go's remotecommand do): every binary message is one
 * channel byte followed by that channel's data.
 *   0 stdin (client → kubelet), 1 stdout, 2 stderr, 3 error (a JSON Status, then the end),
 *   4 resize (client → kubelet, JSON `{"Width":w,"Height":h}`).
 * `v5.channel.k8s.io` adds the half-close signal: a message of exactly [255, channel] means the
 * client has closed that channel (stdin). `v4.channel.k8s.io` is the same without it. The base64
 * variants and v1-v3 are not offered (kubectl and client-go speak v5 over WebSockets).
 * Written by hand: the framing is two bytes of rules, and no npm library implements it.
 */
export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;
const STREAM_CLOSE = 255;

/** Subprotocols offered, most preferred first. */
export const CHANNEL_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;
export type ChannelProtocol = (typeof CHANNEL_PROTOCOLS)[number];

/** The first protocol the client offers that Tether speaks, in the client's order of preference. */
export function selectChannelProtocol(offered: Iterable<string>): ChannelProtocol | undefined {
  for (const protocol of offered) {
    const p = protocol.trim();
    if ((CHANNEL_PROTOCOLS as readonly string[]).includes(p)) return p as ChannelProtocol;
  }
  return undefined;
}

export type ClientFrame =
  | { readonly type: 'stdin'; readonly data: Buffer }
  | { readonly type: 'resize'; readonly width: number; readonly height: number }
  | { readonly type: 'close'; readonly channel: number }
  /** An empty message, or data for a channel the client does not write: ignored, as wsstream does. */
  | { readonly type: 'ignored' }
  /** A protocol error: the session ends with close code 1002 and this reason. */
  | { readonly type: 'invalid'; readonly reason: string };

/** A resize message is `{"Width":65535,"Height":65535}` at most plus whitespace: more is not parsed. */
export const MAX_RESIZE_BYTES = 1024;

function parseResize(data: Buffer): ClientFrame {
  if (data.length > MAX_RESIZE_BYTES) return { type: 'invalid', reason: `resize: ${data.length} bytes, more than ${MAX_RESIZE_BYTES}` };
  let size: unknown;
  try {
    size = JSON.parse(data.toString('utf8'));
  } catch {
    return { type: 'invalid', reason: 'resize: not JSON' };
  }
  if (typeof size !== 'object' || size === null) return { type: 'invalid', reason: 'resize: not a JSON object' };
  const { Width: width, Height: height } = size as { Width?: unknown; Height?: unknown };
  const valid = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 0xffff;
  if (!valid(width) || !valid(height)) return { type: 'invalid', reason: 'resize: Width and Height must be integers 0..65535' };
  return { type: 'resize', width, height };
}

/** One message from the client, decoded under `protocol`. Never throws. */
export function decodeClientFrame(message: Buffer, protocol: ChannelProtocol): ClientFrame {
  if (message.length === 0) return { type: 'ignored' };
  const channel = message[0] as number;
  if (channel === STREAM_CLOSE && protocol === 'v5.channel.k8s.io') {
    if (message.length !== 2) return { type: 'invalid', reason: `stream close signal must carry exactly one channel byte, got ${message.length - 1}` };
    const closed = message[1] as number;
    if (closed > RESIZE) return { type: 'invalid', reason: `stream close for unknown channel ${closed}` };
    return { type: 'close', channel: closed };
  }
  const data = message.subarray(1);
  if (channel === STDIN) return { type: 'stdin', data };
  if (channel === RESIZE) return parseResize(data);
  return { type: 'ignored' };
}

/** A message for the client on `channel`. */
export function encodeFrame(channel: number, data: string | Buffer): Buffer {
  const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const frame = Buffer.allocUnsafe(payload.length + 1);
  frame[0] = channel;
  payload.copy(frame, 1);
  return frame;
}

/** The Status the error channel carries at the end of a session (metav1.Status, JSON). */
export interface EndStatus {
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly details?: { readonly causes: ReadonlyArray<{ readonly reason: string; readonly message: string }> };
}

/** Success for exit code 0; otherwise the NonZeroExitCode Failure client-go turns back into the code. */
export function exitStatus(exitCode: number): EndStatus {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command, exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** A Failure that is not an exit code (unknown container, provider error); kubectl prints `message`. */
export function failureStatus(message: string, reason = 'InternalError'): EndStatus {
  return { metadata: {}, status: 'Failure', message, reason };
}
