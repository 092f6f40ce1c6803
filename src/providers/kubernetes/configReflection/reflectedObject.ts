/**
 * The remote copy of a host ConfigMap or Secret. Pure.
 *
 * Kept: data, binaryData (ConfigMap), type (Secret), labels and annotations (minus Tether's own
 * and kubectl's last-applied-configuration). Added: the ownership labels, the
 * `tether.dev/host-namespace` annotation and the content mark (contentMark.ts). Dropped: `immutable` (so later host changes can still
 * be applied), ownerReferences, finalizers and server-set fields. A Secret of type
 * `kubernetes.io/service-account-token` is never copied (`isServiceAccountToken`; the reflector
 * refuses it): it is a credential of the host cluster, and the remote's users could read it.
 * Secret data is copied, never logged: nothing here describes values.
 */
import type { ConfigMap, Secret } from '../../../adapters/kubernetes/model.js';
import { fingerprint } from '../../../lib/fingerprint.js';
import { withContentMark } from '../contentMark.js';
import { hostNamespaceAnnotation, hostTokenLabel, isOwned, ownershipLabels, withoutMarks } from '../marks.js';
import type { ReferencedKind } from './references.js';
import { definedOnly } from '../../../lib/defaults.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export type HostObject = ConfigMap | Secret;

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';

/** A host ServiceAccount token: never reflected to the remote cluster. */
export function isServiceAccountToken(kind: ReferencedKind, object: HostObject): boolean {
  return kind === 'Secret' && (object as Secret).type === SERVICE_ACCOUNT_TOKEN_TYPE;
}

export function remoteCopy(kind: ReferencedKind, host: HostObject, remoteNamespace: string, hostClusterId: string): HostObject {
  const meta = host.metadata ?? {};
  const annotations = withoutMarks(meta.annotations);
  delete annotations[LAST_APPLIED];
  const metadata = {
    name: meta.name ?? '',
    namespace: remoteNamespace,
    labels: { ...withoutMarks(meta.labels), ...ownershipLabels(hostClusterId) },
    annotations: { ...annotations, [hostNamespaceAnnotation]: meta.namespace ?? '' },
  };
  if (kind === 'ConfigMap') {
    const cm = host as ConfigMap;
    return withContentMark<HostObject>({
      apiVersion: 'v1', kind: 'ConfigMap', metadata,
      ...definedOnly({ data: cm.data ? { ...cm.data } : undefined, binaryData: cm.binaryData ? { ...cm.binaryData } : undefined }),
    }, contentDigest);
  }
  const secret = host as Secret;
  if (secret.type === SERVICE_ACCOUNT_TOKEN_TYPE) throw new Error(`secret ${meta.namespace ?? ''}/${meta.name ?? ''} is a ServiceAccount token: never copied to a remote cluster`);
  const type = secret.type;
  return withContentMark<HostObject>({
    apiVersion: 'v1', kind: 'Secret', metadata,
    ...definedOnly({ type: type || undefined, data: secret.data ? { ...secret.data } : undefined }),
  }, contentDigest);
}

/** A digest of what a copy carries, to skip writes that would change nothing. */
export function contentDigest(copy: HostObject): string {
  const c = copy as ConfigMap & Secret;
  const content = { l: c.metadata?.labels, a: c.metadata?.annotations, d: c.data, b: c.binaryData, t: c.type };
  return fingerprint(content);
}

/**
 * Whether a remote ConfigMap or Secret is a copy Tether made for this host cluster: it carries the
 * ownership labels and names a host namespace whose copies live in its very namespace. Copies are
 * shared by the virtual nodes of one host cluster (the sweep keeps what any node's pod
 * references), so no node mark is asked for. A host token Secret (`tether.dev/host-token`,
 * pods/hostTokenSecret.ts) is Tether's but no copy: the reflection never writes or sweeps it.
 */
export function isTetherCopy(object: HostObject, hostClusterId: string, remoteNamespaceOf: (hostNamespace: string) => string): boolean {
  const hostNamespace = object.metadata?.annotations?.[hostNamespaceAnnotation];
  return isOwned(object.metadata?.labels, hostClusterId) && object.metadata?.labels?.[hostTokenLabel] === undefined && hostNamespace !== undefined && remoteNamespaceOf(hostNamespace) === object.metadata?.namespace;
}
