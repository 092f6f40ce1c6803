/**
 * One host endpoint as the remote cluster should see it. Pure.
 *
 * An endpoint whose targetRef is a host pod that this virtual node offloaded to this remote
 * cluster is pointed at the remote pod: its address becomes the remote pod's IP of the slice's
 * family, its targetRef the remote pod (so traffic between offloaded pods stays inside the remote
 * cluster, whatever the host pod reports, e.g. with `blankPodIPs`). Any other endpoint keeps its
 * addresses and loses its targetRef, which names an object of the host cluster, but only the
 * addresses `hostAddress` lets through (addresses/endpointAddresses.ts: never one inside the
 * remote's own pod or Service CIDRs, which would point the remote slice at a stranger there); an
 * endpoint left without an address is left out. Kept: conditions
 * (ready, serving, terminating), hostname, zone. Dropped: nodeName (a host node) and hints.
 */
import type { Endpoint, Pod } from '../../../adapters/kubernetes/model.js';
import { hostUidAnnotation } from '../marks.js';
import { definedOnly } from '../../../lib/defaults.js';

/** Where an offloaded host pod runs in the remote cluster. */
export interface RemotePodAddress {
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  /** The remote pod's IPs (status.podIPs, else status.podIP); may be empty while it starts. */
  readonly ips: readonly string[];
}

/** The remote pod of a host pod, if this virtual node offloaded it (undefined otherwise). */
export type OffloadedPodLookup = (hostNamespace: string, hostName: string, hostUid: string | undefined) => RemotePodAddress | undefined;

/** A host address as the remote slice may carry it (remapped), or undefined to leave it out. */
export type HostAddressFilter = (address: string) => string | undefined;

/** The IP of `addressType` (IPv4 or IPv6) among `ips`; FQDN slices are never translated. */
export function addressOfFamily(ips: readonly string[], addressType: string): string | undefined {
  if (addressType === 'IPv4') return ips.find((ip) => !ip.includes(':'));
  if (addressType === 'IPv6') return ips.find((ip) => ip.includes(':'));
  return undefined;
}

export function translateEndpoint(
  endpoint: Endpoint, addressType: string, hostNamespace: string, lookup: OffloadedPodLookup, hostAddress: HostAddressFilter = (a) => a,
): Endpoint | undefined {
  const ref = endpoint.targetRef;
  const remote = ref?.kind === 'Pod' && ref.name ? lookup(ref.namespace ?? hostNamespace, ref.name, ref.uid) : undefined;
  const address = remote ? addressOfFamily(remote.ips, addressType) : undefined;
  // FQDN slices hold names, not addresses: nothing to check against a CIDR.
  const kept = addressType === 'FQDN' ? [...endpoint.addresses] : endpoint.addresses.flatMap((a) => hostAddress(a) ?? []);
  if (address === undefined && kept.length === 0) return undefined;
  return {
    addresses: address !== undefined ? [address] : kept,
    ...definedOnly({ conditions: endpoint.conditions ? { ...endpoint.conditions } : undefined, hostname: endpoint.hostname, zone: endpoint.zone }),
    ...definedOnly({ targetRef: remote && address !== undefined ? { kind: 'Pod', namespace: remote.namespace, name: remote.name, ...definedOnly({ uid: remote.uid || undefined }) } : undefined }),
  };
}

/**
 * The lookup over this node's remote pods: `remotePod` returns the remote pod of that name in a
 * remote namespace if it is this node's (ownership.ts); a host uid in the targetRef must match
 * the one the remote pod carries (a recreated host pod of the same name is another pod).
 */
export function offloadedPodLookup(remotePod: (remoteNamespace: string, name: string) => Pod | undefined, remoteNamespaceOf: (hostNamespace: string) => string): OffloadedPodLookup {
  return (hostNamespace, hostName, hostUid) => {
    const pod = remotePod(remoteNamespaceOf(hostNamespace), hostName);
    if (!pod) return undefined;
    const carried = pod.metadata?.annotations?.[hostUidAnnotation];
    if (hostUid !== undefined && carried !== undefined && carried !== hostUid) return undefined;
    const listed = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => Boolean(ip));
    const ips = listed.length > 0 ? listed : pod.status?.podIP ? [pod.status.podIP] : [];
    return { namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', ...definedOnly({ uid: pod.metadata?.uid || undefined }), ips };
  };
}
