/**
 * client-node's HTTP library for API calls, on `node:https` / `node:http` instead of its default
 * (node-fetch). Why by hand: node-fetch is a whole fetch implementation (WHATWG headers, body
 * mixins, redirects) on top of the same `http.request`, and it cost 0.04–0.3 ms more CPU per
 * request than this (bench:request-cost, docs/benchmarks.md): with thousands of Events and status
 * writes per storm, an eighth to a seventh of the agent's CPU (bench:compare). What node-fetch did that API calls
 * rely on is kept: the request's agent (TLS material, the keep-alive pool, proxies), its headers
 * (with a User-Agent and `Accept-Encoding: gzip` unless given), a string body with its length,
 * the abort signal (an aborted request is not sent; a running one loses its socket), gzip answers
 * (decoded as leniently as node-fetch does), no decoding of bodies that are empty by definition
 * (HEAD, 204, 304). Not kept: redirects, which an API server does not send for API calls (a 3xx
 * reaches client-node's response processor, which rejects it as any unexpected status).
 *
 * An answer is read up to {@link MAX_RESPONSE_BYTES}, compressed and decompressed alike; past it
 * the request is destroyed and rejects (node-fetch had no bound of its own: past V8's string
 * limit its `text()` threw). Watches do not come here (client-node streams them through node-fetch,
 * line by line).
 */
import { constants } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import type { HttpLibrary, RequestContext } from '@kubernetes/client-node';
import { ResponseContext, wrapHttpLibrary } from '@kubernetes/client-node';
import { KindedError, kindOf } from '../../lib/errorKind.js';
import { errorCode, errorMessage } from '../../lib/errorMessage.js';

/**
 * The largest answer read: V8's longest string, past which client-node could not read the body as
 * text anyway. Not smaller: some of Tether's lists are not paged (a namespace's Secrets, a
 * cluster's Nodes), and a legitimate answer must never fail as if the network had.
 */
export const MAX_RESPONSE_BYTES = constants.MAX_STRING_LENGTH;

const USER_AGENT = `tether (${process.platform}/${process.arch})`;

/** A request that failed before an answer was read in full: transient, as any network failure. */
export class TransportError extends KindedError {
  constructor(
    message: string,
    /** The socket's or TLS's error code (`ECONNRESET`, `CERT_HAS_EXPIRED`, …), when there is one. */
    readonly code: string | undefined,
    cause?: unknown,
  ) {
    super('transient', message, { cause });
    this.name = 'TransportError';
  }
}

/** Sends one API request and reads its answer; rejects with {@link TransportError} or the signal's reason. */
export function sendRequest(request: RequestContext, maxBytes: number = MAX_RESPONSE_BYTES): Promise<ResponseContext> {
  return new Promise((resolve, reject) => {
    const url = new URL(request.getUrl());
    const method = request.getHttpMethod();
    const where = `${method} ${url.origin}${url.pathname}`;
    const body = request.getBody();
    // A defect in the caller, not a network failure: none of Tether's API calls sends a form.
    if (body !== undefined && typeof body !== 'string') {
      reject(new TypeError(`${where}: only string bodies are sent (got ${Object.prototype.toString.call(body)})`));
      return;
    }
    const signal = request.getSignal();
    // Aborted while authentication ran (a deadline, a fence): not sent, so no pooled socket is spent on it.
    if (signal?.aborted === true) {
      reject(abortError(where, signal));
      return;
    }
    const headers: http.OutgoingHttpHeaders = { 'user-agent': USER_AGENT, 'accept-encoding': 'gzip' };
    for (const [name, value] of Object.entries(request.getHeaders())) headers[name.toLowerCase()] = value;
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
    const options: https.RequestOptions = { method, headers };
    const agent = request.getAgent();
    if (agent !== undefined) options.agent = agent;
    if (signal !== undefined) options.signal = signal;
    const transport = url.protocol === 'http:' ? http : https;
    const failed = (err: unknown): void => reject(signal?.aborted === true ? abortError(where, signal) : transportError(where, err));
    const req = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let length = 0;
      res.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length > maxBytes) {
          req.destroy(new TransportError(`${where}: the answer is over ${maxBytes} bytes`, undefined));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', failed);
      // Closed before its end (the server or the network cut it): settled here, whatever else fires.
      res.on('close', () => {
        if (!res.complete) failed(new Error('the connection closed before the answer was complete'));
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const empty = method === 'HEAD' || status === 204 || status === 304 || length === 0;
        decoded(empty ? undefined : res.headers['content-encoding'], Buffer.concat(chunks, length), maxBytes).then(
          (data) => resolve(new ResponseContext(status, flatHeaders(res.headers), { text: () => Promise.resolve(data.toString('utf8')), binary: () => Promise.resolve(data) })),
          (err: unknown) => reject(transportError(`${where}: the answer's ${String(res.headers['content-encoding'])} body`, err)),
        );
      });
    });
    req.on('error', failed);
    req.end(body);
  });
}

/** The library handed to every API client (clientKubeConfig.ts). */
export const nodeHttpLibrary: HttpLibrary = wrapHttpLibrary({ send: (request) => sendRequest(request) });

/** Only gzip is asked for (all an API server sends): a body in a coding not asked for is passed on undecoded. */
function decoded(encoding: string | undefined, data: Buffer, maxBytes: number): Promise<Buffer> {
  if (encoding !== 'gzip' && encoding !== 'x-gzip') return Promise.resolve(data);
  // Sync flushes, as node-fetch: a server that ends a gzip stream early still gets its bytes read.
  const options = { maxOutputLength: maxBytes, flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  return new Promise((resolve, reject) => zlib.gunzip(data, options, (err, out) => (err ? reject(err) : resolve(out))));
}

/** client-node reads headers by lower-case name, one string each (as node-fetch joined them). */
function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The signal's reason if it names its kind (a fence, a deadline), else a transient error caused by it. */
function abortError(where: string, signal: AbortSignal): unknown {
  const reason: unknown = signal.reason;
  return kindOf(reason) !== undefined ? reason : new TransportError(`${where}: aborted`, 'ABORT_ERR', reason);
}

function transportError(where: string, err: unknown): TransportError {
  if (err instanceof TransportError) return err;
  return new TransportError(`${where}: ${errorMessage(err)}`, errorCode(err), err);
}
