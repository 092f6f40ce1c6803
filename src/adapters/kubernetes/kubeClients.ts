/**
 * Every Kubernetes adapter the agent's actors use for one node, built on that node's one
 * ClusterClient (clusterClient.ts): one rate limiter, one connection pool, one write fence,
 * shared with the node's provider when the provider is handed the same client. This is the only
 * place the agent's client-node API classes are made.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { CoordinationV1Api } from '@kubernetes/client-node';
import type { Clock } from '../../lib/clock.js';
import { LifecycleControl, type Lifecycle } from '../../lib/lifecycle.js';
import type { WatchTiming } from './cachedListWatch.js';
import type { CallDeadlines } from './call.js';
import { ClusterClient, type RequestClass } from './clusterClient.js';
import type { ConnectionPoolOptions } from './connectionPool.js';
import type { EventRecorder } from './eventRecorder.js';
import type { EventRecorderClient } from './eventRecorderClient.js';
import type { LeaseApi, LeaseListApi } from './leaseApi.js';
import { LeaseApiClient } from './leaseApiClient.js';
import type { KubeLog } from './log.js';
import { noopKubeLog } from './log.js';
import type { NodeApi } from './nodeApi.js';
import { NodeApiClient } from './nodeApiClient.js';
import type { PodApi } from './podApi.js';
import { PodApiClient } from './podApiClient.js';
import type { PriorityStats } from './rateLimiter.js';
import type { NodeWatch, PodWatch } from './watch.js';
import { createNodeWatch, createPodWatch } from './watchClients.js';
import { definedOnly } from '../../lib/defaults.js';

export interface KubeClientsOptions {
  /** The virtual node's name: Event reportingInstance and the watches' selectors. */
  readonly nodeName: string;
  /**
   * When the clients are built from a KubeConfig, the ClusterClient they make (and close on
   * `stop()`): client-side limit shared by all requests (default qps 50, burst 100: kubelet's
   * defaults). A ClusterClient handed in brings its own.
   */
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  /** As `rateLimit`: the Events' own limit (default qps 50, burst 100). */
  readonly eventRateLimit?: { readonly qps: number; readonly burst: number };
  /** As `rateLimit`: keep-alive connection reuse (on by default); `false` uses client-node's per-request agents. */
  readonly connectionPool?: ConnectionPoolOptions | false;
  readonly watch?: WatchTiming;
  /** As `rateLimit`: per-class request deadlines (lease, status, list, watch connect, other); defaults in call.ts. */
  readonly deadlines?: Partial<CallDeadlines>;
  readonly events?: { readonly seriesWindowMs?: number; readonly seriesFlushMs?: number };
  /** The node's one host EventRecorder, shared with its provider (made over `host`); without it the clients make their own. */
  readonly eventRecorder?: EventRecorderClient;
  readonly clock?: Clock;
  readonly log?: KubeLog;
}

/**
 * Everything the actors need from Kubernetes, behind Tether's own interfaces. Ready at once;
 * `stop()` writes pending event series, then closes pooled connections if these clients made
 * their ClusterClient (stop watches first); a ClusterClient handed in is its creator's to stop.
 */
export interface KubeClients extends Lifecycle {
  /** The node's one connection to the host cluster, which these clients call through. */
  readonly cluster: ClusterClient;
  readonly nodes: NodeApi;
  readonly leases: LeaseApi;
  /**
   * The same leases, outside the fence: for the leader election's lock, which must go on looking
   * and renewing while the node's own writes are fenced off.
   */
  readonly lockLeases: LeaseApi;
  readonly pods: PodApi;
  readonly events: EventRecorder;
  /** A new (unstarted) watch of the pods bound to the node. */
  watchPods(): PodWatch;
  /** A new (unstarted) watch of the node's own Node object. */
  watchNode(): NodeWatch;
  /** Rate limiter counters per class (queue depth, started, cumulative wait, dropped); `event` is the Events' limiter. */
  rateLimiterStats(): Record<RequestClass, PriorityStats>;
  /** Finished requests keyed `<verb> <code>`. */
  apiRequestCounts(): ReadonlyMap<string, number>;
  /**
   * Fences this node's writes off (its lock is lost): requests still queued in the rate limiter
   * are dropped, requests in flight abandoned, and new ones refused until {@link openWrites}.
   */
  fenceWrites(reason: string): void;
  /** Lets writes through again, under a fresh fence (the lock was acquired). */
  openWrites(): void;
}

/** Builds the clients on `host` (shared, not closed by `stop()`), or on a ClusterClient of their own made from a KubeConfig. */
export function createKubeClients(host: ClusterClient | KubeConfig, options: KubeClientsOptions): KubeClients {
  const owned = !(host instanceof ClusterClient);
  const cluster = host instanceof ClusterClient ? host : new ClusterClient(host, {
    ...definedOnly({ rateLimit: options.rateLimit, eventRateLimit: options.eventRateLimit, connectionPool: options.connectionPool, deadlines: options.deadlines, clock: options.clock }),
  });
  const { clock, core, deadlines, kubeConfig: kc } = cluster;
  const log = options.log ?? noopKubeLog;
  const fenced = cluster.writes;
  const unfenced = cluster.reads;
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const pods = new PodApiClient(core, fenced);
  const events = options.eventRecorder ?? cluster.eventRecorder({ ...options.events, reportingInstance: options.nodeName, clock, log });
  const timing: WatchTiming = { connectTimeoutMs: deadlines.watchConnect, listTimeoutMs: deadlines.list, ...options.watch };
  const watchDeps = { kubeConfig: kc, clock, log, nodeName: options.nodeName, timing };
  const life = new LifecycleControl({
    clock,
    release: async () => {
      await events.flushAll();
      if (owned) await cluster.stop();
    },
  });
  life.markReady();
  return {
    cluster,
    nodes: new NodeApiClient(core, fenced),
    leases: new LeaseApiClient(coordination, fenced),
    lockLeases: new LeaseApiClient(coordination, unfenced),
    pods,
    events,
    watchPods: () => createPodWatch({ ...watchDeps, pods }),
    watchNode: () => createNodeWatch({ ...watchDeps, core, limiter: fenced }),
    rateLimiterStats: () => cluster.rateLimiterStats(),
    apiRequestCounts: () => cluster.apiRequestCounts(),
    ready: life.ready,
    done: life.done,
    stop: (stopOptions) => life.stop(stopOptions),
    fenceWrites: (reason) => cluster.fenceWrites(reason),
    openWrites: () => cluster.openWrites(),
  };
}

/**
 * The replica's own lease client, for its membership Lease (src/ha/membership.ts): a connection
 * of its own, so membership traffic is no node's (it counts against no node's budget and is never
 * fenced), at a small budget of its own (two calls a retry period). `stop()` closes it.
 */
export function createReplicaLeases(host: KubeConfig, options: { readonly clock?: Clock; readonly deadlines?: Partial<CallDeadlines> } = {}): { readonly leases: LeaseListApi; stop(): Promise<unknown> } {
  const cluster = new ClusterClient(host, { rateLimit: { qps: 5, burst: 10 }, ...definedOnly({ clock: options.clock, deadlines: options.deadlines }) });
  return { leases: new LeaseApiClient(cluster.kubeConfig.makeApiClient(CoordinationV1Api), cluster.reads), stop: () => cluster.stop() };
}
