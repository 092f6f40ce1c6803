/**
 * The factory that builds every Kubernetes adapter from one KubeConfig, sharing one rate
 * limiter and one connection pool. This is the only place the client-node API classes are made.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { CoordinationV1Api, CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import type { Clock } from '../../lib/clock.js';
import { LifecycleControl, type Lifecycle } from '../../lib/lifecycle.js';
import { systemClock } from '../clock.js';
import type { WatchTiming } from './cachedListWatch.js';
import type { CallContext, CallDeadlines } from './call.js';
import { DEFAULT_CALL_DEADLINES } from './call.js';
import type { ConnectionPoolOptions } from './connectionPool.js';
import { ConnectionPool, pooledKubeConfig } from './connectionPool.js';
import type { EventRecorder } from './eventRecorder.js';
import { EventRecorderClient } from './eventRecorderClient.js';
import type { LeaseApi } from './leaseApi.js';
import { LeaseApiClient } from './leaseApiClient.js';
import type { KubeLog } from './log.js';
import { noopKubeLog } from './log.js';
import type { NodeApi } from './nodeApi.js';
import { NodeApiClient } from './nodeApiClient.js';
import type { PodApi } from './podApi.js';
import { PodApiClient } from './podApiClient.js';
import type { Priority, PriorityStats } from './rateLimiter.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from './rateLimiter.js';
import type { NodeWatch, PodWatch } from './watch.js';
import { createNodeWatch, createPodWatch } from './watchClients.js';

export interface KubeClientsOptions {
  /** The virtual node's name: Event reportingInstance and the watches' selectors. */
  readonly nodeName: string;
  /** Client-side limit shared by all requests (default qps 50, burst 100: kubelet's defaults). */
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  /** Keep-alive connection reuse (on by default); `false` uses client-node's per-request agents. */
  readonly connectionPool?: ConnectionPoolOptions | false;
  readonly watch?: WatchTiming;
  /** Per-class request deadlines (lease, status, list, watch connect, other); defaults in call.ts. */
  readonly deadlines?: Partial<CallDeadlines>;
  readonly events?: { readonly seriesWindowMs?: number; readonly seriesFlushMs?: number };
  readonly clock?: Clock;
  readonly log?: KubeLog;
}

/**
 * Everything the actors need from Kubernetes, behind Tether's own interfaces. Ready at once;
 * `stop()` writes pending event series, then closes pooled connections (stop watches first).
 */
export interface KubeClients extends Lifecycle {
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
  /** Rate limiter counters per priority (queue depth, started, cumulative wait). */
  rateLimiterStats(): Record<Priority, PriorityStats>;
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

export function createKubeClients(kubeConfig: KubeConfig, options: KubeClientsOptions): KubeClients {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? noopKubeLog;
  const pool = options.connectionPool === false ? undefined : new ConnectionPool({ clock, ...options.connectionPool });
  const kc = pool ? pooledKubeConfig(kubeConfig, pool) : kubeConfig;
  const limiter = new RateLimiter({ ...(options.rateLimit ?? DEFAULT_RATE_LIMIT), clock });
  const deadlines = { ...DEFAULT_CALL_DEADLINES, ...options.deadlines };
  let fence = new AbortController();
  const fenced: CallContext = { limiter, clock, deadlines, signal: () => fence.signal };
  const unfenced: CallContext = { limiter, clock, deadlines };
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const pods = new PodApiClient(core, fenced);
  const events = new EventRecorderClient(kc.makeApiClient(EventsV1Api), fenced, {
    ...options.events,
    reportingInstance: options.nodeName,
    clock,
    log,
  });
  const timing: WatchTiming = { connectTimeoutMs: deadlines.watchConnect, listTimeoutMs: deadlines.list, ...options.watch };
  const watchDeps = { kubeConfig: kc, clock, log, nodeName: options.nodeName, timing };
  const life = new LifecycleControl({
    clock,
    release: async () => {
      await events.flushAll();
      await pool?.stop();
    },
  });
  life.markReady();
  return {
    nodes: new NodeApiClient(core, fenced),
    leases: new LeaseApiClient(coordination, fenced),
    lockLeases: new LeaseApiClient(coordination, unfenced),
    pods,
    events,
    watchPods: () => createPodWatch({ ...watchDeps, pods }),
    watchNode: () => createNodeWatch({ ...watchDeps, core, limiter: fenced }),
    rateLimiterStats: () => limiter.stats(),
    apiRequestCounts: () => limiter.requestCounts(),
    ready: life.ready,
    done: life.done,
    stop: (stopOptions) => life.stop(stopOptions),
    fenceWrites: (reason) => fence.abort(new Error(`writes fenced: ${reason}`)),
    openWrites: () => {
      if (fence.signal.aborted) fence = new AbortController();
    },
  };
}
