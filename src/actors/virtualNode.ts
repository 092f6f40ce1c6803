/**
 * One virtual node's subtree, wired together:
 *
 *   node-<name>            supervisor (nodeRestartPolicy: one-for-one, escalates if the subtree keeps failing)
 *   ├── lease              LeaseActor: the heartbeat, alone in its mailbox so it never waits
 *   ├── node               NodeActor: registration, status, pings, readiness
 *   ├── pod-controller     PodController: routes watch events and provider notifications to pods
 *   ├── pods               shard group
 *   │   └── shard-NN       supervisors (podRestartPolicy: one-for-one, a poison pod is given up alone)
 *   │       └── <pod uid>  PodActor
 *   └── reconcilers        the provider's reconcile loops, if it has any (reconcilers.ts)
 *       └── <name>         reconciler actor (src/runtime/reconcilerActor.ts)
 *
 * Watches and the provider live outside the tree (they outlast actor restarts); their events are
 * forwarded to whichever incarnation of the actor is current.
 */
import type { Clock } from '../lib/clock.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../lib/lifecycle.js';
import { errorMessage } from '../lib/errorMessage.js';
import type { EventRecorder } from '../adapters/kubernetes/eventRecorder.js';
import type { LeaseApi } from '../adapters/kubernetes/leaseApi.js';
import type { NodeApi } from '../adapters/kubernetes/nodeApi.js';
import type { PodApi } from '../adapters/kubernetes/podApi.js';
import type { NodeWatch, PodWatch } from '../adapters/kubernetes/watch.js';
import type { Logger } from '../adapters/logger.js';
import { LazyChildLogger } from '../adapters/lazyChildLogger.js';
import { inPlaceUpdatesOf, isInspectableProvider, isKubeletBackedProvider, isLifecycleHookProvider, isReconcilingProvider, supportedPodFeatures, type Provider } from '../providers/provider.js';
import { NO_IN_PLACE, type ContainerDuties } from './pod/config.js';
import { partView } from '../runtime/partView.js';
import type { ActorRef } from '../runtime/behavior.js';
import { nodeRestartPolicy, podRestartPolicy } from '../supervisors/restartPolicy.js';
import { Shards } from '../supervisors/shards.js';
import type { Supervisor } from '../supervisors/supervisor.js';
import { AdmittedPods } from './admission/admittedPods.js';
import { leaseActor } from './lease/behavior.js';
import type { LeaseMsg } from './lease/protocol.js';
import { nodeActor } from './node/behavior.js';
import { nodeObserved, type NodeMsg } from './node/protocol.js';
import { actorFailedAnnotation } from './pod/annotations.js';
import { podActor, type PodActorDeps } from './pod/behavior.js';
import { isTerminal, notReadyStatus } from './pod/podStatusView.js';
import type { NodeReadiness } from './pod/protocol.js';
import { podController } from './podController/behavior.js';
import type { ControllerMsg } from './podController/protocol.js';
import type { VirtualNodeConfig } from './virtualNodeConfig.js';
import { spawnReconcilers } from './reconcilers.js';
import { definedOnly } from '../lib/defaults.js';

export interface VirtualNodeDeps {
  readonly provider: Provider;
  readonly nodeApi: NodeApi;
  readonly leaseApi: LeaseApi;
  readonly podApi: PodApi;
  readonly events: EventRecorder;
  readonly podWatch: PodWatch;
  readonly nodeWatch: NodeWatch;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told how long provider statuses took to reach the host (seconds). */
  readonly onStatusLatency?: (seconds: number) => void;
}

/**
 * A running virtual node, with the one lifecycle (src/lib/lifecycle.ts): ready once both watches
 * have listed; done after `stop()`, or failed when its subtree was given up.
 */
export interface VirtualNode extends Lifecycle {
  readonly name: string;
  readonly path: string;
  readiness(): NodeReadiness;
  /** Read-only, for /readyz: both the pod watch and the Node watch have completed a full list. */
  watchesSynced(): boolean;
  /** Stops renewing, stops the node's actors and watches; deletes the Node if asked (asynchronously, by the node actor). */
  stop(options?: StopOptions & { readonly deleteNode?: boolean }): Promise<StopOutcome>;
}

interface Current {
  node?: ActorRef<NodeMsg>;
  lease?: ActorRef<LeaseMsg>;
  controller?: ActorRef<ControllerMsg>;
  /** The subtree's admission ledger, told each pod watch event before the controller is. */
  admission?: AdmittedPods;
}

export function startVirtualNode(root: Supervisor, config: VirtualNodeConfig, deps: VirtualNodeDeps): VirtualNode {
  const name = config.node.nodeName;
  const logger = deps.logger.child({ node: name });
  let readiness: NodeReadiness = { ready: true, reason: 'Starting', message: 'waiting for the first ping' };
  const current: Current = {};
  let deleteNodeOnStop = false;
  const life = new LifecycleControl({
    clock: deps.clock,
    release: async () => {
      current.lease?.tell({ type: 'lease.stop' });
      current.node?.tell({ type: 'node.shutdown', deleteNode: deleteNodeOnStop });
      for (const s of subscriptions) s.unsubscribe();
      await Promise.all([deps.podWatch.stop(), deps.nodeWatch.stop()]);
    },
    onReleaseFailed: (error) => logger.warn('stopping the virtual node failed', { error: errorMessage(error) }),
  });

  const subtree = root.spawnSupervisor(
    `node-${name}`,
    {
    kind: 'virtual-node',
    policy: config.nodePolicy ?? nodeRestartPolicy,
    summarize: () => ({ node: name, ready: readiness.ready, reason: readiness.reason, provider: deps.provider.name }),
    // The provider's own long-lived parts (the Kubernetes provider's Service reflectors), read-only.
    views: (sup) => (isInspectableProvider(deps.provider) ? deps.provider.inspect().map((part) => partView(sup.path, part)) : []),
    onStart: (sup) => {
      current.lease = sup.spawn('lease', leaseActor({ leaseApi: deps.leaseApi, logger }, config.lease));
      const shards = new Shards(sup, 'pods', config.shards, config.podPolicy ?? podRestartPolicy);
      // One deps object for every pod of the node (a per-pod copy and its closures cost ~0.3 KiB a pod).
      // The node's admitted pods outlive pod actor restarts (a restart of the node's subtree starts afresh, from the cache).
      const admission = new AdmittedPods({
        pods: () => deps.podWatch.list(),
        pod: (namespace, podName) => deps.podWatch.get(namespace, podName),
        node: () => deps.nodeWatch.get(),
        policy: { daemonSets: config.admission.daemonSets, features: new Set(supportedPodFeatures(deps.provider)) },
      });
      current.admission = admission;
      const podDeps: PodActorDeps = {
        // Who runs hooks and says the container Events is the provider's nature, not a setting.
        config: { ...config.pod, containerDuties: containerDutiesOf(deps.provider) },
        admission,
        provider: deps.provider,
        pods: deps.podApi,
        events: deps.events,
        clock: deps.clock,
        logger,
        readHostPod: (namespace, podName) => deps.podWatch.get(namespace, podName),
        nodeReadiness: () => readiness,
        ...definedOnly({ onStatusLatency: deps.onStatusLatency }),
      };
      current.controller = sup.spawn(
        'pod-controller',
        podController({
          config: config.controller,
          shards,
          provider: deps.provider,
          podWatch: deps.podWatch,
          logger,
          nodeReadiness: () => readiness,
          spawnPod: (key) =>
            shards.spawn(
              key.uid,
              podActor(
                podDeps,
                key,
                // Made on first use: most pods never log.
                new LazyChildLogger(logger, () => ({ pod: `${key.namespace}/${key.name}`, path: `${shards.shardFor(key.uid).path}/${key.uid}` })),
              ),
              { onGiveUp: (reason, error) => reportPoisonPod(deps, key, reason, error) },
            ),
        }),
      );
      current.node = sup.spawn(
        'node',
        nodeActor(
          {
            nodeApi: deps.nodeApi,
            provider: deps.provider,
            events: deps.events,
            logger,
            onReadinessChange: (r) => {
              readiness = r;
              current.controller?.tell({ type: 'pods.node-readiness', readiness: r });
            },
            onRegistered: ({ uid }) => current.lease?.tell({ type: 'lease.node-registered', uid }),
          },
          config.node,
        ),
      );
      if (isReconcilingProvider(deps.provider)) spawnReconcilers(sup, deps.provider.reconcilers());
    },
    },
    {
      onGiveUp: (reason, error) => {
        markGivenUp(deps, name, reason, error);
        life.fail(error);
      },
    },
  );

  const subscriptions = [
    deps.podWatch.events.subscribe((event) => {
      current.admission?.observe(event);
      current.controller?.tell({ type: 'pods.watch', event });
    }),
    deps.nodeWatch.events.subscribe((event) => {
      const msg = nodeObserved(event);
      if (msg) current.node?.tell(msg);
    }),
  ];
  deps.provider.notifyPods((notification) => current.controller?.tell({ type: 'pods.notification', notification }));
  deps.podWatch.start();
  deps.nodeWatch.start();
  Promise.all([deps.podWatch.ready, deps.nodeWatch.ready]).then(() => life.markReady(), (error: unknown) => life.fail(error));

  return {
    name,
    path: subtree.path,
    ready: life.ready,
    done: life.done,
    readiness: () => readiness,
    watchesSynced: () => deps.podWatch.hasSynced() && deps.nodeWatch.hasSynced(),
    stop: (options = {}) => {
      if (!life.stopRequested) deleteNodeOnStop = options.deleteNode ?? false;
      return life.stop(options);
    },
  };
}

/**
 * The node's subtree kept failing and was given up: its lease stops, and the Node says why right
 * away (rather than waiting for the node lifecycle controller to notice the silence). Its pod
 * actors are gone, so the pods are marked NotReady here: nothing will confirm their status now.
 */
export function markGivenUp(deps: VirtualNodeDeps, name: string, reason: string, error: unknown): void {
  const message = `Tether stopped this virtual node after repeated failures (${reason}); last error: ${error instanceof Error ? error.message : String(error)}`;
  const now = new Date(deps.clock.now());
  deps.logger.error('virtual node given up', { node: name, reason });
  const pods = deps.podWatch.list();
  void deps.podWatch.stop();
  void deps.nodeWatch.stop();
  deps.nodeApi
    .patchNodeStatus(name, { conditions: [{ type: 'Ready', status: 'False', reason: 'TetherGaveUp', message, lastHeartbeatTime: now, lastTransitionTime: now }] })
    .catch((err: unknown) => deps.logger.warn('could not mark a given-up node NotReady', { node: name, error: String(err) }));
  deps.events.record({ kind: 'Node', apiVersion: 'v1', name }, 'Warning', 'TetherGaveUp', message, 'Supervise');
  const readiness: NodeReadiness = { ready: false, reason: 'TetherGaveUp', message };
  for (const pod of pods) {
    const { namespace, name: podName, uid } = pod.metadata ?? {};
    if (!namespace || !podName || !uid || isTerminal(pod.status)) continue;
    // Rate limited, and keyed per pod: a stopped actor's write still queued is superseded by this one.
    deps.podApi
      .patchPodStatus(namespace, podName, uid, notReadyStatus(pod.status, readiness, name, now))
      .catch((err: unknown) => deps.logger.warn('could not mark a pod of a given-up node NotReady', { pod: `${namespace}/${podName}`, error: String(err) }));
  }
}

/** A pod whose actor kept crashing: say so on the pod, where `kubectl describe` shows it. */
function reportPoisonPod(deps: VirtualNodeDeps, key: { namespace: string; name: string; uid: string }, reason: string, error: unknown): void {
  const message = `Tether gave up on this pod after its actor kept crashing (${reason}); last error: ${error instanceof Error ? error.message : String(error)}`;
  deps.events.record({ kind: 'Pod', apiVersion: 'v1', namespace: key.namespace, name: key.name, uid: key.uid }, 'Warning', 'TetherGaveUp', message, 'Supervise');
  deps.podApi.patchPodAnnotations(key.namespace, key.name, key.uid, { [actorFailedAnnotation]: message }).catch((err: unknown) => {
    deps.logger.warn('could not annotate a pod Tether gave up on', { pod: `${key.namespace}/${key.name}`, error: String(err) });
  });
}

/** Who runs hooks, says the container Events and applies resizes and ephemeral containers: the provider's nature, not a setting. */
function containerDutiesOf(provider: Provider): ContainerDuties {
  const inPlace = inPlaceUpdatesOf(provider);
  return {
    by: isKubeletBackedProvider(provider) ? 'provider' : 'tether',
    hooks: isLifecycleHookProvider(provider),
    inPlace: inPlace.length === 0 ? NO_IN_PLACE : { resize: inPlace.includes('resize'), ephemeralContainers: inPlace.includes('ephemeralContainers') },
  };
}
