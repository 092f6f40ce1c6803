/**
 * SPDY/3.1 tunnelled in a WebSocket, the protocol of `kubectl port-forward` by default since
 * Kubernetes 1.31: `frames.ts` (the frames, read from a byte stream), `headerBlock.ts` (header blocks and their
 * zlib contexts, `dictionary.ts`), `connection.ts` (a connection in either role over a `ws`
 * WebSocket), `tunnelProtocol.ts` (the subprotocol, and getting it past `ws`). The kubelet API
 * serves it (kubelet/portForwardSession.ts); the Kubernetes provider speaks it to the remote API
 * server (providers/kubernetes/streams/remotePortForward.ts).
 */
export {
  INBOUND_HIGH_WATER_BYTES, MAX_PENDING_PINGS, SpdyConnection, StreamClosedError, type CloseInfo, type SpdyConnectionOptions, type SpdyStream,
} from './connection.js';
export { OUTBOUND_HIGH_WATER_BYTES, OUTBOUND_LIMIT_BYTES, OUTBOUND_STALL_MS, SLOW_READER_GRACE_MS } from './outboundQueue.js';
export { SPDY_PROTOCOL_ERRORS, type SpdyProtocolError } from './protocolErrors.js';
export { HeaderBlockError, headerValue, type Headers } from './headerBlock.js';
export { openTunnelSocket, PORT_FORWARD_TUNNEL_PROTOCOL } from './tunnelProtocol.js';
