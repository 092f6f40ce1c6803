/**
 * One connection to one cluster, the one type every part of Tether reaches a cluster through: a
 * keep-alive connection pool, a priority rate limiter shared by every request, per-class
 * deadlines, a write fence, and calls as typed operations (operation.ts). The agent builds its
 * node's clients on one (kubeClients.ts) and hands the same one to the node's provider, so a
 * node has one host client: one limiter, one pool, one fence. The Kubernetes provider holds a
 * second for its remote cluster.
 *
 * Events have a limiter of their own, as the kubelet gives them a client of its own (50 qps,
 * burst 100; cmd/kubelet/app/server.go), with a bounded queue: a storm of Events (four reflected
 * per offloaded pod at 10k pods) must not hold up the reads and writes that drive pods, and
 * Events past the bound are dropped, as client-go's recorder drops them past 1,000 queued.
 *
 * Whoever creates a ClusterClient stops it (closing its pooled connections), after everything
 * that calls through it has stopped.
 */
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { CoreV1Api, DiscoveryV1Api, EventsV1Api, KubeConfig, NetworkingV1Api, NodeV1Api } from '@kubernetes/client-node';
import type { Clock } from '../../lib/clock.js';
import { KindedError } from '../../lib/errorKind.js';
import type { StopOutcome } from '../../lib/lifecycle.js';
import { systemClock } from '../clock.js';
import { call, type CallContext, type CallDeadlines, type DeadlineClass, DEFAULT_CALL_DEADLINES } from './call.js';
import { asClientKubeConfig } from './clientKubeConfig.js';
import { ConnectionPool, pooledKubeConfig, type ConnectionPoolOptions } from './connectionPool.js';
import { EventRecorderClient, type EventRecorderOptions } from './eventRecorderClient.js';
import { loadKubeConfig, type KubeconfigSource } from './kubeconfig.js';
import { isRead, type Operation } from './operation.js';
import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_RATE_LIMIT, RateLimiter, type Priority, type PriorityStats } from './rateLimiter.js';

/** The Events' budget when none is configured: the kubelet's (eventRecordQPS 50, eventBurst 100). */
export const DEFAULT_EVENT_RATE_LIMIT = { qps: 50, burst: 100 } as const;
/** Events waiting at most; past it they are dropped (client-go's recorder: maxQueuedEvents). */
export const MAX_QUEUED_EVENTS = 1_000;
/** Event requests in flight at once: at 50 a second and ~10 ms each, a few are plenty. */
const EVENT_MAX_IN_FLIGHT = 4;

/** The rate limiter's classes, and `event` for the Events' own limiter. */
export type RequestClass = Priority | 'event';

/** A kubeconfig to load (file or string; a Secret is read by the caller), or one already loaded. */
export type ClusterSource = KubeconfigSource | KubeConfig;

/** How one call through a cluster client is bounded: its deadline class, and the caller's own cancellation. */
export interface ClusterCallOptions {
  readonly deadline?: DeadlineClass;
  readonly signal?: AbortSignal;
}

export interface ClusterClientOptions {
  /** Client-side limit shared by all requests (default qps 50, burst 100: kubelet's defaults). */
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  /** The Events' own limit (default qps 50, burst 100: the kubelet's eventRecordQPS and eventBurst). */
  readonly eventRateLimit?: { readonly qps: number; readonly burst: number };
  /** Requests in flight at once, lease requests aside (default {@link DEFAULT_MAX_IN_FLIGHT}); also the idle sockets kept. */
  readonly maxInFlight?: number;
  /** Keep-alive connection reuse (on by default); `false` uses client-node's per-request agents. */
  readonly connectionPool?: ConnectionPoolOptions | false;
  /** Per-class request deadlines (defaults in call.ts): every call to this cluster is bounded. */
  readonly deadlines?: Partial<CallDeadlines>;
  readonly clock?: Clock;
  /**
   * Built fenced, for this reason (a replica under leader election, before the node's lock is
   * held): no write goes out until `openWrites`. Default: open (a single replica drives at once).
   */
  readonly fenced?: string;
}

export class ClusterClient {
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly discovery: DiscoveryV1Api;
  /** node.k8s.io/v1 (RuntimeClasses). */
  readonly nodeApi: NodeV1Api;
  readonly limiter: RateLimiter;
  /** Events' requests only: their own budget and a bounded queue. */
  readonly eventLimiter: RateLimiter;
  readonly server: string;
  readonly deadlines: CallDeadlines;
  readonly clock: Clock;
  /** Calls that read: never fenced. */
  readonly reads: CallContext;
  /** Calls that write: dropped or abandoned while the fence is up. */
  readonly writes: CallContext;
  private fence = new AbortController();
  private readonly pool: ConnectionPool | undefined;
  private networking: NetworkingV1Api | undefined;

  /** Throws KubeconfigError (a configuration mistake, at construction) if the source is unusable. */
  constructor(source: ClusterSource, options: ClusterClientOptions = {}) {
    const loaded = source instanceof KubeConfig ? source : loadKubeConfig(source);
    this.clock = options.clock ?? systemClock;
    const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    // As many idle sockets kept as requests may run at once: a burst's sockets all stay for the next one.
    const maxFreeSockets = maxInFlight + EVENT_MAX_IN_FLIGHT;
    this.pool = options.connectionPool === false ? undefined : new ConnectionPool({ clock: this.clock, maxFreeSockets, ...options.connectionPool });
    this.kubeConfig = this.pool ? pooledKubeConfig(loaded, this.pool) : asClientKubeConfig(loaded);
    this.core = this.kubeConfig.makeApiClient(CoreV1Api);
    this.discovery = this.kubeConfig.makeApiClient(DiscoveryV1Api);
    this.nodeApi = this.kubeConfig.makeApiClient(NodeV1Api);
    this.limiter = new RateLimiter({ ...(options.rateLimit ?? DEFAULT_RATE_LIMIT), maxInFlight, clock: this.clock });
    this.eventLimiter = new RateLimiter({
      ...(options.eventRateLimit ?? DEFAULT_EVENT_RATE_LIMIT), maxInFlight: EVENT_MAX_IN_FLIGHT, maxQueued: MAX_QUEUED_EVENTS, clock: this.clock,
    });
    this.server = this.kubeConfig.getCurrentCluster()?.server ?? '(no server)';
    this.deadlines = { ...DEFAULT_CALL_DEADLINES, ...options.deadlines };
    this.reads = { limiter: this.limiter, deadlines: this.deadlines, clock: this.clock };
    this.writes = { ...this.reads, signal: () => this.fence.signal };
    if (options.fenced !== undefined) this.fenceWrites(options.fenced);
  }

  /**
   * Fences this cluster's writes off (the node's lock is lost): writes still queued in the rate
   * limiter are dropped unsent, those in flight abandoned, new ones refused until `openWrites`,
   * each with a transient error. Reads go on, so the informers stay warm for when the lock comes back.
   */
  fenceWrites(reason: string): void {
    this.fence.abort(new KindedError('transient', `writes fenced: ${reason}`));
  }

  /** Lets writes through again, under a fresh fence (the lock was acquired). Idempotent. */
  openWrites(): void {
    if (this.fence.signal.aborted) this.fence = new AbortController();
  }

  /** The context of one operation: a write is fenced, a read is not. */
  contextOf(op: Operation): CallContext {
    return isRead(op) ? this.reads : this.writes;
  }

  /**
   * Calls the API through the rate limiter, under the deadline of its class (a list's, else by
   * priority); rejects with KubeApiError naming the operation. Passing `options` on to
   * client-node also aborts the request itself at the deadline.
   */
  call<T>(priority: Priority, op: Operation, fn: (core: CoreV1Api, options: ConfigurationOptions) => Promise<T>, options?: ClusterCallOptions): Promise<T> {
    return this.callApi(this.core, priority, op, fn, options);
  }

  /** {@link call} for discovery.k8s.io/v1 (EndpointSlices): same limiter, deadlines and fence. */
  callDiscovery<T>(priority: Priority, op: Operation, fn: (discovery: DiscoveryV1Api, options: ConfigurationOptions) => Promise<T>, options?: ClusterCallOptions): Promise<T> {
    return this.callApi(this.discovery, priority, op, fn, options);
  }

  /** {@link call} for networking.k8s.io/v1 (ServiceCIDRs, read at start): same limiter, deadlines and fence. */
  callNetworking<T>(priority: Priority, op: Operation, fn: (networking: NetworkingV1Api, options: ConfigurationOptions) => Promise<T>): Promise<T> {
    this.networking ??= this.kubeConfig.makeApiClient(NetworkingV1Api);
    return this.callApi(this.networking, priority, op, fn);
  }

  /** {@link call} for node.k8s.io/v1 (RuntimeClasses): same limiter, deadlines and fence. */
  callNode<T>(priority: Priority, op: Operation, fn: (node: NodeV1Api, options: ConfigurationOptions) => Promise<T>, options?: ClusterCallOptions): Promise<T> {
    return this.callApi(this.nodeApi, priority, op, fn, options);
  }

  /** An events.k8s.io/v1 recorder whose writes go through the Events' limiter and this cluster's fence. */
  eventRecorder(options: EventRecorderOptions): EventRecorderClient {
    return new EventRecorderClient(this.kubeConfig.makeApiClient(EventsV1Api), { ...this.writes, limiter: this.eventLimiter }, options);
  }

  /** Rate limiter counters per class (queue depth, started, cumulative wait, dropped); `event` is the Events' limiter. */
  rateLimiterStats(): Record<RequestClass, PriorityStats> {
    return { ...this.limiter.stats(), event: this.eventLimiter.stats().other };
  }

  /** Finished requests keyed `<verb> <code>`, Events' included. */
  apiRequestCounts(): ReadonlyMap<string, number> {
    const counts = new Map(this.limiter.requestCounts());
    for (const [key, n] of this.eventLimiter.requestCounts()) counts.set(key, (counts.get(key) ?? 0) + n);
    return counts;
  }

  private callApi<A, T>(api: A, priority: Priority, op: Operation, fn: (api: A, options: ConfigurationOptions) => Promise<T>, options: ClusterCallOptions = {}): Promise<T> {
    return call(this.contextOf(op), priority, op, (requestOptions) => fn(api, requestOptions), options);
  }

  /** Closes pooled connections (watches included). */
  async stop(): Promise<StopOutcome> {
    return this.pool ? this.pool.stop() : 'clean';
  }
}
