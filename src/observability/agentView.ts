/**
 * What the observability endpoints read from a running agent: its actor registry, its virtual
 * nodes, and the API clients' rate-limiter counters. TetherAgent satisfies it; tests pass a fake.
 * Everything here is read-only.
 */
import type { RequestClass } from '../adapters/kubernetes/clusterClient.js';
import type { PriorityStats } from '../adapters/kubernetes/rateLimiter.js';
import type { ActorRegistry } from '../runtime/actorRegistry.js';

export interface NodeView {
  readonly name: string;
  /** The node's subtree root, `<root>/node-<name>`. */
  readonly path: string;
  /** True once the node's pod and Node watches have each completed a full list. */
  watchesSynced(): boolean;
}

export interface AgentView {
  readonly system: {
    readonly registry: ActorRegistry;
    /** Since start: escalations and children given up (the live tree shows only the current state). */
    readonly supervisionEvents?: Readonly<{ escalations: number; givenUp: number }>;
    /** Since start: restarts decided by a supervisor, by the restarted actor's kind. */
    readonly restartsByKind?: ReadonlyMap<string, number>;
  };
  readonly nodes: readonly NodeView[];
  /** With leader election a replica may drive no node (a standby): it is still ready to serve. */
  readonly standbyAllowed?: boolean;
  /** Rate-limiter counters per node and priority, when the agent has API clients. */
  rateLimiterStats?(): ReadonlyMap<string, Readonly<Record<RequestClass, PriorityStats>>>;
  /** Finished host API requests per node, keyed `<verb> <code>`. */
  apiRequestCounts?(): ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Under leader election: who drives each configured node as this replica sees it, and the live replicas. */
  nodeHolders?(): { readonly nodes: ReadonlyMap<string, string | undefined>; readonly replicas: readonly string[] } | undefined;
}
