/**
 * The malformed requests of issue 22, as bytes on the wire: request targets `new URL` cannot
 * parse (`//`, `//[`, `//a b`, `//x:99999`, an absolute form with a bad port), with and without a
 * WebSocket upgrade, unauthenticated and as an authorized user; broken headers; a WebSocket
 * handshake that ws refuses; and bytes that are not TLS at all, or a TLS handshake cut short. Each
 * says what a kubelet answers: an HTTP status (one of `statuses`), or, below HTTP, that the
 * connection is closed. Whatever the request, the process must be the same afterwards.
 */
import { randomBytes } from 'node:crypto';
import { clientHello, httpRequest, upgradeHeaders } from './hostileClients.js';

export interface MalformedRequest {
  readonly name: string;
  readonly bytes: () => Promise<Buffer | string>;
  readonly plain?: boolean;
  readonly endAfterWrite?: boolean;
  /** Sent with the attacker's (authorized) client certificate. */
  readonly authorized?: boolean;
  readonly expect: { readonly statuses: readonly number[] } | { readonly closed: true };
}

const CHANNEL = 'v5.channel.k8s.io';
const text = (s: string) => (): Promise<string> => Promise.resolve(s);
const plainHeaders = ['Host: kubelet', 'Connection: close'];

/** The corpus; `pod` is the bait (namespace/name) for the authorized requests. */
export function malformedRequests(pod: { readonly namespace: string; readonly pod: string }): MalformedRequest[] {
  const upgrade = (target: string, extra: readonly string[] = []): string => httpRequest(`GET ${target} HTTP/1.1`, [...upgradeHeaders(CHANNEL), ...extra]);
  // What a kubelet answers each target (Go's url.ParseRequestURI): `//…` is a path, not an
  // authority, so `//`, `//[` and `//x:99999` parse and meet the authentication filter (401), then
  // the router (404); a space or an absolute form with a bad port is a malformed request (400).
  const badTargets: ReadonlyArray<{ target: string; unauthenticated: number; authorized: number }> = [
    { target: '//', unauthenticated: 401, authorized: 404 },
    { target: '//[', unauthenticated: 401, authorized: 404 },
    { target: '//a b', unauthenticated: 400, authorized: 400 },
    { target: '//x:99999', unauthenticated: 401, authorized: 404 },
    { target: 'https://kubelet:99999/pods', unauthenticated: 400, authorized: 400 },
  ];
  const exec = `/exec/${pod.namespace}/${pod.pod}/app`;
  return [
    ...badTargets.map(({ target, unauthenticated }): MalformedRequest => ({ name: `unauthenticated upgrade GET ${target}`, bytes: text(upgrade(target)), expect: { statuses: [unauthenticated] } })),
    ...badTargets.map(({ target, unauthenticated }): MalformedRequest => ({ name: `unauthenticated GET ${target}`, bytes: text(httpRequest(`GET ${target} HTTP/1.1`, plainHeaders)), expect: { statuses: [unauthenticated] } })),
    ...badTargets.map(({ target, authorized }): MalformedRequest => ({ name: `authorized upgrade GET ${target}`, bytes: text(upgrade(target)), authorized: true, expect: { statuses: [authorized] } })),
    { name: 'authorized upgrade with a path that does not decode (/exec/%ZZ/…)', bytes: text(upgrade(`/exec/%ZZ/${pod.pod}/app?command=ls&output=1`)), authorized: true, expect: { statuses: [400, 404] } },
    { name: 'authorized exec upgrade with a flag that is not a boolean', bytes: text(upgrade(`${exec}?command=ls&output=maybe`)), authorized: true, expect: { statuses: [400] } },
    // The query is read leniently (requestTarget.ts): the broken escape stays as text and the command runs (101), or a stricter reader refuses it (400).
    { name: 'authorized exec upgrade with a query that does not decode', bytes: text(upgrade(`${exec}?command=%E0%A4%A&output=1`)), authorized: true, expect: { statuses: [101, 400] } },
    {
      name: 'authorized exec upgrade with an unsupported WebSocket version',
      bytes: text(upgrade(`${exec}?command=ls&output=1`).replace('Sec-WebSocket-Version: 13', 'Sec-WebSocket-Version: 99')),
      authorized: true, expect: { statuses: [400, 426] },
    },
    {
      name: 'authorized exec upgrade without Sec-WebSocket-Key',
      bytes: text(upgrade(`${exec}?command=ls&output=1`).replace(/Sec-WebSocket-Key: \S+\r\n/, '')),
      authorized: true, expect: { statuses: [400] },
    },
    { name: 'authorized port-forward upgrade offering no subprotocol', bytes: text(upgrade(`/portForward/${pod.namespace}/${pod.pod}`).replace(/Sec-WebSocket-Protocol: .*\r\n/, '')), authorized: true, expect: { statuses: [400] } },
    { name: 'a header line without a colon', bytes: text(httpRequest('GET /healthz HTTP/1.1', [...plainHeaders, 'this is not a header'])), expect: { statuses: [400] } },
    { name: 'a header with a NUL byte', bytes: text(httpRequest('GET /healthz HTTP/1.1', [...plainHeaders, 'X-Bad: a\u0000b'])), expect: { statuses: [400] } },
    { name: 'Content-Length: -1', bytes: text(httpRequest('POST /pods HTTP/1.1', [...plainHeaders, 'Content-Length: -1'])), expect: { statuses: [400] } },
    { name: 'a chunked body with a chunk size that is not hex', bytes: text(`${httpRequest('POST /pods HTTP/1.1', [...plainHeaders, 'Transfer-Encoding: chunked'])}zz\r\n`), expect: { statuses: [400, 401] } },
    { name: '64 KiB of headers', bytes: text(httpRequest('GET /healthz HTTP/1.1', [...plainHeaders, `X-Big: ${'a'.repeat(64 * 1024)}`])), expect: { statuses: [431, 400] } },
    { name: 'a bearer token of 64 KiB on an upgrade', bytes: text(upgrade('/exec/a/b/c?command=ls&output=1', [`Authorization: Bearer ${'t'.repeat(64 * 1024)}`])), expect: { statuses: [431, 400] } },
    { name: 'a method that is not HTTP', bytes: text(httpRequest('BREW /pods HTTP/1.1', plainHeaders)), expect: { statuses: [400, 405, 501] } },
    { name: 'an HTTP/2 preface without ALPN', bytes: text('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), endAfterWrite: true, expect: { statuses: [400, 505] } },
    { name: 'HTTP in clear text to the TLS port', bytes: text(httpRequest('GET /healthz HTTP/1.1', plainHeaders)), plain: true, endAfterWrite: true, expect: { closed: true } },
    { name: '4 KiB of random bytes, not TLS', bytes: () => Promise.resolve(randomBytes(4096)), plain: true, endAfterWrite: true, expect: { closed: true } },
    { name: 'a TLS handshake cut short (half a ClientHello, then EOF)', bytes: async () => { const hello = await clientHello(); return hello.subarray(0, Math.floor(hello.length / 2)); }, plain: true, endAfterWrite: true, expect: { closed: true } },
  ];
}
