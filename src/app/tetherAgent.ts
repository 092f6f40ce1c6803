/**
 * The agent: one actor system, one subtree per virtual node, each node with its own provider and
 * its own Kubernetes clients (its own watches, rate limiter and connection pool), so one node's
 * storm or outage cannot starve another's lease.
 */
import type { Clock } from '../adapters/clock.js';
import { systemClock } from '../adapters/clock.js';
import { createKubeClients, type KubeClients } from '../adapters/kubernetes/kubeClients.js';
import { loadKubeConfig, type KubeconfigSource } from '../adapters/kubernetes/kubeconfig.js';
import type { Taint } from '../adapters/kubernetes/model.js';
import type { Priority, PriorityStats } from '../adapters/kubernetes/rateLimiter.js';
import { jsonLogger, type Logger } from '../adapters/logger.js';
import { withDeepCopies } from '../adapters/provider/deepCopy.js';
import type { Provider } from '../adapters/provider/provider.js';
import { withLeaseDefaults, type LeaseConfigInput } from '../actors/lease/config.js';
import { withNodeDefaults, type PingConfig } from '../actors/node/config.js';
import { defaultPodActorConfig, type PodActorConfig } from '../actors/pod/protocol.js';
import { startVirtualNode, type VirtualNode } from '../actors/virtualNode.js';
import { ActorSystem } from '../runtime/actorSystem.js';
import type { RestartPolicy } from '../supervisors/restartPolicy.js';

export interface AgentNodeSpec {
  readonly name: string;
  /** Where Tether's kubelet API listens, as the API server reaches it. */
  readonly internalIP: string;
  readonly kubeletPort?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly Taint[];
  readonly provider: Provider;
  readonly ping?: Partial<PingConfig>;
  readonly statusIntervalMs?: number;
  readonly lease?: Omit<LeaseConfigInput, 'nodeName'>;
  readonly pod?: Partial<Omit<PodActorConfig, 'nodeName'>>;
  readonly sweepIntervalMs?: number;
  readonly shards?: number;
  readonly nodePolicy?: RestartPolicy;
  readonly podPolicy?: RestartPolicy;
}

export interface AgentOptions {
  readonly host: KubeconfigSource;
  readonly nodes: readonly AgentNodeSpec[];
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly rootPolicy?: RestartPolicy;
  readonly onFatal?: (error: unknown) => void;
}

export class TetherAgent {
  readonly system: ActorSystem;
  readonly nodes: readonly VirtualNode[];
  private readonly clients: KubeClients[] = [];
  private stopped = false;

  private constructor(options: AgentOptions) {
    const clock = options.clock ?? systemClock;
    const logger = options.logger ?? jsonLogger();
    const kubeConfig = loadKubeConfig(options.host);
    this.system = new ActorSystem({
      clock,
      logger,
      ...(options.rootPolicy ? { rootPolicy: options.rootPolicy } : {}),
      ...(options.onFatal ? { onFatal: options.onFatal } : {}),
    });
    this.nodes = options.nodes.map((spec) => {
      const clients = createKubeClients(kubeConfig, { nodeName: spec.name, clock, log: logger.child({ node: spec.name }), ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}) });
      this.clients.push(clients);
      const podDefaults = defaultPodActorConfig(spec.name);
      return startVirtualNode(
        this.system.root,
        {
          node: withNodeDefaults({
            nodeName: spec.name,
            internalIP: spec.internalIP,
            ...(spec.kubeletPort !== undefined ? { kubeletPort: spec.kubeletPort } : {}),
            ...(spec.labels ? { labels: spec.labels } : {}),
            ...(spec.taints ? { taints: spec.taints } : {}),
            ...(spec.ping ? { ping: spec.ping } : {}),
            ...(spec.statusIntervalMs !== undefined ? { statusIntervalMs: spec.statusIntervalMs } : {}),
          }),
          lease: withLeaseDefaults({ ...spec.lease, nodeName: spec.name }),
          pod: { ...podDefaults, ...spec.pod, nodeName: spec.name },
          controller: { nodeName: spec.name, sweepIntervalMs: spec.sweepIntervalMs ?? 60_000 },
          shards: spec.shards ?? 32,
          ...(spec.nodePolicy ? { nodePolicy: spec.nodePolicy } : {}),
          ...(spec.podPolicy ? { podPolicy: spec.podPolicy } : {}),
        },
        {
          // Every pod crossing into a provider is a copy: a provider cannot corrupt the watch cache.
          provider: withDeepCopies(spec.provider),
          nodeApi: clients.nodes,
          leaseApi: clients.leases,
          podApi: clients.pods,
          events: clients.events,
          podWatch: clients.watchPods(),
          nodeWatch: clients.watchNode(),
          clock,
          logger,
        },
      );
    });
  }

  static start(options: AgentOptions): TetherAgent {
    return new TetherAgent(options);
  }

  /** Read-only, for /metrics: each node's API rate-limiter counters, by node name. */
  rateLimiterStats(): Map<string, Record<Priority, PriorityStats>> {
    return new Map(this.nodes.map((node, i) => [node.name, this.clients[i]?.rateLimiterStats() ?? emptyStats()]));
  }

  /** Stops renewing leases and watching, lets pending Events go out, then stops every actor. */
  async shutdown(options: { readonly deleteNodes?: boolean; readonly graceMs?: number } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const node of this.nodes) node.shutdown({ deleteNode: options.deleteNodes ?? false });
    const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());
    // Deleting the Node objects is asynchronous work of the node actors: give it time to land.
    if (options.deleteNodes) await pause(options.graceMs ?? 2_000);
    await Promise.race([Promise.all(this.clients.map((c) => c.close().catch(() => undefined))), pause(options.graceMs ?? 2_000)]);
    this.system.stop();
  }
}

function emptyStats(): Record<Priority, PriorityStats> {
  const none = { queued: 0, started: 0, waitMs: 0 };
  return { lease: none, delete: none, status: none, other: none };
}
