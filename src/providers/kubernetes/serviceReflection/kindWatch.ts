/**
 * A self-healing list-watch of Services or EndpointSlices in one cluster: of one namespace (the
 * host's, for reflection) or of all namespaces under a label selector (this node's remote
 * copies). Lists go through the cluster's rate limiter and list deadline.
 */
import type { Clock } from '../../../lib/clock.js';
import { CachedListWatch, type WatchTiming } from '../../../adapters/kubernetes/cachedListWatch.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { EndpointSlice, Service } from '../../../adapters/kubernetes/model.js';
import type { ClusterClient } from '../clusterClient.js';
import type { ReflectedKind } from './servicePlan.js';
import { operation } from '../../../adapters/kubernetes/operation.js';
import { definedOnly } from '../../../lib/defaults.js';

export type KindScope = { readonly namespace: string } | { readonly labelSelector: string };

export interface KindWatchDeps {
  readonly clock: Clock;
  readonly log: KubeLog;
  readonly watch?: WatchTiming;
}

export function kindWatch(cluster: ClusterClient, kind: ReflectedKind, scope: KindScope, description: string, deps: KindWatchDeps): CachedListWatch<Service | EndpointSlice> {
  const namespace = 'namespace' in scope ? scope.namespace : undefined;
  const labelSelector = 'labelSelector' in scope ? scope.labelSelector : undefined;
  const within = namespace !== undefined ? `/namespaces/${namespace}` : '';
  const path = kind === 'Service' ? `/api/v1${within}/services` : `/apis/discovery.k8s.io/v1${within}/endpointslices`;
  const op = operation('list', description);
  const list = async (): Promise<{ items: (Service | EndpointSlice)[]; resourceVersion: string }> => {
    const result = kind === 'Service'
      ? await cluster.call('other', op, (core, o) =>
        namespace !== undefined ? core.listNamespacedService({ namespace }, o) : core.listServiceForAllNamespaces({ labelSelector }, o))
      : await cluster.callDiscovery('other', op, (d, o) =>
        namespace !== undefined ? d.listNamespacedEndpointSlice({ namespace }, o) : d.listEndpointSliceForAllNamespaces({ labelSelector }, o));
    return { items: result.items, resourceVersion: result.metadata?.resourceVersion ?? '' };
  };
  return new CachedListWatch<Service | EndpointSlice>({
    ...deps.watch,
    kubeConfig: cluster.kubeConfig,
    path,
    ...definedOnly({ labelSelector }),
    list,
    clock: deps.clock,
    log: deps.log,
    description,
  });
}
