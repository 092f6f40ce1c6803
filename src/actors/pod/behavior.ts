/**
 * PodActor: one per pod bound to a virtual node, named by the pod's UID (a pod deleted and
 * re-created under the same name is a new actor). It assembles the pure decisions (decide.ts)
 * and the effect runner (effects.ts) into an actor behaviour.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import type { ActorBehavior } from '../../runtime/behavior.js';
import { decidePod, initialPodState, onPodStart } from './decide.js';
import { performPodEffect, type PodEffectDeps } from './effects.js';
import type { PodActorConfig } from './config.js';
import type { NodeReadiness, PodEffect, PodMsg, PodState } from './protocol.js';

export interface PodActorDeps extends PodEffectDeps {
  readonly config: PodActorConfig;
  /** The host pod as the watch cache has it now: every incarnation starts from the truth. */
  readonly readHostPod: () => Pod | undefined;
  /** The virtual node's readiness now. */
  readonly nodeReadiness: () => NodeReadiness;
}

export interface PodIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export function podActor(deps: PodActorDeps, identity: PodIdentity): ActorBehavior<PodState, PodMsg, PodEffect> {
  return {
    kind: 'pod',
    initialState: () => {
      const host = deps.readHostPod();
      // A cached pod with another UID is a namesake, not this actor's pod.
      return initialPodState(host?.metadata?.uid === identity.uid ? host : undefined, identity, deps.nodeReadiness());
    },
    onStart: (state, now) => onPodStart(deps.config, state, now),
    decide: (state, msg, now) => decidePod(deps.config, state, msg, now),
    perform: (effect, ctx) => performPodEffect(deps, identity, effect, ctx),
    summarize: (state) => ({
      namespace: state.namespace,
      name: state.name,
      stage: state.stage,
      phase: state.provider?.phase ?? null,
      ready: state.provider?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && state.node.ready,
      nodeReady: state.node.ready,
      createAttempts: state.createAttempts,
      nextAttemptAt: state.nextAttemptAt === null ? null : new Date(state.nextAttemptAt).toISOString(),
      lastError: state.createError?.message ?? null,
    }),
  };
}
