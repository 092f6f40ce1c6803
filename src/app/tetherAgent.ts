/**
 * The agent: one actor system, one subtree per virtual node, each node with its own provider and
 * its own Kubernetes clients (its own watches, and one host ClusterClient: rate limiter,
 * connection pool, fence, shared with the node's provider when the spec hands it in), so one
 * node's storm or outage cannot starve another's lease.
 *
 * With `leaderElection`, several replicas share the nodes: a node's subtree runs only while this
 * replica holds the node's lock (src/ha: one lock actor per node under `tether/ha`). It is
 * started, with fresh watches, when the lock is acquired and released (stopped at once) when it
 * is lost; state is rebuilt from the clusters on every start. Without it, every node starts at
 * once, as before.
 *
 * Write fences: under leader election a node's host clients and its provider (a
 * WriteFencedProvider) are fenced from the agent's start, opened when the lock is taken (the
 * provider first, once its parts of an earlier hold have stopped; then the subtree starts) and fenced when it is lost (before the subtree stops), so a standby writes
 * nothing whatever reaches it (a kubelet API call, say). Without it they are opened at start.
 */
import { sleep, type Clock } from '../lib/clock.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../lib/lifecycle.js';
import { errorMessage } from '../lib/errorMessage.js';
import { systemClock } from '../adapters/clock.js';
import type { EventRecorder } from '../adapters/kubernetes/eventRecorder.js';
import type { EventRecorderClient } from '../adapters/kubernetes/eventRecorderClient.js';
import type { ClusterClient, RequestClass } from '../adapters/kubernetes/clusterClient.js';
import { createKubeClients, createReplicaLeases, type KubeClients } from '../adapters/kubernetes/kubeClients.js';
import { loadKubeConfig, type KubeconfigSource } from '../adapters/kubernetes/kubeconfig.js';
import type { PriorityStats } from '../adapters/kubernetes/rateLimiter.js';
import { jsonLogger, type Logger } from '../adapters/logger.js';
import { withDeepCopies } from '../providers/deepCopy.js';
import { isWriteFencedProvider, type Provider } from '../providers/provider.js';
import { startVirtualNode, type VirtualNode } from '../actors/virtualNode.js';
import { virtualNodeConfig, type VirtualNodeSettings } from '../actors/virtualNodeConfig.js';
import { ActorSystem } from '../supervisors/actorSystem.js';
import { electionSettings, NodeLocks, type LeaderElectionOptions } from '../ha/index.js';
import type { RestartPolicy } from '../supervisors/restartPolicy.js';
import { definedOnly } from '../lib/defaults.js';

/** A node's settings (the config file's `nodes[]` entry), with its provider and restart policies. */
export interface AgentNodeSpec extends VirtualNodeSettings {
  readonly provider: Provider;
  /**
   * The node's host connection, the one its provider was given too (one limiter, pool and fence
   * per node); its creator stops it after the agent. Without it the agent makes one of its own.
   */
  readonly hostClient?: ClusterClient | undefined;
  /** The node's host EventRecorder over `hostClient`, the one its provider was given too: one recorder per node. */
  readonly hostEvents?: EventRecorderClient | undefined;
  readonly nodePolicy?: RestartPolicy | undefined;
  readonly podPolicy?: RestartPolicy | undefined;
}

export interface AgentOptions {
  readonly host: KubeconfigSource;
  readonly nodes: readonly AgentNodeSpec[];
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  /** The host Events' own limit (default qps 50, burst 100). */
  readonly eventRateLimit?: { readonly qps: number; readonly burst: number };
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
  readonly provider: Provider;
  readonly launch: () => VirtualNode;
  running?: VirtualNode;
  /** Bumped each time the node's lock is lost: an open still waiting gives way. */
  term: number;
}

/** Closes a node's fences, the host clients' and the provider's (which then stops what drives the node). */
function fenceWrites(slot: NodeSlot, reason: string): void {
  slot.clients.fenceWrites(reason);
  if (isWriteFencedProvider(slot.provider)) slot.provider.fenceWrites(reason);
}

/**
 * Opens a node's fences, the provider's first: it may wait for its parts of an earlier hold to
 * stop (a lock lost and taken back quickly), and the host clients (shared with it) open only
 * after, so no write of that earlier hold goes out. False when the lock was lost meanwhile.
 */
async function openWrites(slot: NodeSlot): Promise<boolean> {
  const term = slot.term;
  if (isWriteFencedProvider(slot.provider)) await slot.provider.openWrites();
  if (term !== slot.term) return false;
  slot.clients.openWrites();
  return true;
}

/** What `stop` takes beyond its deadline. */
export interface AgentStopOptions extends StopOptions {
  /** Delete each running node's Node object (default false: the node goes NotReady). */
  readonly deleteNodes?: boolean;
}

/**
 * The agent, with the one lifecycle: ready once every node it drives has listed (or, with
 * leader election, once the locks are contended); done after `stop()`, or failed when the root
 * supervisor gives up.
 */
export class TetherAgent implements Lifecycle {
  readonly system: ActorSystem;
  readonly ready: Promise<void>;
  readonly done: Promise<void>;
  private readonly slots: NodeSlot[];
  private readonly locks: NodeLocks | undefined;
  /** Under leader election: the replica's own lease client (its membership Lease). */
  private readonly replicaLeases: ReturnType<typeof createReplicaLeases> | undefined;
  private readonly clock: Clock;
  private readonly life: LifecycleControl;
  private stopOptions: AgentStopOptions = {};

  private constructor(options: AgentOptions) {
    const clock = options.clock ?? systemClock;
    this.clock = clock;
    const logger = options.logger ?? jsonLogger();
    this.life = new LifecycleControl({
      clock,
      release: () => this.release(),
      defaultDeadlineMs: 10_000,
      onReleaseFailed: (error) => logger.warn('stopping the agent failed', { error: errorMessage(error) }),
    });
    this.ready = this.life.ready;
    this.done = this.life.done;
    // Loaded only for a node that brings no host connection of its own (`tether run` brings one for each).
    let kubeConfig: ReturnType<typeof loadKubeConfig> | undefined;
    const hostConfig = (): ReturnType<typeof loadKubeConfig> => (kubeConfig ??= loadKubeConfig(options.host));
    const election = options.leaderElection ? electionSettings(options.leaderElection) : undefined;
    if (election && election.problems.length > 0) throw new Error(`leader election: ${election.problems.join('; ')}`);
    this.system = new ActorSystem({
      clock,
      logger,
      ...definedOnly({ rootPolicy: options.rootPolicy }),
      onFatal: (error) => {
        this.life.fail(error);
        options.onFatal?.(error);
      },
    });
    this.slots = options.nodes.map((spec) => {
      const clients = createKubeClients(spec.hostClient ?? hostConfig(), { nodeName: spec.name, clock, log: logger.child({ node: spec.name }), ...definedOnly({ eventRecorder: spec.hostEvents, rateLimit: options.rateLimit, eventRateLimit: options.eventRateLimit }) });
      const onStatusLatency = options.onStatusLatency;
      const observe = onStatusLatency ? (seconds: number): void => onStatusLatency(spec.name, seconds) : undefined;
      return { name: spec.name, clients, provider: spec.provider, launch: () => this.launch(spec, clients, clock, logger, observe), term: 0 };
    });
    if (!election) {
      // One replica holds every node: its writes are open from the start.
      for (const slot of this.slots) {
        // Nothing of an earlier hold can be running yet: open at once.
        slot.clients.openWrites();
        if (isWriteFencedProvider(slot.provider)) void slot.provider.openWrites();
        slot.running = slot.launch();
      }
      this.locks = undefined;
      this.replicaLeases = undefined;
      Promise.all(this.slots.map((slot) => slot.running?.ready)).then(() => this.life.markReady(), (error: unknown) => this.life.fail(error));
      return;
    }
    // A standby until a lock is held: no node's writes go out before then.
    for (const slot of this.slots) fenceWrites(slot, `this replica does not hold the lock of node ${slot.name}`);
    const replicaLeases = createReplicaLeases(this.slots[0]?.clients.cluster.kubeConfig ?? hostConfig(), { clock });
    this.replicaLeases = replicaLeases;
    this.locks = new NodeLocks(this.system.root, election.settings, this.slots.map((slot) => ({
      name: slot.name,
      leaseApi: slot.clients.lockLeases,
      onAcquired: () => {
        if (this.life.stopRequested || slot.running) return;
        void openWrites(slot).then((held) => {
          if (held && !this.life.stopRequested && !slot.running) slot.running = slot.launch();
        });
      },
      onLost: () => {
        slot.term += 1;
        // First the fence: writes still queued for this node are dropped, not sent after another
        // replica took over. Not when this agent is stopping and releases the lock itself: its
        // actors are already stopped, and its last Events should still go out.
        if (!this.life.stopRequested) fenceWrites(slot, `the lock of node ${slot.name} was lost`);
        this.stopNode(slot, false);
      },
    })), { clock, logger, members: replicaLeases.leases });
    this.locks.start();
    this.locks.ready.then(() => this.life.markReady(), (error: unknown) => this.life.fail(error));
  }

  /** True when replicas share the nodes through locks: driving no node is then a standby, not a fault. */
  get standbyAllowed(): boolean {
    return this.locks !== undefined;
  }

  /** Under leader election: who drives each configured node as this replica sees it (undefined: nobody seen), and the live replicas. */
  nodeHolders(): { readonly nodes: ReadonlyMap<string, string | undefined>; readonly replicas: readonly string[] } | undefined {
    return this.locks && { nodes: this.locks.holders(), replicas: this.locks.replicas };
  }

  /** The virtual nodes this replica drives now (all configured ones without leader election). */
  get nodes(): readonly VirtualNode[] {
    return this.slots.flatMap((slot) => (slot.running ? [slot.running] : []));
  }

  private launch(spec: AgentNodeSpec, clients: KubeClients, clock: Clock, logger: Logger, onStatusLatency?: (seconds: number) => void): VirtualNode {
    return startVirtualNode(
      this.system.root,
      { ...virtualNodeConfig(spec), nodePolicy: spec.nodePolicy, podPolicy: spec.podPolicy },
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
        ...definedOnly({ onStatusLatency }),
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
    void node.stop({ deleteNode });
    if (!deleteNode) this.system.root.release(`node-${node.name}`);
  }

  static start(options: AgentOptions): TetherAgent {
    return new TetherAgent(options);
  }

  /**
   * The node's host EventRecorder (rate-limited, and fenced with its writes under HA), for
   * providers that report Events about the node's pods (the Kubernetes provider's remote Events).
   */
  eventsOf(nodeName: string): EventRecorder | undefined {
    return this.slots.find((slot) => slot.name === nodeName)?.clients.events;
  }

  /** Read-only, for /metrics: each node's finished host API requests by verb and code. */
  apiRequestCounts(): Map<string, ReadonlyMap<string, number>> {
    return new Map(this.slots.map((slot) => [slot.name, slot.clients.apiRequestCounts()]));
  }

  /** Read-only, for /metrics: each node's API rate-limiter counters, by node name. */
  rateLimiterStats(): Map<string, Record<RequestClass, PriorityStats>> {
    return new Map(this.slots.map((slot) => [slot.name, slot.clients.rateLimiterStats()]));
  }

  /**
   * Stops renewing leases and watching, lets pending Events go out, then stops every actor. The
   * deadline is shared by three phases (Node deletion, lock release, connections), a third each.
   */
  stop(options: AgentStopOptions = {}): Promise<StopOutcome> {
    if (!this.life.stopRequested) this.stopOptions = options;
    return this.life.stop(options);
  }

  private async release(): Promise<void> {
    const graceMs = Math.max(100, Math.min(2_000, Math.floor((this.stopOptions.deadlineMs ?? 6_000) / 3)));
    const deleteNodes = this.stopOptions.deleteNodes ?? false;
    const within = (work: Promise<unknown>): Promise<unknown> => Promise.race([work, sleep(this.clock, graceMs)]);
    const running = this.slots.filter((slot) => slot.running);
    const stopped = running.map((slot) => slot.running?.stop({ deleteNode: deleteNodes }));
    // Deleting the Node objects is asynchronous work of the node actors: give it time to land.
    if (deleteNodes) await sleep(this.clock, graceMs);
    await within(Promise.all(stopped));
    // Then the node locks go, so another replica takes the nodes without waiting for expiry.
    if (this.locks) await within(this.locks.stop());
    await within(Promise.all([...this.slots.map((slot) => slot.clients.stop()), this.replicaLeases?.stop()]));
    this.system.stop();
  }
}
