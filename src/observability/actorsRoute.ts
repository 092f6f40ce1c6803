/**
 * `GET /actors`: the selected part of the actor tree, streamed as it is walked (never built in
 * memory as a whole), as one JSON document `{"items":[...],"count":n,"cursor":token?,"continue":token?}`
 * or as NDJSON (one snapshot per line; when there is more, a last line `{"cursor":token,"continue":token}`).
 *
 * Query: `path`, `node`, `namespace`, `pod`, `depth`, `limit`, `cursor` (`continue` is the same),
 * `format=ndjson` (or `Accept: application/x-ndjson`), and the content filters `state` (comma
 * separated), `role` (kinds, comma separated), `q` (text in name, namespace/name or path),
 * `restarted=true|false`, `error` (text in the last error, `*` for any). A page ends after `limit`
 * items or at PAGE_BYTES, whichever comes first, so no answer is unbounded whatever the tree; its
 * cursor resumes after the last item. The walk yields to the event loop every few hundred items,
 * so a large tree never stalls the actors, and waits for the socket to drain, so a slow reader
 * costs no memory.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ActorRegistry, ActorSnapshot } from '../runtime/actorRegistry.js';
import { walkActors, type ActorSelection } from './actorQuery.js';
import { writeChunk } from '../adapters/http/writeChunk.js';
import { definedOnly, ifDefined } from '../lib/defaults.js';
import type { ActorFilter } from './actorFilter.js';
import { ACTOR_STATES, isActorState, type ActorState } from './actorState.js';

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

function list(raw: string | undefined): string[] | undefined {
  return raw === undefined ? undefined : raw.split(',').map((v) => v.trim()).filter((v) => v !== '');
}

function states(raw: string | undefined): ActorState[] | undefined {
  const values = list(raw);
  const bad = values?.find((v) => !isActorState(v));
  if (bad !== undefined) throw new BadRequest(`state must be among ${ACTOR_STATES.join(', ')}, got ${JSON.stringify(bad)}`);
  return values as ActorState[] | undefined;
}

function booleanParam(params: URLSearchParams, name: string): boolean | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw !== 'true' && raw !== 'false') throw new BadRequest(`${name} must be true or false, got ${JSON.stringify(raw)}`);
  return raw === 'true';
}

/** The content filters of a query (shared by /actors, /actors/summary and /actors/events). */
export function parseFilter(p: URLSearchParams): ActorFilter {
  const text = (name: string): string | undefined => p.get(name) || undefined;
  return definedOnly({
    states: states(text('state')),
    roles: list(text('role')),
    q: text('q'),
    restarted: booleanParam(p, 'restarted'),
    error: text('error'),
  });
}

/** The structural selection and filters of a query (no paging). */
export function parseSelection(p: URLSearchParams): ActorSelection {
  const text = (name: string): string | undefined => p.get(name) || undefined;
  const filter = parseFilter(p);
  return definedOnly({
    path: text('path'),
    node: text('node'),
    namespace: text('namespace'),
    pod: text('pod'),
    depth: nonNegativeInteger(p, 'depth'),
    filter: Object.keys(filter).length === 0 ? undefined : filter,
  });
}

/** Reads the query of `GET /actors`; throws BadRequest naming the bad parameter. */
export function parseActorsRequest(url: URL, accept: string | undefined): ActorsRequest {
  const p = url.searchParams;
  const limit = nonNegativeInteger(p, 'limit');
  const token = p.get('cursor') || p.get('continue') || undefined;
  const selection: ActorSelection = { ...parseSelection(p), ...definedOnly({ after: ifDefined(token, decodeContinue) }) };
  const wantsNdjson = p.get('format') === 'ndjson' || (accept ?? '').includes('application/x-ndjson');
  if (limit === 0) throw new BadRequest('limit must be at least 1');
  return { selection, limit, format: wantsNdjson ? 'ndjson' : 'json' };
}

const YIELD_EVERY = 500;
/** A page ends once it holds this many bytes of items: every answer stays under 100 KiB. */
export const PAGE_BYTES = 96 * 1024;

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
  let bytes = 0;
  while (!next.done && !res.destroyed) {
    if (request.limit !== undefined && count >= request.limit) break;
    const line = item(next.value, count);
    const size = Buffer.byteLength(line);
    // Always at least one item, so a page moves forward even past an oversized snapshot.
    if (count > 0 && bytes + size > PAGE_BYTES) break;
    bytes += size;
    batch += line;
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
  if (request.format === 'json') batch += `],"count":${count}${more ? `,"cursor":${JSON.stringify(more)},"continue":${JSON.stringify(more)}` : ''}}`;
  else if (more) batch += `${JSON.stringify({ cursor: more, continue: more })}\n`;
  res.end(batch);
  return count;
}
