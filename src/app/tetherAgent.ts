/**
 * The agent: one actor system, one subtree per virtual node, each node with its own provider and
 * its own Kubernetes clients (its own watches, rate limiter and connection pool), so one node's
 * storm or outage cannot starve another's lease.
 *
 * With `leaderElection`, several replicas share the nodes: a node's subtree runs only while this
 * replica holds the node's lock (leaderElection.ts). It is started, with fresh watches, when the
 * lock is acquired and released (stopped at once) when it is lost; state is rebuilt from the
 * clusters on every start. Without it, every node starts at once, as before.
 */
import type { Clock } from '../lib/clock.js';
import { systemClock } from '../adapters/clock.js';
import { createKubeClients, type KubeClients } from '../adapters/kubernetes/kubeClients.js';
import { loadKubeConfig, type KubeconfigSource } from '../adapters/kubernetes/kubeconfig.js';
import type { Taint } from '../adapters/kubernetes/model.js';
import type { Priority, PriorityStats } from '../adapters/kubernetes/rateLimiter.js';
import { jsonLogger, type Logger } from '../adapters/logger.js';
import { withDeepCopies } from '../providers/deepCopy.js';
import type { Provider } from '../providers/provider.js';
import { withLeaseDefaults, type LeaseConfigInput } from '../actors/lease/config.js';
import { withNodeDefaults, type PingConfig } from '../actors/node/config.js';
import { defaultPodActorConfig, type PodActorConfig } from '../actors/pod/protocol.js';
import { startVirtualNode, type VirtualNode } from '../actors/virtualNode.js';
import { ActorSystem } from '../supervisors/actorSystem.js';
import { electionSettings, NodeLocks, type LeaderElectionOptions } from './leaderElection.js';
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
  /** Told, per node, how long provider statuses took to reach the host (seconds). */
  readonly onStatusLatency?: (node: string, seconds: number) => void;
  /** Share the nodes with other replicas: one Lease lock per node in `namespace`. */
  readonly leaderElection?: LeaderElectionOptions;
}

/** One configured node: its clients, and how to start a fresh subtree for it. */
interface NodeSlot {
  readonly name: string;
  readonly clients: KubeClients;
  readonly launch: () => VirtualNode;
  running?: VirtualNode;
}

export class TetherAgent {
  readonly system: ActorSystem;
  private readonly slots: NodeSlot[];
  private readonly locks: NodeLocks | undefined;
  private stopped = false;

  private constructor(options: AgentOptions) {
    const clock = options.clock ?? systemClock;
    const logger = options.logger ?? jsonLogger();
    const kubeConfig = loadKubeConfig(options.host);
    const election = options.leaderElection ? electionSettings(options.leaderElection) : undefined;
    if (election && election.problems.length > 0) throw new Error(`leader election: ${election.problems.join('; ')}`);
    this.system = new ActorSystem({
      clock,
      logger,
      ...(options.rootPolicy ? { rootPolicy: options.rootPolicy } : {}),
      ...(options.onFatal ? { onFatal: options.onFatal } : {}),
    });
    this.slots = options.nodes.map((spec) => {
      const clients = createKubeClients(kubeConfig, { nodeName: spec.name, clock, log: logger.child({ node: spec.name }), ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}) });
      const onStatusLatency = options.onStatusLatency;
      const observe = onStatusLatency ? (seconds: number): void => onStatusLatency(spec.name, seconds) : undefined;
      return { name: spec.name, clients, launch: () => this.launch(spec, clients, clock, logger, observe) };
    });
    if (!election) {
      for (const slot of this.slots) slot.running = slot.launch();
      this.locks = undefined;
      return;
    }
    this.locks = new NodeLocks(election.settings, this.slots.map((slot) => ({
      name: slot.name,
      leaseApi: slot.clients.lockLeases,
      onAcquired: () => {
        if (this.stopped || slot.running) return;
        slot.clients.openWrites();
        slot.running = slot.launch();
      },
      onLost: () => {
        // First the fence: writes still queued for this node are dropped, not sent after another replica took over.
        slot.clients.fenceWrites(`the lock of node ${slot.name} was lost`);
        this.stopNode(slot, false);
      },
    })), { clock, logger });
    this.locks.start();
  }

  /** True when replicas share the nodes through locks: driving no node is then a standby, not a fault. */
  get standbyAllowed(): boolean {
    return this.locks !== undefined;
  }

  /** The virtual nodes this replica drives now (all configured ones without leader election). */
  get nodes(): readonly VirtualNode[] {
    return this.slots.flatMap((slot) => (slot.running ? [slot.running] : []));
  }

  private launch(spec: AgentNodeSpec, clients: KubeClients, clock: Clock, logger: Logger, onStatusLatency?: (seconds: number) => void): VirtualNode {
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
        // Fresh watches per start: a node started again after losing its lock re-lists everything.
        podWatch: clients.watchPods(),
        nodeWatch: clients.watchNode(),
        clock,
        logger,
        ...(onStatusLatency ? { onStatusLatency } : {}),
      },
    );
  }

  /**
   * Stops a node's subtree at once: its lease stops renewing, its watches stop, and its actors are
   * released (a lost lock must not leave a second writer running while pending messages drain).
   */
  private stopNode(slot: NodeSlot, deleteNode: boolean): void {
    const node = slot.running;
    if (!node) return;
    slot.running = undefined;
    node.shutdown({ deleteNode });
    if (!deleteNode) this.system.root.release(`node-${node.name}`);
  }

  static start(options: AgentOptions): TetherAgent {
    return new TetherAgent(options);
  }

  /** Read-only, for /metrics: each node's finished host API requests by verb and code. */
  apiRequestCounts(): Map<string, ReadonlyMap<string, number>> {
    return new Map(this.slots.map((slot) => [slot.name, slot.clients.apiRequestCounts()]));
  }

  /** Read-only, for /metrics: each node's API rate-limiter counters, by node name. */
  rateLimiterStats(): Map<string, Record<Priority, PriorityStats>> {
    return new Map(this.slots.map((slot) => [slot.name, slot.clients.rateLimiterStats()]));
  }

  /** Stops renewing leases and watching, lets pending Events go out, then stops every actor. */
  async shutdown(options: { readonly deleteNodes?: boolean; readonly graceMs?: number } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const running = this.slots.filter((slot) => slot.running);
    for (const slot of running) slot.running?.shutdown({ deleteNode: options.deleteNodes ?? false });
    const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());
    // Deleting the Node objects is asynchronous work of the node actors: give it time to land.
    if (options.deleteNodes) await pause(options.graceMs ?? 2_000);
    // Then the node locks go, so another replica takes the nodes without waiting for expiry.
    if (this.locks) await Promise.race([this.locks.stop(), pause(options.graceMs ?? 2_000)]);
    await Promise.race([Promise.all(this.slots.map((slot) => slot.clients.close().catch(() => undefined))), pause(options.graceMs ?? 2_000)]);
    this.system.stop();
  }
}
