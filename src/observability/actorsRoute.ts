/**
 * `GET /actors`: the selected part of the actor tree, streamed as it is walked (never built in
 * memory as a whole), as one JSON document `{"items":[...],"count":n,"continue":token?}` or as
 * NDJSON (one snapshot per line; with `limit`, a last line `{"continue":token}`).
 *
 * Query: `path`, `node`, `namespace`, `pod`, `depth`, `limit`, `continue`, `format=ndjson` (or
 * `Accept: application/x-ndjson`). A page ends after `limit` items; its `continue` token resumes
 * after the last one. The walk yields to the event loop every few hundred items, so a large tree
 * never stalls the actors, and waits for the socket to drain, so a slow reader costs no memory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ActorRegistry, ActorSnapshot } from '../runtime/actorRegistry.js';
import { walkActors, type ActorSelection } from './actorQuery.js';
import { writeChunk } from '../adapters/http/writeChunk.js';
import { definedOnly, ifDefined } from '../lib/defaults.js';

export interface ActorsRequest {
  readonly selection: ActorSelection;
  readonly limit: number | undefined;
  readonly format: 'json' | 'ndjson';
}

export class BadRequest extends Error {}

function nonNegativeInteger(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new BadRequest(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return value;
}

export function encodeContinue(path: string): string {
  return Buffer.from(path, 'utf8').toString('base64url');
}

export function decodeContinue(token: string): string {
  const path = Buffer.from(token, 'base64url').toString('utf8');
  if (path === '' || encodeContinue(path) !== token) throw new BadRequest('continue token is malformed');
  return path;
}

/** Reads the query of `GET /actors`; throws BadRequest naming the bad parameter. */
export function parseActorsRequest(url: URL, accept: string | undefined): ActorsRequest {
  const p = url.searchParams;
  const text = (name: string): string | undefined => p.get(name) || undefined;
  const depth = nonNegativeInteger(p, 'depth');
  const limit = nonNegativeInteger(p, 'limit');
  const token = text('continue');
  const selection: ActorSelection = {
    ...definedOnly({
      path: text('path'),
      node: text('node'),
      namespace: text('namespace'),
      pod: text('pod'),
      depth,
      after: ifDefined(token, decodeContinue),
    }),
  };
  const wantsNdjson = p.get('format') === 'ndjson' || (accept ?? '').includes('application/x-ndjson');
  if (limit === 0) throw new BadRequest('limit must be at least 1');
  return { selection, limit, format: wantsNdjson ? 'ndjson' : 'json' };
}

const YIELD_EVERY = 500;


/** Streams the page; returns how many items were written. */
export async function serveActors(registry: ActorRegistry, req: IncomingMessage, res: ServerResponse, url: URL): Promise<number> {
  const request = parseActorsRequest(url, req.headers.accept);
  const walk = walkActors(registry, request.selection);
  // Take the first item before answering, so a bad continue token is a 400, not a broken stream.
  let next = walk.next();
  res.writeHead(200, {
    'content-type': request.format === 'ndjson' ? 'application/x-ndjson' : 'application/json',
    'cache-control': 'no-store',
  });
  const item = request.format === 'ndjson'
    ? (s: ActorSnapshot): string => `${JSON.stringify(s)}\n`
    : (s: ActorSnapshot, i: number): string => `${i === 0 ? '' : ','}${JSON.stringify(s)}`;
  if (request.format === 'json') await writeChunk(res, '{"items":[');
  let count = 0;
  let last: string | undefined;
  let batch = '';
  while (!next.done && !res.destroyed) {
    if (request.limit !== undefined && count >= request.limit) break;
    batch += item(next.value, count);
    last = next.value.path;
    count++;
    if (count % YIELD_EVERY === 0) {
      await writeChunk(res, batch);
      batch = '';
      await yieldToLoop();
    }
    next = walk.next();
  }
  const more = !next.done && last !== undefined ? encodeContinue(last) : undefined;
  if (request.format === 'json') batch += `],"count":${count}${more ? `,"continue":${JSON.stringify(more)}` : ''}}`;
  else if (more) batch += `${JSON.stringify({ continue: more })}\n`;
  res.end(batch);
  return count;
}
