/**
 * The WebSocket subprotocol of Kubernetes port-forward, `SPDY/3.1+portforward.k8s.io` (client-go's
 * tunnelling dialer prefixes the SPDY protocol `portforward.k8s.io` with `SPDY/3.1+`), and how to
 * get it past `ws`: ws accepts only RFC 7230 tokens as subprotocol names, and `/` is not a token
 * character, so its server would answer kubectl with 400 and its client would refuse to send it.
 * Gorilla (kubectl, the API server) accepts it. So the header is moved aside around ws's checks:
 * the server takes it off the request before ws parses it and adds it to the 101 answer; the
 * client sends it as a plain header and takes the answer's off before ws looks.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocket, type ClientOptions, type WebSocketServer } from 'ws';

export const PORT_FORWARD_TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';

function offered(req: IncomingMessage): string[] {
  return (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
}

/** Does the request offer the tunnel protocol? */
export function offersTunnelProtocol(req: IncomingMessage): boolean {
  return offered(req).includes(PORT_FORWARD_TUNNEL_PROTOCOL);
}

/** Server side: makes `wss` answer every upgrade with the tunnel protocol; call `prepareTunnelRequest` on each request. */
export function answerWithTunnelProtocol(wss: WebSocketServer): void {
  wss.on('headers', (headers) => headers.push(`Sec-WebSocket-Protocol: ${PORT_FORWARD_TUNNEL_PROTOCOL}`));
}

/** Server side: takes the subprotocols off a request (checked already) so ws does not parse them. */
export function prepareTunnelRequest(req: IncomingMessage): void {
  delete req.headers['sec-websocket-protocol'];
}

/** Client side: a WebSocket offering the tunnel protocol; `accepted()` says whether the server chose it. */
export function openTunnelSocket(url: string, options: ClientOptions): { socket: WebSocket; accepted: () => boolean } {
  const socket = new WebSocket(url, { ...options, headers: { ...options.headers, 'Sec-WebSocket-Protocol': PORT_FORWARD_TUNNEL_PROTOCOL } });
  let chosen: string | undefined;
  socket.once('upgrade', (res) => {
    const value = res.headers['sec-websocket-protocol'];
    chosen = Array.isArray(value) ? value[0] : value;
    delete res.headers['sec-websocket-protocol'];
  });
  return { socket, accepted: () => chosen === PORT_FORWARD_TUNNEL_PROTOCOL };
}
