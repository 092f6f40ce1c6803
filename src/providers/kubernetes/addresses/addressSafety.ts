/**
 * One node's address safety (docs/kubernetes-provider.md, "Address safety"): both clusters'
 * CIDRs, learned once at start (clusterNetworks.ts) unless configured; the start check over them
 * (addressCheck.ts); and the filter of host addresses a remote EndpointSlice may carry
 * (endpointAddresses.ts), which knows the remote's CIDRs only once they are learned, so the
 * provider starts Service reflection after `learn()`.
 */
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import { definedOnly } from '../../../lib/defaults.js';
import type { NetworksOptions } from '../options.js';
import { checkAddresses, type AddressFinding } from './addressCheck.js';
import type { AddressRemap } from './addressRemap.js';
import type { Cidr } from './cidr.js';
import { learnNetworks, type ClusterNetworks } from './clusterNetworks.js';
import { copiedHostAddress, remoteOwnCidrs } from './endpointAddresses.js';

export interface AddressSafetyOptions {
  readonly nodeName: string;
  readonly host: ClusterClient;
  readonly remote: ClusterClient;
  readonly blankPodIPs: boolean;
  readonly remap?: AddressRemap;
  readonly networks?: NetworksOptions;
  readonly log: KubeLog;
}

export interface BothNetworks {
  readonly host: ClusterNetworks;
  readonly remote: ClusterNetworks;
}

export class AddressSafety {
  private learning: Promise<BothNetworks> | undefined;
  private remoteCidrs: readonly Cidr[] = [];

  constructor(private readonly o: AddressSafetyOptions) {}

  /** Both clusters' CIDRs, read once (a failed read is an unknown side, never a rejection). */
  learn(): Promise<BothNetworks> {
    this.learning ??= this.read();
    return this.learning;
  }

  /** The start check: refusals, warnings and notes, each one line naming the node. */
  async findings(): Promise<AddressFinding[]> {
    const { host, remote } = await this.learn();
    return checkAddresses(host, remote, {
      nodeName: this.o.nodeName, blankPodIPs: this.o.blankPodIPs, remapped: this.o.remap !== undefined,
      ...definedOnly({ unknownCIDRs: this.o.networks?.unknownCIDRs }),
    });
  }

  /** A host address as a remote slice may carry it, or undefined: never one inside the remote's own CIDRs. */
  readonly hostAddress = (ip: string): string | undefined => copiedHostAddress(ip, this.remoteCidrs, this.o.remap);

  private async read(): Promise<BothNetworks> {
    const n = this.o.networks ?? {};
    const [host, remote] = await Promise.all([
      learnNetworks(this.o.host, definedOnly({ podCIDRs: n.hostPodCIDRs, serviceCIDRs: n.hostServiceCIDRs }), { pods: 'networks.hostPodCIDRs', services: 'networks.hostServiceCIDRs' }),
      learnNetworks(this.o.remote, definedOnly({ podCIDRs: n.remotePodCIDRs, serviceCIDRs: n.remoteServiceCIDRs }), { pods: 'networks.remotePodCIDRs', services: 'networks.remoteServiceCIDRs' }),
    ]);
    this.remoteCidrs = remoteOwnCidrs(remote);
    this.o.log.debug('kubernetes provider networks', { node: this.o.nodeName, host: describe(host), remote: describe(remote) });
    return { host, remote };
  }
}

function describe(networks: ClusterNetworks): string {
  const one = (k: ClusterNetworks['pods']): string => (k.known ? `${k.cidrs.map((c) => c.text).join(',')} (${k.source})` : `unknown (${k.why})`);
  return `pods ${one(networks.pods)}; services ${one(networks.services)}`;
}
