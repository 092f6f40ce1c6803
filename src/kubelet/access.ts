/**
 * Who may use the kubelet API, decided as kubelet v1.36.3 decides it in webhook mode
 * (pkg/kubelet/server/server.go `InstallAuthFilter`):
 * - authentication: a client certificate verified against the configured CA (user = CN, groups =
 *   O), else a bearer token checked with a TokenReview; anything else is anonymous, refused (401);
 * - authorization: a SubjectAccessReview for each of the request's attribute sets in turn
 *   (requestAttributes.ts: resource `nodes`, name = the node, the fine-grained subresource then
 *   its `proxy` fallback, verb by method, `create` for streams); the first allowed lets the request
 *   in, none allowed is 403 naming them; a review that fails ends the check (no fallback past an
 *   error, as the kubelet).
 * The reviews go to the host API server through an `AccessReviewer`
 * (adapters/kubernetes/accessReview.ts), which `boundedReviewer` (boundedReviewer.ts) caches and
 * limits per source address; tests fake it.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { DeadlineExceededError } from '../lib/callWithDeadline.js';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../adapters/kubernetes/accessReview.js';
import { ReviewRateLimited } from './boundedReviewer.js';
import { nodeRequestAttributes } from './requestAttributes.js';

export type { AccessReviewer, NodeRequestAttributes, UserInfo };
export * from './boundedReviewer.js';
export { nodeRequestAttributes, requestAttributes, subresourceOf, subresourcesOf, verbOf } from './requestAttributes.js';

export type AccessDecision =
  | { readonly allowed: true; readonly user: UserInfo }
  | { readonly allowed: false; readonly code: 401 | 403 | 429 | 503; readonly message: string };

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

/** The caller's address for the per-address limit; an IPv4 client seen on a dual-stack socket counts as itself. */
export function sourceAddress(req: IncomingMessage): string {
  const address = req.socket?.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
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

function forbidden(user: UserInfo, tried: readonly NodeRequestAttributes[], reason: string | undefined): AccessDecision {
  const [first] = tried;
  const subresources = tried.map((a) => a.subresource);
  const which = subresources.length === 1 ? `subresource=${subresources[0] ?? ''}` : `subresource(s)=[${subresources.join(' ')}]`;
  const what = `user=${user.username}, verb=${first?.verb ?? ''}, resource=nodes, ${which}`;
  return { allowed: false, code: 403, message: `Forbidden (${what})${reason ? `: ${reason}` : ''}` };
}

async function decide(reviewer: AccessReviewer, nodeName: string, req: IncomingMessage, pathname: string): Promise<AccessDecision> {
  const token = bearerToken(req.headers.authorization);
  const user = certificateUser(req.socket as TLSSocket) ?? (token === undefined ? undefined : await reviewer.reviewToken(token, sourceAddress(req)));
  if (user === undefined) return { allowed: false, code: 401, message: 'Unauthorized' };
  const tried = nodeRequestAttributes(nodeName, req.method, pathname);
  let reason: string | undefined;
  for (const attributes of tried) {
    const verdict = await reviewer.authorize(user, attributes);
    if (verdict.allowed) return { allowed: true, user };
    reason = verdict.reason ?? reason;
  }
  return forbidden(user, tried, reason);
}
