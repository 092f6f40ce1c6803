/**
 * One cluster as the provider reaches it: a validated KubeConfig behind a keep-alive connection
 * pool, a CoreV1Api and a DiscoveryV1Api (EndpointSlices), and a rate limiter shared by every
 * request to that cluster. The provider holds two: the remote cluster (where pods run) and the
 * host cluster (where the ConfigMaps, Secrets, Services and EndpointSlices to reflect live).
 */
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { CoreV1Api, DiscoveryV1Api, EventsV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../lib/clock.js';
import type { StopOutcome } from '../../lib/lifecycle.js';
import { call, type CallContext, type CallDeadlines, type DeadlineClass, DEFAULT_CALL_DEADLINES } from '../../adapters/kubernetes/call.js';
import { ConnectionPool, pooledKubeConfig } from '../../adapters/kubernetes/connectionPool.js';
import { EventRecorderClient, type EventRecorderOptions } from '../../adapters/kubernetes/eventRecorderClient.js';
import type { KubeconfigSource } from '../../adapters/kubernetes/kubeconfig.js';
import { loadKubeConfig } from '../../adapters/kubernetes/kubeconfig.js';
import type { Priority } from '../../adapters/kubernetes/rateLimiter.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from '../../adapters/kubernetes/rateLimiter.js';

/** A kubeconfig to load (file or string; a Secret is read by the caller), or one already loaded. */
export type ClusterSource = KubeconfigSource | KubeConfig;

export interface ClusterClientOptions {
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  /** Per-class request deadlines (defaults in call.ts): every call to this cluster is bounded. */
  readonly deadlines?: Partial<CallDeadlines>;
  readonly clock?: Clock;
}

/** Operations that change nothing (their verb is the first word of the operation). */
const READS = /^(get|list|read|watch)\b/;

export class ClusterClient {
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly discovery: DiscoveryV1Api;
  readonly limiter: RateLimiter;
  readonly server: string;
  readonly deadlines: CallDeadlines;
  private readonly context: CallContext;
  private readonly writes: CallContext;
  private fence = new AbortController();
  private readonly pool = new ConnectionPool();

  /** Throws KubeconfigError (a configuration mistake, at construction) if the source is unusable. */
  constructor(source: ClusterSource, options: ClusterClientOptions = {}) {
    const loaded = source instanceof KubeConfig ? source : loadKubeConfig(source);
    this.kubeConfig = pooledKubeConfig(loaded, this.pool);
    this.core = this.kubeConfig.makeApiClient(CoreV1Api);
    this.discovery = this.kubeConfig.makeApiClient(DiscoveryV1Api);
    this.limiter = new RateLimiter({ ...(options.rateLimit ?? DEFAULT_RATE_LIMIT), ...(options.clock ? { clock: options.clock } : {}) });
    this.server = this.kubeConfig.getCurrentCluster()?.server ?? '(no server)';
    this.deadlines = { ...DEFAULT_CALL_DEADLINES, ...options.deadlines };
    this.context = { limiter: this.limiter, deadlines: this.deadlines, ...(options.clock ? { clock: options.clock } : {}) };
    this.writes = { ...this.context, signal: () => this.fence.signal };
  }

  /**
   * Fences this cluster's writes off (the node's lock is lost): writes still queued in the rate
   * limiter are dropped unsent, those in flight abandoned, new ones refused until `openWrites`.
   * Reads go on, so the informers stay warm for when the lock comes back.
   */
  fenceWrites(reason: string): void {
    this.fence.abort(new Error(`writes fenced: ${reason}`));
  }

  openWrites(): void {
    if (this.fence.signal.aborted) this.fence = new AbortController();
  }

  /**
   * Calls the API through the rate limiter, under the deadline of its class (a `list …` operation
   * is a list; otherwise by priority); rejects with KubeApiError naming the operation. Passing
   * `options` on to client-node also aborts the request itself at the deadline.
   */
  call<T>(priority: Priority, operation: string, fn: (core: CoreV1Api, options: ConfigurationOptions) => Promise<T>, deadlineClass?: DeadlineClass): Promise<T> {
    return this.callApi(this.core, priority, operation, fn, deadlineClass);
  }

  /** {@link call} for discovery.k8s.io/v1 (EndpointSlices): same limiter, deadlines and fence. */
  callDiscovery<T>(priority: Priority, operation: string, fn: (discovery: DiscoveryV1Api, options: ConfigurationOptions) => Promise<T>, deadlineClass?: DeadlineClass): Promise<T> {
    return this.callApi(this.discovery, priority, operation, fn, deadlineClass);
  }

  /** An events.k8s.io/v1 recorder whose writes go through this cluster's limiter and fence. */
  eventRecorder(options: EventRecorderOptions): EventRecorderClient {
    return new EventRecorderClient(this.kubeConfig.makeApiClient(EventsV1Api), this.writes, options);
  }

  private callApi<A, T>(api: A, priority: Priority, operation: string, fn: (api: A, options: ConfigurationOptions) => Promise<T>, deadlineClass?: DeadlineClass): Promise<T> {
    const deadline = deadlineClass ?? (operation.startsWith('list ') ? 'list' : undefined);
    const context = READS.test(operation) ? this.context : this.writes;
    return call(context, priority, operation, (options) => fn(api, options), deadline ? { deadline } : {});
  }

  /** Closes pooled connections (watches included). */
  stop(): Promise<StopOutcome> {
    return this.pool.stop();
  }
}
