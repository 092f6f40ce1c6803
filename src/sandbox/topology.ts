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
}

const fastPing = { intervalMs: 2_000, timeoutMs: 1_000, failureThreshold: 3, successThreshold: 1 };
const shutdown = { timeoutMs: 5_000, deleteNodeOnShutdown: true };

export function remoteWorkerConfig(at: InstanceAddresses): TetherConfig {
  return {
    logLevel: 'info',
    host: { kubeconfig: at.clusterKubeconfig },
    shutdown,
    nodes: [{
      name: REMOTE_WORKER,
      internalIP: at.internalIP,
      labels: { 'tether.dev/sandbox': 'remote-worker' },
      taints: [],
      ping: fastPing,
      statusIntervalMs: 10_000,
      provider: { type: 'simulated', startLatencyMs: 1_000, stopLatencyMs: 200, resources: { cpu: '16', memory: '64Gi', pods: '500' } },
    }],
  };
}

export function hostTetherConfig(at: InstanceAddresses & { readonly remoteKubeconfig: string }): TetherConfig {
  return {
    logLevel: 'info',
    host: { kubeconfig: at.clusterKubeconfig },
    shutdown,
    nodes: [{
      name: VIRTUAL_NODE,
      internalIP: at.internalIP,
      labels: { 'tether.dev/sandbox': 'virtual-node' },
      ping: fastPing,
      statusIntervalMs: 10_000,
      pod: { retry: { minMs: 500, maxMs: 5_000 } },
      provider: { type: 'kubernetes', remote: { kubeconfig: at.remoteKubeconfig }, hostClusterId: HOST_CLUSTER_ID, namespaceStrategy: 'suffix',
        // The remote's only node is itself a virtual node, which capacity sums leave out: a fixed quota instead.
        quota: { cpu: '16', memory: '64Gi', pods: '500' } },
    }],
  };
}

export function toYaml(config: TetherConfig, comment: string): string {
  return `# ${comment}\n# Written by tether sandbox; an ordinary config file (tether validate accepts it).\n${stringify(config)}`;
}
