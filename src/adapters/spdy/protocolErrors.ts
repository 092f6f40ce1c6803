/**
 * Why a SPDY connection was ended by Tether for the peer's sake, one closed list (what
 * `onProtocolError` is told, once per connection, and what the kubelet counts as a rejection).
 */
export const SPDY_PROTOCOL_ERRORS = [
  /** A frame over the frame limit (WebSocket close 1009). */
  'spdy-frame-too-large',
  /** Bytes that are not SPDY/3.1 as spdystream speaks it: a text message, a bad frame or stream id. */
  'spdy-protocol-error',
  /** A header block over a limit (compressed, inflated, a name, a value): a zlib bomb is one. */
  'spdy-header-too-large',
  /** A peer that does not read what it is sent (outboundQueue.ts). */
  'spdy-slow-reader',
  /** A defect of Tether's while handling a frame (WebSocket close 1011). */
  'spdy-internal-error',
] as const;

export type SpdyProtocolError = (typeof SPDY_PROTOCOL_ERRORS)[number];
