/**
 * Which host endpoint addresses a remote EndpointSlice may carry. Pure.
 *
 * An endpoint that is not one of this node's offloaded pods keeps its host address in the remote
 * copy (endpointTranslation.ts). An address inside the remote's own pod or Service CIDRs would
 * there be a stranger's pod or Service (two clusters on one pod CIDR: the remote `db` slice would
 * point at another tenant's pod), so it is never copied. With a remap hook the address is remapped
 * first and checked after. Remote CIDRs that are unknown check nothing (the unknown rule,
 * addressCheck.ts, has warned at start).
 */
import type { AddressRemap } from './addressRemap.js';
import { cidrHolding, type Cidr } from './cidr.js';
import type { ClusterNetworks } from './clusterNetworks.js';

/** The remote's own ranges, as far as they are known. */
export function remoteOwnCidrs(remote: ClusterNetworks): Cidr[] {
  return [...(remote.pods.known ? remote.pods.cidrs : []), ...(remote.services.known ? remote.services.cidrs : [])];
}

/** The address a remote slice carries for host address `ip`, or undefined to leave it out. */
export function copiedHostAddress(ip: string, remoteCidrs: readonly Cidr[], remap?: AddressRemap): string | undefined {
  const address = remap ? remap.toRemote(ip) : ip;
  if (address === undefined) return undefined;
  return cidrHolding(remoteCidrs, address) ? undefined : address;
}
