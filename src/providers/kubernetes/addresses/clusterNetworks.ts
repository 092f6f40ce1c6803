/**
 * A cluster's pod and Service CIDRs, as Tether learns them at start (docs/kubernetes-provider.md,
 * "Address safety"):
 *
 * - pod CIDRs: the configured ones, else the union of the Nodes' `spec.podCIDRs` (set by the node
 *   IPAM controller: kubeadm with `--allocate-node-cidrs`, k3s, kind). A network plugin that
 *   allocates by itself (Calico's IPAM, Cilium's cluster-pool) sets none: unknown.
 * - Service CIDRs: the configured ones, else the `spec.cidrs` of the networking.k8s.io/v1
 *   ServiceCIDR objects (Kubernetes 1.33 and later; the API server creates `kubernetes` from
 *   `--service-cluster-ip-range`). An older cluster serves none: unknown.
 *
 * A read that fails (forbidden, a remote down at start) leaves that side unknown with the reason;
 * the caller applies the unknown rule (addressCheck.ts). Read once, through the cluster's limiter.
 */
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { operation } from '../../../adapters/kubernetes/operation.js';
import { errorMessage } from '../../../lib/errorMessage.js';
import { isKind } from '../../../lib/errorKind.js';
import { parseCidrs, type Cidr } from './cidr.js';

export type KnownCidrs =
  | { readonly known: true; readonly cidrs: readonly Cidr[]; readonly source: string }
  | { readonly known: false; readonly why: string };

export interface ClusterNetworks {
  readonly pods: KnownCidrs;
  readonly services: KnownCidrs;
}

/** What the config says of one cluster; a list given wins over what the cluster shows. */
export interface NetworkOverride {
  readonly podCIDRs?: readonly string[];
  readonly serviceCIDRs?: readonly string[];
}

/** A configured list (validated by the schema already; a bad one is unknown with the parser's words). */
export function configured(texts: readonly string[], field: string): KnownCidrs {
  const parsed = parseCidrs(texts);
  return parsed.ok ? { known: true, cidrs: parsed.cidrs, source: `configured (${field})` } : { known: false, why: `${field}: ${parsed.error}` };
}

/** Learned CIDRs from texts the cluster shows (skipping what does not parse: a cluster's object is not ours to refuse). */
export function learned(texts: readonly string[], source: string, none: string): KnownCidrs {
  const cidrs = texts.flatMap((text) => {
    const parsed = parseCidrs([text]);
    return parsed.ok ? parsed.cidrs : [];
  });
  const unique = cidrs.filter((c, i) => cidrs.findIndex((o) => o.text === c.text) === i);
  return unique.length > 0 ? { known: true, cidrs: unique, source } : { known: false, why: none };
}

export async function learnNetworks(client: ClusterClient, override: NetworkOverride, fields: { pods: string; services: string }): Promise<ClusterNetworks> {
  const [pods, services] = await Promise.all([
    override.podCIDRs ? configured(override.podCIDRs, fields.pods) : learnPodCidrs(client),
    override.serviceCIDRs ? configured(override.serviceCIDRs, fields.services) : learnServiceCidrs(client),
  ]);
  return { pods, services };
}

async function learnPodCidrs(client: ClusterClient): Promise<KnownCidrs> {
  try {
    const nodes = await client.call('other', operation('list', 'nodes'), (core, options) => core.listNode({}, options));
    const texts = nodes.items.flatMap((n) => n.spec?.podCIDRs ?? (n.spec?.podCIDR ? [n.spec.podCIDR] : []));
    return learned(texts, 'Node spec.podCIDRs', 'no Node has spec.podCIDRs (the network plugin allocates pod addresses itself)');
  } catch (error) {
    return { known: false, why: `listing Nodes failed: ${errorMessage(error).split('\n')[0]}` };
  }
}

async function learnServiceCidrs(client: ClusterClient): Promise<KnownCidrs> {
  try {
    const list = await client.callNetworking('other', operation('list', 'servicecidrs'), (api, options) => api.listServiceCIDR({}, options));
    const texts = list.items.filter((s) => !s.metadata?.deletionTimestamp).flatMap((s) => s.spec?.cidrs ?? []);
    return learned(texts, 'ServiceCIDR objects', 'the cluster has no ServiceCIDR objects');
  } catch (error) {
    if (isKind(error, 'not-found')) return { known: false, why: 'the cluster serves no networking.k8s.io/v1 ServiceCIDR (Kubernetes before 1.33)' };
    return { known: false, why: `listing ServiceCIDRs failed: ${errorMessage(error).split('\n')[0]}` };
  }
}
