/**
 * PodWatch and NodeWatch over {@link CachedListWatch}: the selectors, the list functions (rate
 * limited at 'other') and the mapping to the event shapes the actors consume.
 */
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { map } from 'rxjs';
import type { Clock } from '../../lib/clock.js';
import type { EngineEvent, ListResult, WatchTiming } from './cachedListWatch.js';
import { CachedListWatch } from './cachedListWatch.js';
import { call, type Caller } from './call.js';
import type { KubeLog } from './log.js';
import type { Node, Pod } from './model.js';
import type { PodApi } from './podApi.js';
import type { NodeWatch, NodeWatchEvent, PodWatch, PodWatchEvent, WatchLifecycle } from './watch.js';
import { withoutManagedFields } from './withoutManagedFields.js';
import { operation } from './operation.js';

export interface WatchDeps {
  readonly kubeConfig: KubeConfig;
  readonly clock: Clock;
  readonly log: KubeLog;
  readonly timing?: WatchTiming;
}

/** Watches the pods bound to `nodeName`. */
export function createPodWatch(deps: WatchDeps & { readonly pods: PodApi; readonly nodeName: string }): PodWatch {
  const fieldSelector = `spec.nodeName=${deps.nodeName}`;
  const engine = new CachedListWatch<Pod>({
    ...deps.timing,
    kubeConfig: deps.kubeConfig,
    path: '/api/v1/pods',
    fieldSelector,
    list: () => deps.pods.listPods({ fieldSelector }),
    clock: deps.clock,
    log: deps.log,
    description: `pods on node ${deps.nodeName}`,
    transform: withoutManagedFields,
  });
  const events: Observable<PodWatchEvent> = engine.events.pipe(
    map((e: EngineEvent<Pod>): PodWatchEvent => ('object' in e ? { type: e.type, pod: e.object } : e)),
  );
  return {
    events,
    ...lifecycleOf(engine),
    list: () => engine.list(),
    get: (namespace, name) => engine.get(`${namespace}/${name}`),
  };
}

/** Watches the single Node named `nodeName`. */
export function createNodeWatch(
  deps: WatchDeps & { readonly core: CoreV1Api; readonly limiter: Caller; readonly nodeName: string },
): NodeWatch {
  const fieldSelector = `metadata.name=${deps.nodeName}`;
  const list = async (): Promise<ListResult<Node>> => {
    const result = await call(deps.limiter, 'other', operation('list', `node ${deps.nodeName}`), (o) =>
      deps.core.listNode({ fieldSelector }, o),
    { deadline: 'list' });
    return { items: result.items, resourceVersion: result.metadata?.resourceVersion ?? '' };
  };
  const engine = new CachedListWatch<Node>({
    ...deps.timing,
    kubeConfig: deps.kubeConfig,
    path: '/api/v1/nodes',
    fieldSelector,
    list,
    clock: deps.clock,
    log: deps.log,
    description: `node ${deps.nodeName}`,
  });
  const events: Observable<NodeWatchEvent> = engine.events.pipe(
    map((e: EngineEvent<Node>): NodeWatchEvent => ('object' in e ? { type: e.type, node: e.object } : e)),
  );
  return {
    events,
    ...lifecycleOf(engine),
    get: () => engine.get(deps.nodeName),
  };
}

/** The watch's lifecycle, the engine's own: ready at its first full list, stopped for good by `stop()`. */
function lifecycleOf<T extends Node | Pod>(engine: CachedListWatch<T>): WatchLifecycle {
  return {
    ready: engine.ready,
    done: engine.done,
    start: () => engine.start(),
    stop: (options) => engine.stop(options),
    hasSynced: () => engine.hasSynced(),
  };
}
