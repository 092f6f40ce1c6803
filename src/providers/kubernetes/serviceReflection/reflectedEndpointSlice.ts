/**
 * The remote copy of a host EndpointSlice. Pure.
 *
 * Same name, addressType and ports; endpoints translated one by one (endpointTranslation.ts).
 * Labels: the host's (minus Tether's own), with `kubernetes.io/service-name` naming the remote
 * Service (the same name as the host's) and `endpointslice.kubernetes.io/managed-by` set to
 * {@link ENDPOINTSLICE_MANAGER}, so the remote cluster's EndpointSlice controllers leave it alone
 * (they only touch slices whose managed-by names them), plus the reflection marks. Annotations:
 * the host's minus `endpoints.kubernetes.io/last-change-trigger-time` (a timestamp that would
 * cost a write per change for nothing) and last-applied-configuration.
 */
import type { EndpointSlice } from '../../../adapters/kubernetes/model.js';
import { fingerprint } from '../../../lib/fingerprint.js';
import { translateEndpoint, type HostAddressFilter, type OffloadedPodLookup } from './endpointTranslation.js';
import { reflectedMetadata, type ReflectionMarks } from './reflectedService.js';
import { definedOnly } from '../../../lib/defaults.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** The managed-by value of reflected slices (the controller's own is endpointslice-controller.k8s.io). */
export const ENDPOINTSLICE_MANAGER = 'endpointslice-reflector.tether.dev';
const TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';

/** The Service a slice belongs to (its `kubernetes.io/service-name` label). */
export function serviceNameOf(slice: EndpointSlice): string | undefined {
  return slice.metadata?.labels?.[SERVICE_NAME_LABEL];
}

export function remoteEndpointSlice(host: EndpointSlice, remoteNamespace: string, marks: ReflectionMarks, lookup: OffloadedPodLookup, hostAddress?: HostAddressFilter): EndpointSlice {
  const hostNamespace = host.metadata?.namespace ?? '';
  const metadata = reflectedMetadata(host.metadata ?? {}, remoteNamespace, marks, [TRIGGER_TIME]);
  metadata.labels[SERVICE_NAME_LABEL] = serviceNameOf(host) ?? '';
  metadata.labels[MANAGED_BY_LABEL] = ENDPOINTSLICE_MANAGER;
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata,
    addressType: host.addressType,
    endpoints: (host.endpoints ?? []).flatMap((e) => translateEndpoint(e, host.addressType, hostNamespace, lookup, hostAddress) ?? []),
    ...definedOnly({ ports: host.ports ? host.ports.map((p) => ({ ...p })) : undefined }),
  };
}

/** A digest of what a reflected slice carries, equal for Tether's copy and the server's object. */
export function endpointSliceDigest(slice: EndpointSlice): string {
  return fingerprint({
    l: slice.metadata?.labels ?? {},
    a: slice.metadata?.annotations ?? {},
    t: slice.addressType,
    e: (slice.endpoints ?? []).map((e) => ({
      a: e.addresses,
      c: { r: e.conditions?.ready, s: e.conditions?.serving, t: e.conditions?.terminating },
      h: e.hostname,
      z: e.zone,
      r: e.targetRef ? { k: e.targetRef.kind, ns: e.targetRef.namespace, n: e.targetRef.name, u: e.targetRef.uid } : undefined,
    })),
    p: (slice.ports ?? []).map((p) => ({ n: p.name ?? '', pr: p.protocol ?? 'TCP', p: p.port, ap: p.appProtocol })),
  });
}
