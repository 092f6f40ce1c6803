/**
 * One node's address safety (docs/kubernetes-provider.md, "Address safety"): both clusters'
 * CIDRs, learned at start (clusterNetworks.ts) unless configured, and learned again at each
 * later hold of the node's lock and every `REFRESH_NETWORKS_MS` while it drives (`relearn`), so
 * CIDRs added to a cluster, or a side unreadable at start, are seen; the start check over them
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
import { learnNetworks, type ClusterNetworks, type KnownCidrs } from './clusterNetworks.js';
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

/** How often a driving node reads both clusters' CIDRs again (a cluster's ServiceCIDRs can grow). */
export const REFRESH_NETWORKS_MS = 10 * 60_000;

export class AddressSafety {
  private learning: Promise<BothNetworks> | undefined;
  private rereading: Promise<BothNetworks> | undefined;
  private remoteCidrs: readonly Cidr[] = [];

  constructor(private readonly o: AddressSafetyOptions) {}

  /** Both clusters' CIDRs as last learnt, read the first time (a failed read is an unknown side, never a rejection). */
  learn(): Promise<BothNetworks> {
    this.learning ??= this.read(undefined);
    return this.learning;
  }

  /**
   * Reads both clusters' CIDRs again (one read at a time). A kind that was known and now cannot
   * be read keeps what was known: an outage never empties the filter of a remote slice. What the
   * start check would refuse now is logged as a warning.
   */
  relearn(): Promise<BothNetworks> {
    this.rereading ??= this.learn().then((previous) => this.read(previous)).then(async (next) => {
      this.learning = Promise.resolve(next);
      // The start check refuses only at start: a node already running says so, and goes on.
      for (const f of await this.findings()) if (f.level === 'refuse') this.o.log.warn(`${f.message} (seen while running: the node keeps running; restart it to apply the start check)`);
      return next;
    }).finally(() => {
      this.rereading = undefined;
    });
    return this.rereading;
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

  private async read(previous: BothNetworks | undefined): Promise<BothNetworks> {
    const n = this.o.networks ?? {};
    const [readHost, readRemote] = await Promise.all([
      learnNetworks(this.o.host, definedOnly({ podCIDRs: n.hostPodCIDRs, serviceCIDRs: n.hostServiceCIDRs }), { pods: 'networks.hostPodCIDRs', services: 'networks.hostServiceCIDRs' }),
      learnNetworks(this.o.remote, definedOnly({ podCIDRs: n.remotePodCIDRs, serviceCIDRs: n.remoteServiceCIDRs }), { pods: 'networks.remotePodCIDRs', services: 'networks.remoteServiceCIDRs' }),
    ]);
    const host = keepKnown(previous?.host, readHost);
    const remote = keepKnown(previous?.remote, readRemote);
    this.remoteCidrs = remoteOwnCidrs(remote);
    this.o.log.debug('kubernetes provider networks', { node: this.o.nodeName, host: describe(host), remote: describe(remote) });
    return { host, remote };
  }
}

/** What was read, but a kind known before and unreadable now stays as it was known. */
export function keepKnown(previous: ClusterNetworks | undefined, next: ClusterNetworks): ClusterNetworks {
  const kind = (before: KnownCidrs | undefined, now: KnownCidrs): KnownCidrs => (!now.known && before?.known ? before : now);
  return { pods: kind(previous?.pods, next.pods), services: kind(previous?.services, next.services) };
}

function describe(networks: ClusterNetworks): string {
  const one = (k: ClusterNetworks['pods']): string => (k.known ? `${k.cidrs.map((c) => c.text).join(',')} (${k.source})` : `unknown (${k.why})`);
  return `pods ${one(networks.pods)}; services ${one(networks.services)}`;
}
