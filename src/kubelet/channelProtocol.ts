/**
 * The framing of the `channel.k8s.io` WebSocket subprotocols that exec and attach speak, as
 * kubelet v1.36.3 speaks them (k8s.io/streaming's wsstream, the kubelet's CRI streaming server and
 * its v5 translator): every message is one channel, then that channel's data.
 *   0 stdin (client → kubelet), 1 stdout, 2 stderr, 3 error (the end), 4 resize (client →
 *   kubelet, JSON `{"Width":w,"Height":h}`; every WebSocket protocol has it, v1 included).
 * The protocols differ in three ways:
 * - encoding: binary (`channel.k8s.io`, `v4.`, `v5.`): a binary message, the channel byte then the
 *   raw data; base64 (`base64.channel.k8s.io`, `v4.base64.`): a text message, the channel as an
 *   ASCII digit ('0' + channel) then the data in standard base64;
 * - the error channel: v4 and v5 carry a metav1.Status as JSON, always; v1 (`channel.k8s.io`,
 *   `base64.channel.k8s.io`, and no subprotocol at all) carries only a failure's message as plain
 *   text and nothing on success;
 * - v5 alone has the half-close signal: a message of exactly [255, channel].
 * Negotiation as the kubelet: a client that lists v5 anywhere gets v5 (the kubelet hands any
 * request offering v5 to its v5-only translator); otherwise the first protocol in the client's
 * order that is spoken; no subprotocol header at all is v1 binary (wsstream's "" protocol).
 * `v5.base64.channel.k8s.io` and v2/v3 (SPDY-only names) are not spoken, as the kubelet.
 * Written by hand: the framing is a few rules, and no npm library implements it.
 */
export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;
const STREAM_CLOSE = 255;
/** A base64 channel is an ASCII digit: '0' is channel 0. */
const DIGIT_ZERO = 0x30;

/** Subprotocols spoken, most preferred first (v5 always wins; the rest by the client's order). */
export const CHANNEL_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v4.base64.channel.k8s.io', 'channel.k8s.io', 'base64.channel.k8s.io'] as const;
/** A negotiated protocol; '' when the client offered none (v1 binary). */
export type ChannelProtocol = (typeof CHANNEL_PROTOCOLS)[number] | '';

export const isBase64Protocol = (protocol: ChannelProtocol): boolean => protocol.includes('base64.');
const hasJsonStatus = (protocol: ChannelProtocol): boolean => protocol.startsWith('v4.') || protocol.startsWith('v5.');

/**
 * The protocol the kubelet would pick from what the client offers (already split and trimmed):
 * v5 if offered at all, else the client's first spoken one; none offered is '' (v1 binary);
 * undefined when the client offered some and Tether speaks none of them.
 */
export function selectChannelProtocol(offered: readonly string[]): ChannelProtocol | undefined {
  const names = offered.map((p) => p.trim()).filter((p) => p !== '');
  if (names.length === 0) return '';
  if (names.includes('v5.channel.k8s.io')) return 'v5.channel.k8s.io';
  return names.find((p): p is ChannelProtocol => (CHANNEL_PROTOCOLS as readonly string[]).includes(p));
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

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard base64, padded, strictly (Buffer's decoder skips what it does not know); CR and LF ignored as Go's. */
function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) return undefined;
  return Buffer.from(compact, 'base64');
}

/** One message from the client, decoded under `protocol`. Never throws. */
export function decodeClientFrame(message: Buffer, protocol: ChannelProtocol): ClientFrame {
  if (message.length === 0) return { type: 'ignored' };
  const first = message[0] as number;
  if (first === STREAM_CLOSE && protocol === 'v5.channel.k8s.io') {
    if (message.length !== 2) return { type: 'invalid', reason: `stream close signal must carry exactly one channel byte, got ${message.length - 1}` };
    const closed = message[1] as number;
    if (closed > RESIZE) return { type: 'invalid', reason: `stream close for unknown channel ${closed}` };
    return { type: 'close', channel: closed };
  }
  const base64 = isBase64Protocol(protocol);
  const channel = base64 ? first - DIGIT_ZERO : first;
  // Only the channels the kubelet reads are decoded; data for the others is ignored unread.
  if (channel !== STDIN && channel !== RESIZE) return { type: 'ignored' };
  const data = base64 ? decodeBase64(message.subarray(1).toString('latin1')) : message.subarray(1);
  if (data === undefined) return { type: 'invalid', reason: `${channel === STDIN ? 'stdin' : 'resize'}: not valid base64 under ${protocol}` };
  return channel === STDIN ? { type: 'stdin', data } : parseResize(data);
}

/** A message for the client on `channel` in the binary protocols' framing. */
export function encodeFrame(channel: number, data: string | Buffer): Buffer {
  const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const frame = Buffer.allocUnsafe(payload.length + 1);
  frame[0] = channel;
  payload.copy(frame, 1);
  return frame;
}

/** A message for the client as `ws` sends it: binary, or text for the base64 protocols. */
export interface OutgoingFrame {
  readonly payload: Buffer | string;
  readonly binary: boolean;
}

/** A message for the client on `channel` under `protocol`. */
export function frameFor(protocol: ChannelProtocol, channel: number, data: string | Buffer): OutgoingFrame {
  if (!isBase64Protocol(protocol)) return { payload: encodeFrame(channel, data), binary: true };
  const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return { payload: String.fromCharCode(DIGIT_ZERO + channel) + payload.toString('base64'), binary: false };
}

/**
 * The end of a session on the error channel under `protocol`: v4 and v5 the Status as JSON; v1 a
 * failure's message as text and nothing for success (the kubelet's v1WriteStatusFunc).
 */
export function statusFrame(protocol: ChannelProtocol, status: EndStatus): OutgoingFrame | undefined {
  if (hasJsonStatus(protocol)) return frameFor(protocol, ERROR, JSON.stringify(status));
  if (status.status === 'Success') return undefined;
  return frameFor(protocol, ERROR, status.message ?? status.reason ?? 'Failure');
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
