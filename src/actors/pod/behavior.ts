/**
 * PodActor: one per pod bound to a virtual node, named by the pod's UID (a pod deleted and
 * re-created under the same name is a new actor). It assembles the pure decisions (decide.ts)
 * and the effect runner (effects.ts) into an actor behaviour.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import type { Logger } from '../../adapters/logger.js';
import type { PodIdentity } from '../../lib/podIdentity.js';
import type { ActorBehavior, EffectContext, StateSummary } from '../../runtime/behavior.js';
import { decidePod, initialPodState, onPodStart } from './decide.js';
import { performPodEffect, type PodEffectDeps } from './effects.js';
import type { PodActorConfig } from './config.js';
import type { NodeReadiness, PodEffect, PodMsg, PodState } from './protocol.js';
import type { Next } from './transitions.js';

export interface PodActorDeps extends PodEffectDeps {
  readonly config: PodActorConfig;
  /** The host pod as the watch cache has it now: every incarnation starts from the truth. */
  readonly readHostPod: (namespace: string, name: string) => Pod | undefined;
  /** The virtual node's readiness now. */
  readonly nodeReadiness: () => NodeReadiness;
}

/** `deps` may be shared by every pod of a node; `logger` is this pod's own (deps.logger by default). */
export function podActor(deps: PodActorDeps, identity: PodIdentity, logger: Logger = deps.logger): ActorBehavior<PodState, PodMsg, PodEffect> {
  return new PodBehavior(deps, identity, logger);
}

/**
 * A class rather than an object of closures: one pod actor each, so the behaviour is three fields
 * and shared prototype methods (the deps are one object per node).
 */
class PodBehavior implements ActorBehavior<PodState, PodMsg, PodEffect> {
  readonly kind = 'pod';

  constructor(
    private readonly deps: PodActorDeps,
    private readonly identity: PodIdentity,
    private readonly logger: Logger,
  ) {}

  initialState(): PodState {
    const host = this.deps.readHostPod(this.identity.namespace, this.identity.name);
    // A cached pod with another UID is a namesake, not this actor's pod.
    return initialPodState(host?.metadata?.uid === this.identity.uid ? host : undefined, this.identity, this.deps.nodeReadiness(), this.deps.config.containerDuties.inPlace);
  }

  onStart(state: PodState, now: number): Next {
    return onPodStart(this.deps.config, state, now);
  }

  decide(state: PodState, msg: PodMsg, now: number): Next {
    return decidePod(this.deps.config, state, msg, now);
  }

  perform(effect: PodEffect, ctx: EffectContext<PodMsg>): Promise<void> | void {
    return performPodEffect(this.deps, this.identity, effect, ctx, this.logger);
  }

  summarize(state: PodState): StateSummary {
    const create = state.stage === 'creating' || state.stage === 'backoff' ? state.create : undefined;
    const due = create?.dueAt ?? null;
    return {
      namespace: state.namespace,
      name: state.name,
      stage: state.stage,
      phase: state.provider?.phase ?? null,
      ready: state.provider?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && state.node.ready,
      nodeReady: state.node.ready,
      createAttempts: create?.attempt ?? 0,
      nextAttemptAt: due === null ? null : new Date(due).toISOString(),
      lastError: state.createError?.message ?? null,
    };
  }
}
