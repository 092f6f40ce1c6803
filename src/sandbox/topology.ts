/**
 * What the sandbox runs, as two ordinary Tether config files:
 * - in the remote cluster, a Tether node `sandbox-worker` with the simulated provider and no taint:
 *   the remote scheduler places offloaded pods there, and they really run (simulated);
 * - in the host cluster, a Tether with one virtual node `tether-remote` whose Kubernetes provider
 *   offloads to the remote cluster.
 */
import { stringify } from 'yaml';
import type { TetherConfig } from '../config/index.js';

export const VIRTUAL_NODE = 'tether-remote';
export const REMOTE_WORKER = 'sandbox-worker';
export const HOST_CLUSTER_ID = 'sandbox';

export interface InstanceAddresses {
  /** The kubeconfig this instance uses for its own cluster. */
  readonly clusterKubeconfig: string;
  /** Its node's InternalIP: the netns address when it runs in one, else 127.0.0.1. */
  readonly internalIP: string;
  /** The cluster's CA: the API server's kubelet client certificate is signed by it. */
  readonly clusterCA: string;
}

/** Ports of the two instances: distinct, since without network namespaces they share loopback. */
export const PORTS = {
  host: { introspection: 10256, kubelet: 10250 },
  remote: { introspection: 10258, kubelet: 10252 },
} as const;

/** The introspection page of an instance, as reached from the machine running the sandbox. */
export const introspectionUrl = (internalIP: string, which: keyof typeof PORTS): string => `http://${internalIP}:${PORTS[which].introspection}/`;

function servers(at: InstanceAddresses, which: keyof typeof PORTS): Pick<TetherConfig, 'ports' | 'kubeletApi'> {
  return {
    // Listen on the node's address: inside a network namespace that is what the host reaches. That
    // address is private to this machine, so the page is served without a token (docs/security.md).
    ports: { introspection: { port: PORTS[which].introspection, address: at.internalIP, anonymous: true } },
    kubeletApi: { address: at.internalIP, clientCAFile: at.clusterCA },
  };
}

const fastPing = { intervalMs: 2_000, timeoutMs: 1_000, failureThreshold: 3, successThreshold: 1 };
const shutdown = { timeoutMs: 5_000, deleteNodeOnShutdown: true };

export function remoteWorkerConfig(at: InstanceAddresses): TetherConfig {
  return {
    logLevel: 'info',
    host: { kubeconfig: at.clusterKubeconfig },
    shutdown,
    ...servers(at, 'remote'),
    nodes: [{
      name: REMOTE_WORKER,
      internalIP: at.internalIP,
      kubeletPort: PORTS.remote.kubelet,
      labels: { 'tether.dev/sandbox': 'remote-worker' },
      taints: [],
      ping: fastPing,
      statusIntervalMs: 10_000,
      // In place, as a kubelet of 1.36 does: `kubectl patch --subresource resize` and `kubectl debug`
      // on an offloaded pod reach this node through the host's virtual node.
      provider: { type: 'simulated', startLatencyMs: 1_000, stopLatencyMs: 200, resources: { cpu: '16', memory: '64Gi', pods: '500' }, inPlaceUpdates: ['resize', 'ephemeralContainers'] },
    }],
  };
}

export function hostTetherConfig(at: InstanceAddresses & { readonly remoteKubeconfig: string }): TetherConfig {
  return {
    logLevel: 'info',
    host: { kubeconfig: at.clusterKubeconfig },
    shutdown,
    ...servers(at, 'host'),
    nodes: [{
      name: VIRTUAL_NODE,
      internalIP: at.internalIP,
      kubeletPort: PORTS.host.kubelet,
      labels: { 'tether.dev/sandbox': 'virtual-node' },
      ping: fastPing,
      statusIntervalMs: 10_000,
      pod: { retry: { minMs: 500, maxMs: 5_000 } },
      provider: { type: 'kubernetes', remote: { kubeconfig: at.remoteKubeconfig }, hostClusterId: HOST_CLUSTER_ID, namespaceStrategy: 'suffix',
        // The remote's only worker is itself a (simulated) virtual node: count it.
        countVirtualNodes: true },
    }],
  };
}

export function toYaml(config: TetherConfig, comment: string): string {
  return `# ${comment}\n# Written by tether sandbox; an ordinary config file (tether validate accepts it).\n${stringify(config)}`;
}
