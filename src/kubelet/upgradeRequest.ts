/**
 * What an upgrade request must carry before Tether spends a review on it: a Host header (HTTP/1.1),
 * a GET asking for a
 * WebSocket (RFC 6455 §4.2.1: `Upgrade: websocket`, a 16-byte base64 `Sec-WebSocket-Key`, version
 * 13, or 8 which `ws` also takes). Anything else could never become a session, so it is refused
 * at once with the reason, before authentication: SPDY (what an API server without the
 * WebSocket feature gates sends) gets a 400 that names the gates instead of a hang.
 */
import type { IncomingMessage } from 'node:http';
import { PORT_FORWARD_TUNNEL_PROTOCOL } from '../adapters/spdy/tunnelProtocol.js';
import { CHANNEL_PROTOCOLS } from './channelProtocol.js';
import { Refusal } from './rejections.js';

/** The exact feature name the API server looks for in `status.declaredFeatures`. */
export const WEBSOCKET_FEATURE = 'ExtendWebSocketsToKubelet';

const WEBSOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A Refusal for an upgrade that cannot work, or undefined; `nodeName` and `kind` for its message. */
export function upgradeProblem(req: IncomingMessage, nodeName: string, kind: string | undefined): Refusal | undefined {
  // Node checks Host on plain requests (requireHostHeader) but not on upgrades; Go's server on both.
  if (req.httpVersion !== '1.0' && header(req, 'host') === undefined) return new Refusal(400, 'malformed-header', 'missing required Host header');
  const upgrade = header(req, 'upgrade') ?? '';
  if (upgrade.toLowerCase() !== 'websocket') {
    const what = kind ?? 'streaming';
    const protocols = kind === 'portForward' ? PORT_FORWARD_TUNNEL_PROTOCOL : kind === undefined ? `${CHANNEL_PROTOCOLS.join(', ')} or ${PORT_FORWARD_TUNNEL_PROTOCOL}` : CHANNEL_PROTOCOLS.join(', ');
    return new Refusal(400, 'unsupported-upgrade', `Tether's kubelet API (node ${nodeName}) serves ${what} over WebSockets only ` +
      `(${protocols}), not ${upgrade === '' ? 'a plain request' : JSON.stringify(upgrade.slice(0, 40))}; the API server needs the ` +
      `${WEBSOCKET_FEATURE} and NodeDeclaredFeatures feature gates (on by default since Kubernetes 1.36) and a WebSocket client (kubectl 1.31+)`);
  }
  if (req.method !== 'GET') return new Refusal(405, 'method-not-allowed', `a WebSocket upgrade is a GET, not ${(req.method ?? '').slice(0, 20)}`, { Allow: 'GET' });
  if (!WEBSOCKET_KEY.test(header(req, 'sec-websocket-key') ?? '')) {
    return new Refusal(400, 'malformed-header', 'a WebSocket upgrade needs a Sec-WebSocket-Key of 16 bytes in base64');
  }
  const version = header(req, 'sec-websocket-version');
  if (version !== '13' && version !== '8') {
    return new Refusal(400, 'malformed-header', 'unsupported Sec-WebSocket-Version (13 and 8 are spoken)', { 'Sec-WebSocket-Version': '13, 8' });
  }
  return undefined;
}
