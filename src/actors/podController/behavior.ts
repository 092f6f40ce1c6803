/**
 * PodController: one per virtual node. Routes host watch events and provider notifications to pod
 * actors, spawning each on first sight; every message goes straight to the pod's own actor (one
 * map lookup), never through a parent.
 */
import type { ActorBehavior } from '../../runtime/behavior.js';
import type { NodeReadiness } from '../pod/protocol.js';
import { decideController, startController } from './decide.js';
import { performControllerEffect, type ControllerEffectDeps } from './effects.js';
import { PodIndex } from './podIndex.js';
import type { ControllerConfig } from './config.js';
import type { ControllerEffect, ControllerMsg, ControllerState } from './protocol.js';

export interface PodControllerDeps extends ControllerEffectDeps {
  readonly config: ControllerConfig;
  readonly nodeReadiness: () => NodeReadiness;
}

export function podController(deps: PodControllerDeps): ActorBehavior<ControllerState, ControllerMsg, ControllerEffect> {
  return {
    kind: 'pod-controller',
    initialState: () => ({ index: new PodIndex(), readiness: deps.nodeReadiness(), synced: false, sweeps: 0, orphansDeleted: 0 }),
    onStart: () => startController(deps.config, deps.podWatch.list(), deps.nodeReadiness(), deps.podWatch.hasSynced()),
    decide: (state, msg) => decideController(deps.config, state, msg),
    perform: (effect, ctx) => performControllerEffect(deps, effect, ctx),
    summarize: (state) => ({
      pods: state.index.size,
      nodeReady: state.readiness.ready,
      synced: state.synced,
      sweeps: state.sweeps,
      orphansDeleted: state.orphansDeleted,
    }),
  };
}
