/**
 * One cluster as the provider reaches it: a validated KubeConfig behind a keep-alive connection
 * pool, a CoreV1Api, and a rate limiter shared by every request to that cluster. The provider
 * holds two: the remote cluster (where pods run) and the host cluster (where the ConfigMaps and
 * Secrets to reflect live).
 */
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../lib/clock.js';
import type { StopOutcome } from '../../lib/lifecycle.js';
import { call } from '../../adapters/kubernetes/call.js';
import { ConnectionPool, pooledKubeConfig } from '../../adapters/kubernetes/connectionPool.js';
import type { KubeconfigSource } from '../../adapters/kubernetes/kubeconfig.js';
import { loadKubeConfig } from '../../adapters/kubernetes/kubeconfig.js';
import type { Priority } from '../../adapters/kubernetes/rateLimiter.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from '../../adapters/kubernetes/rateLimiter.js';

/** A kubeconfig to load (file or string; a Secret is read by the caller), or one already loaded. */
export type ClusterSource = KubeconfigSource | KubeConfig;

export interface ClusterClientOptions {
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
  readonly clock?: Clock;
}

export class ClusterClient {
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly limiter: RateLimiter;
  readonly server: string;
  private readonly pool = new ConnectionPool();

  /** Throws KubeconfigError (a configuration mistake, at construction) if the source is unusable. */
  constructor(source: ClusterSource, options: ClusterClientOptions = {}) {
    const loaded = source instanceof KubeConfig ? source : loadKubeConfig(source);
    this.kubeConfig = pooledKubeConfig(loaded, this.pool);
    this.core = this.kubeConfig.makeApiClient(CoreV1Api);
    this.limiter = new RateLimiter({ ...(options.rateLimit ?? DEFAULT_RATE_LIMIT), ...(options.clock ? { clock: options.clock } : {}) });
    this.server = this.kubeConfig.getCurrentCluster()?.server ?? '(no server)';
  }

  /** Calls the API through the rate limiter; rejects with KubeApiError naming the operation. */
  call<T>(priority: Priority, operation: string, fn: (core: CoreV1Api) => Promise<T>): Promise<T> {
    return call(this.limiter, priority, operation, () => fn(this.core));
  }

  /** Closes pooled connections (watches included). */
  stop(): Promise<StopOutcome> {
    return this.pool.stop();
  }
}
