/**
 * The virtual node the in-memory benches drive (podStorm, manyNodes): its actors' config and the
 * simulated provider's capacity, so both benches measure the same node.
 */
import { withLeaseDefaults } from '../src/actors/lease/config.js';
import { withNodeDefaults } from '../src/actors/node/config.js';
import { defaultPodActorConfig } from '../src/actors/pod/config.js';
import type { VirtualNodeConfig } from '../src/actors/virtualNodeConfig.js';
import type { NodeResources } from '../src/providers/provider.js';

/** How often every bench node renews its Lease; the lease lag is measured against it. */
export const RENEW_MS = 1_000;

/** Room for the largest storm (100k pods): capacity never refuses a bench pod (also the simulated worker of compare/tetherNode.ts). */
export const BENCH_RESOURCES: NodeResources = {
  capacity: { cpu: '1000', memory: '10Ti', pods: '100000' },
  allocatable: { cpu: '1000', memory: '10Ti', pods: '100000' },
};

/** The default /16 has 65,534 pod IPs: a 100k storm would leave a third of its pods Pending for want of one. */
export const BENCH_POD_CIDR = '10.128.0.0/12';

export function benchNodeConfig(name: string): VirtualNodeConfig {
  return {
    node: withNodeDefaults({ nodeName: name, internalIP: '10.0.0.10' }),
    lease: withLeaseDefaults({ nodeName: name, renewIntervalMs: RENEW_MS }),
    pod: defaultPodActorConfig(name),
    controller: { nodeName: name, sweepIntervalMs: 60_000 },
    shards: 32,
    admission: { daemonSets: 'reject' },
  };
}
