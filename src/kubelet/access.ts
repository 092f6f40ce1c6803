/**
 * Who may use the kubelet API, decided as the kubelet decides it in webhook mode:
 * - authentication: a client certificate verified against the configured CA (user = CN, groups =
 *   O), else a bearer token checked with a TokenReview; anything else is anonymous, refused (401);
 * - authorization: a SubjectAccessReview for the request's attributes (resource `nodes`, name =
 *   the node, subresource by path, verb by method), refused (403) unless allowed.
 * The reviews themselves go to the host API server through an `AccessReviewer`
 * (adapters/kubernetes/accessReview.ts); tests fake it.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../adapters/kubernetes/accessReview.js';

export type { AccessReviewer, NodeRequestAttributes, UserInfo };

export type AccessDecision =
  | { readonly allowed: true; readonly user: UserInfo }
  | { readonly allowed: false; readonly code: 401 | 403; readonly message: string };

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

export async function decideAccess(reviewer: AccessReviewer, nodeName: string, req: IncomingMessage, pathname: string): Promise<AccessDecision> {
  const token = bearerToken(req.headers.authorization);
  const user = certificateUser(req.socket as TLSSocket) ?? (token === undefined ? undefined : await reviewer.reviewToken(token));
  if (user === undefined) return { allowed: false, code: 401, message: 'Unauthorized' };
  const attributes = requestAttributes(nodeName, req.method, pathname);
  const { allowed, reason } = await reviewer.authorize(user, attributes);
  if (allowed) return { allowed: true, user };
  const what = `user=${user.username}, verb=${attributes.verb}, resource=${attributes.resource}, subresource=${attributes.subresource}`;
  return { allowed: false, code: 403, message: `Forbidden (${what})${reason ? `: ${reason}` : ''}` };
}
