/**
 * Who may use the kubelet API, decided as the kubelet decides it in webhook mode:
 * - authentication: a client certificate verified against the configured CA (user = CN, groups =
 *   O), else a bearer token checked with a TokenReview; anything else is anonymous, refused (401);
 * - authorization: a SubjectAccessReview for the request's attributes (resource `nodes`, name =
 *   the node, subresource by path, verb by method), refused (403) unless allowed.
 * The reviews themselves go to the host API server through an `AccessReviewer`
 * (adapters/kubernetes/accessReview.ts); tests fake it. `boundedReviewer` puts a bound on what an
 * anonymous network neighbour can make Tether do: a token the API server rejected is remembered
 * briefly (by its SHA-256, never the token itself), the same token under review is asked once,
 * reviews that reach the API server are rate-limited (429 beyond), and every review has a
 * deadline (503 when it passes), so a flood of made-up tokens costs the API server little.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';
import { callWithDeadline, DeadlineExceededError } from '../lib/callWithDeadline.js';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../adapters/kubernetes/accessReview.js';

export type { AccessReviewer, NodeRequestAttributes, UserInfo };

export type AccessDecision =
  | { readonly allowed: true; readonly user: UserInfo }
  | { readonly allowed: false; readonly code: 401 | 403 | 429 | 503; readonly message: string };

/** More token reviews were asked for than the rate allows. */
export class ReviewRateLimited extends Error {
  override readonly name = 'ReviewRateLimited';
}

export interface BoundedReviewerOptions {
  readonly clock: Clock;
  /** How long a token the API server did not authenticate is refused without asking (default 10 s). */
  readonly negativeTtlMs?: number;
  /** Deadline of one review (default 5 s). */
  readonly timeoutMs?: number;
  /** Reviews per second that reach the API server, sustained (default 20) and in a burst (default 40). */
  readonly reviewsPerSecond?: number;
  readonly burst?: number;
}

function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** `inner` with a negative cache, in-flight sharing, a rate limit and a deadline on token reviews. */
export function boundedReviewer(inner: AccessReviewer, options: BoundedReviewerOptions): AccessReviewer {
  const { clock } = options;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const rate = options.reviewsPerSecond ?? 20;
  const burst = options.burst ?? 40;
  const rejected = new LRUCache<string, number>({ max: 10_000 });
  const inFlight = new Map<string, Promise<UserInfo | undefined>>();
  let tokens = burst;
  let refilledAt = clock.now();
  const take = (): boolean => {
    const now = clock.now();
    tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * rate);
    refilledAt = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  return {
    reviewToken(token) {
      const key = tokenKey(token);
      const until = rejected.get(key);
      if (until !== undefined && clock.now() < until) return Promise.resolve(undefined);
      const pending = inFlight.get(key);
      if (pending) return pending;
      if (!take()) return Promise.reject(new ReviewRateLimited('too many token reviews; retry later'));
      const review = callWithDeadline(clock, timeoutMs, undefined, () => inner.reviewToken(token))
        .then((user) => {
          if (user === undefined) rejected.set(key, clock.now() + (options.negativeTtlMs ?? 10_000));
          return user;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, review);
      return review;
    },
    authorize(user, attributes) {
      return callWithDeadline(clock, timeoutMs, undefined, () => inner.authorize(user, attributes));
    },
  };
}

/** The kubelet's subresource for a path: named ones for stats/metrics/logs/spec, `proxy` for the rest. */
export function subresourceOf(pathname: string): string {
  const first = pathname.split('/')[1] ?? '';
  const named: Record<string, string> = { stats: 'stats', metrics: 'metrics', logs: 'log', spec: 'spec', checkpoint: 'checkpoint', configz: 'configz' };
  return named[first] ?? 'proxy';
}

export function verbOf(method: string | undefined): string {
  const verbs: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
  return verbs[method ?? 'GET'] ?? 'get';
}

export function requestAttributes(nodeName: string, method: string | undefined, pathname: string): NodeRequestAttributes {
  return { verb: verbOf(method), resource: 'nodes', subresource: subresourceOf(pathname), name: nodeName };
}

/** The user of a verified client certificate: CN, and one group per O. */
export function certificateUser(socket: TLSSocket): UserInfo | undefined {
  if (!socket.authorized) return undefined;
  const subject = socket.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  const cn = subject?.['CN'];
  const username = Array.isArray(cn) ? cn[0] : cn;
  if (!username) return undefined;
  const o = subject?.['O'];
  return { username, groups: o === undefined ? [] : Array.isArray(o) ? o : [o] };
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** A review that could not be had: too many (429) or too slow (503); anything else is the caller's 500. */
function unavailable(error: unknown): AccessDecision | undefined {
  if (error instanceof ReviewRateLimited) return { allowed: false, code: 429, message: `Too Many Requests: ${error.message}` };
  if (error instanceof DeadlineExceededError) return { allowed: false, code: 503, message: `Service Unavailable: the access review ${error.message}` };
  return undefined;
}

export async function decideAccess(reviewer: AccessReviewer, nodeName: string, req: IncomingMessage, pathname: string): Promise<AccessDecision> {
  try {
    return await decide(reviewer, nodeName, req, pathname);
  } catch (error) {
    const decision = unavailable(error);
    if (decision) return decision;
    throw error;
  }
}

async function decide(reviewer: AccessReviewer, nodeName: string, req: IncomingMessage, pathname: string): Promise<AccessDecision> {
  const token = bearerToken(req.headers.authorization);
  const user = certificateUser(req.socket as TLSSocket) ?? (token === undefined ? undefined : await reviewer.reviewToken(token));
  if (user === undefined) return { allowed: false, code: 401, message: 'Unauthorized' };
  const attributes = requestAttributes(nodeName, req.method, pathname);
  const { allowed, reason } = await reviewer.authorize(user, attributes);
  if (allowed) return { allowed: true, user };
  const what = `user=${user.username}, verb=${attributes.verb}, resource=${attributes.resource}, subresource=${attributes.subresource}`;
  return { allowed: false, code: 403, message: `Forbidden (${what})${reason ? `: ${reason}` : ''}` };
}
