/**
 * Whether a node may start, given what both clusters' address ranges are. Pure
 * (docs/kubernetes-provider.md, "Address safety").
 *
 * The host pod reports the remote pod's IP (unless `blankPodIPs`): where the remote's pod CIDR
 * overlaps the host's pod or Service CIDR, host Services would route to strangers' pods. So:
 *
 * | remote pod CIDRs vs host pod/Service CIDRs | blankPodIPs or a remap hook | otherwise                 |
 * |--------------------------------------------|-----------------------------|---------------------------|
 * | disjoint                                   | start                       | start                     |
 * | overlapping                                | start (a note)              | refuse: one error         |
 * | unknown (either side shows none)           | start                       | warn; refuse with `networks.unknownCIDRs: refuse` |
 */
import type { Cidr } from './cidr.js';
import { firstOverlap } from './cidr.js';
import type { StartFinding } from '../startFindings.js';
import type { ClusterNetworks, KnownCidrs } from './clusterNetworks.js';

export type UnknownCidrRule = 'warn' | 'refuse';

export interface AddressPolicy {
  readonly nodeName: string;
  /** Host pods report no IP: the remote's addresses never reach the host. */
  readonly blankPodIPs: boolean;
  /** A remap/NAT hook translates the addresses (addressRemap.ts). */
  readonly remapped: boolean;
  /** Default `warn`. */
  readonly unknownCIDRs?: UnknownCidrRule;
}

export type AddressFinding = Exclude<StartFinding, { level: 'adopt' }>;

const FIELDS = 'provider.blankPodIPs: true (host pods then report no IP), or correct provider.networks.hostPodCIDRs / remotePodCIDRs if the learned ones are wrong';

export function checkAddresses(host: ClusterNetworks, remote: ClusterNetworks, policy: AddressPolicy): AddressFinding[] {
  const node = `node ${policy.nodeName}`;
  const handled = policy.blankPodIPs ? 'blankPodIPs' : policy.remapped ? 'the address remap hook' : undefined;
  const sides: readonly [KnownCidrs, string][] = [[host.pods, 'host pod'], [host.services, 'host Service']];
  const out: AddressFinding[] = [];
  if (!remote.pods.known || !host.pods.known) {
    if (handled) return out;
    const unknown = [!host.pods.known ? `the host's (${host.pods.why})` : undefined, !remote.pods.known ? `the remote's (${remote.pods.why})` : undefined].filter(Boolean).join(' and ');
    const rule = policy.unknownCIDRs ?? 'warn';
    const message = `${node}: cannot tell whether the remote pod CIDR overlaps the host's: unknown pod CIDRs, ${unknown}; set provider.networks.hostPodCIDRs and remotePodCIDRs to check${rule === 'refuse' ? ' (provider.networks.unknownCIDRs: refuse)' : ''}`;
    out.push({ level: rule, message });
  }
  if (!remote.pods.known) return out;
  for (const [side, word] of sides) {
    if (!side.known) continue;
    const pair = firstOverlap(remote.pods.cidrs, side.cidrs);
    if (!pair) continue;
    const [r, h] = pair;
    out.push(handled
      ? { level: 'note', message: `${node}: the remote pod CIDR ${r.text} overlaps the ${word} CIDR ${h.text}; handled by ${handled}` }
      : { level: 'refuse', message: overlapMessage(node, { cidr: r, source: remote.pods.source }, { cidr: h, source: side.source, word }) });
  }
  return out;
}

function overlapMessage(node: string, remote: { cidr: Cidr; source: string }, host: { cidr: Cidr; source: string; word: string }): string {
  return `${node}: the remote pod CIDR ${remote.cidr.text} (${remote.source}) overlaps the ${host.word} CIDR ${host.cidr.text} (${host.source}): host pods would report addresses that route to other pods; refusing to start. Set ${FIELDS}`;
}
