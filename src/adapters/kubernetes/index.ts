/**
 * The Kubernetes adapter layer: the only code in Tether that imports @kubernetes/client-node.
 *
 * Actors depend on the small interfaces (NodeApi, LeaseApi, PodApi, EventRecorder, PodWatch,
 * NodeWatch) and on KubeApiError's `kind`; `createKubeClients` builds the client-node
 * implementations from a KubeConfig (`loadKubeConfig`), all sharing one priority rate limiter
 * (lease > delete > status > other) and one keep-alive connection pool.
 *
 * Sketch:
 *   const kc = loadKubeConfig({ kind: 'default' });           // throws KubeconfigError
 *   const k8s = createKubeClients(kc, { nodeName: 'vk-1' });
 *   const pods = k8s.watchPods(); pods.events.subscribe(...); pods.start();
 *   await k8s.pods.patchPodStatus(ns, name, status);          // rejects with KubeApiError
 *   ...; pods.stop(); await k8s.close();
 */
export type * from './model.js';
export type { NodeApi, NodeMetadataPatch } from './nodeApi.js';
export type { LeaseApi } from './leaseApi.js';
export type { PodApi, DeletePodOptions, ListPodsOptions, PodList } from './podApi.js';
export type { EventRecorder, EventSubject, EventType } from './eventRecorder.js';
export type { ChangeType, PodWatch, PodWatchEvent, NodeWatch, NodeWatchEvent, WatchLifecycle } from './watch.js';
export type { KubeLog } from './log.js';
export type { WatchTiming } from './cachedListWatch.js';
export type { ApiErrorInfo } from './errors.js';
export { KubeApiError, classifyApiError, describeApiError } from './errors.js';
export type { Priority, PriorityStats, RateLimiterOptions, RequestScheduler } from './rateLimiter.js';
export { PRIORITIES, RateLimiter } from './rateLimiter.js';
export type { KubeconfigSource } from './kubeconfig.js';
export { KubeconfigError, loadKubeConfig } from './kubeconfig.js';
export type { ConnectionPoolOptions, ConnectionPoolStats } from './connectionPool.js';
export type { KubeClients, KubeClientsOptions } from './kubeClients.js';
export { createKubeClients } from './kubeClients.js';
