/**
 * Wrappers that put in-memory APIs where the real adapters stand: behind the client-side rate
 * limiter (KubeClients' RateLimiter, at the adapters' priorities), and, for leases, recording
 * when each renewal reaches the "apiserver" so the heartbeat's cadence can be measured there.
 */
import type { LeaseApi } from '../../src/adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../src/adapters/kubernetes/model.js';
import type { NodeApi } from '../../src/adapters/kubernetes/nodeApi.js';
import type { PodApi } from '../../src/adapters/kubernetes/podApi.js';
import type { RequestScheduler } from '../../src/adapters/kubernetes/rateLimiter.js';

/** PodApi calls scheduled as PodApiClient schedules them: status, delete, other. */
export function limitedPodApi(api: PodApi, limiter: RequestScheduler): PodApi {
  return {
    getPod: (ns, name) => limiter.schedule('other', () => api.getPod(ns, name)),
    patchPodStatus: (ns, name, uid, status) => limiter.schedule('status', () => api.patchPodStatus(ns, name, uid, status)),
    patchPodAnnotations: (ns, name, uid, a) => limiter.schedule('other', () => api.patchPodAnnotations(ns, name, uid, a)),
    deletePod: (ns, name, options) => limiter.schedule('delete', () => api.deletePod(ns, name, options)),
    listPods: (options) => limiter.schedule('other', () => api.listPods(options)),
  };
}

/** NodeApi calls at the priorities NodeApiClient uses; each status write's queue wait pushed onto `waits`. */
export function limitedNodeApi(api: NodeApi, limiter: RequestScheduler, waits: number[] = []): NodeApi {
  return {
    getNode: (name) => limiter.schedule('other', () => api.getNode(name)),
    createNode: (node) => limiter.schedule('other', () => api.createNode(node)),
    patchNodeStatus: (name, status) => {
      const asked = Date.now();
      return limiter.schedule('status', () => {
        waits.push(Date.now() - asked);
        return api.patchNodeStatus(name, status);
      });
    },
    patchNodeMetadata: (name, patch) => limiter.schedule('other', () => api.patchNodeMetadata(name, patch)),
    deleteNode: (name) => limiter.schedule('delete', () => api.deleteNode(name)),
  };
}

/** Every successful updateLease, as the server saw it: when it arrived (ms since the epoch). */
export interface LeaseArrivals {
  readonly updates: number[];
}

/** LeaseApi calls at the 'lease' priority (when a limiter is given), arrivals recorded. */
export function recordedLeaseApi(api: LeaseApi, limiter?: RequestScheduler): LeaseApi & LeaseArrivals {
  const updates: number[] = [];
  const via = <T>(fn: () => Promise<T>): Promise<T> => (limiter ? limiter.schedule('lease', fn) : fn());
  return {
    updates,
    getLease: (ns, name) => via(() => api.getLease(ns, name)),
    createLease: (lease: Lease) => via(() => api.createLease(lease)),
    updateLease: (lease: Lease) =>
      via(async () => {
        const arrived = Date.now();
        const stored = await api.updateLease(lease);
        updates.push(arrived);
        return stored;
      }),
  };
}
