/**
 * The SubjectAccessReview attributes of a kubelet API request, as kubelet v1.36.3 computes them
 * (k8s.io/kubernetes@v1.36.3 pkg/kubelet/server/auth.go, `GetRequestAttributes`, with
 * KubeletFineGrainedAuthz, GA and locked on in 1.36):
 * - resource `nodes`, name = the node, verb from the method (POST create, GET get, PUT update,
 *   PATCH patch, DELETE delete; any other method has no verb: "", which only a `*` rule allows);
 * - subresources, tried in order, the first allowed wins: `/pods`, `/runningpods` → pods, then
 *   proxy; `/healthz` → healthz, proxy; `/configz` → configz, proxy; `/stats` → stats; `/metrics`
 *   → metrics; `/logs` → log; `/checkpoint` → checkpoint; `/statusz` → statusz; `/flagz` → configz;
 *   anything else → proxy. A path matches a prefix as the kubelet's `isSubpath` does.
 * One rule is Tether's, stricter than that kubelet: exec, attach and portForward need `create`
 * whatever the method. The kubelet authorizes a WebSocket upgrade (a GET) as `get nodes/proxy`, so
 * anyone allowed only to read through nodes/proxy (a monitoring role, often) could open a shell
 * over a WebSocket; 1.36's API server closes that hole for pods/exec, pods/attach and
 * pods/portforward by also checking `create` (AuthorizePodWebsocketUpgradeCreatePermission,
 * pkg/registry/core/pod/rest/authorize.go), and Tether does the same at nodes/proxy, so a stream
 * needs the same right over SPDY (POST) and WebSockets (GET). The API server's own kubelet client
 * has it (system:kubelet-api-admin: `*` on nodes/proxy).
 * The path is classified percent-decoded, segment by segment, as the stream routes decode it, so
 * `/%65xec/...` is exec here too.
 */
import type { NodeRequestAttributes } from '../adapters/kubernetes/accessReview.js';

/** The kubelet's `isSubpath`: `path` itself or below it (`/pods` matches `/pods/x`, not `/podsx`). */
export function isSubpath(subpath: string, path: string): boolean {
  const base = path.endsWith('/') ? path.slice(0, -1) : path;
  return subpath === base || (subpath.startsWith(base) && subpath[base.length] === '/');
}

// The kubelet's two switches: a fine-grained subresource first (its proxy fallback follows), then
// the one named subresource or proxy.
const FINE_GRAINED: ReadonlyArray<readonly [string, string]> = [['/pods', 'pods'], ['/healthz', 'healthz'], ['/configz', 'configz'], ['/runningpods/', 'pods']];
const NAMED: ReadonlyArray<readonly [string, string]> = [
  ['/stats/', 'stats'], ['/metrics', 'metrics'], ['/logs/', 'log'], ['/checkpoint/', 'checkpoint'], ['/statusz', 'statusz'], ['/flagz', 'configz'],
];
const STREAMS: readonly string[] = ['/exec', '/attach', '/portForward'];

const VERBS: Readonly<Record<string, string>> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

export function verbOf(method: string | undefined): string {
  return VERBS[method ?? ''] ?? '';
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The path as the routes see it: each segment percent-decoded (one that does not decode is kept). */
export function decodedPath(pathname: string): string {
  return pathname.includes('%') ? pathname.split('/').map(decodeSegment).join('/') : pathname;
}

/** The subresources the kubelet tries for a (decoded) path, most specific first. */
export function subresourcesOf(path: string): readonly string[] {
  const fine = FINE_GRAINED.find(([prefix]) => isSubpath(path, prefix));
  const named = NAMED.find(([prefix]) => isSubpath(path, prefix));
  return [...(fine ? [fine[1]] : []), named ? named[1] : 'proxy'];
}

export function isStreamPath(path: string): boolean {
  return STREAMS.some((prefix) => isSubpath(path, prefix));
}

/** Every attribute set the request may be allowed by, in the order they are tried. */
export function nodeRequestAttributes(nodeName: string, method: string | undefined, pathname: string): readonly NodeRequestAttributes[] {
  const path = decodedPath(pathname);
  const verb = isStreamPath(path) ? 'create' : verbOf(method);
  return subresourcesOf(path).map((subresource) => ({ verb, resource: 'nodes', subresource, name: nodeName }));
}

/** The most specific subresource of a path (the first one tried). */
export function subresourceOf(pathname: string): string {
  return subresourcesOf(decodedPath(pathname))[0] ?? 'proxy';
}

/** The first attribute set tried for a request. */
export function requestAttributes(nodeName: string, method: string | undefined, pathname: string): NodeRequestAttributes {
  const [first] = nodeRequestAttributes(nodeName, method, pathname);
  return first ?? { verb: verbOf(method), resource: 'nodes', subresource: 'proxy', name: nodeName };
}
