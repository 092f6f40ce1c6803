import type { ActorBehavior } from '../../runtime/behavior.js';
import type { NodeConfig } from './config.js';
import { decideNode, initialNodeState, startNode } from './decide.js';
import { nodeEffects, type NodeActorDeps } from './effects.js';
import type { NodeEffect, NodeMsg, NodeState } from './protocol.js';

/**
 * The NodeActor: one per virtual node. Registers the Node, pings the provider, keeps the Ready
 * condition and heartbeat current, re-creates the Node if someone deletes it, and deletes it on
 * shutdown if asked. See decide.ts for the rules and effects.ts for the outside world.
 */
export type NodeBehavior = ActorBehavior<NodeState, NodeMsg, NodeEffect>;

export function nodeActor(deps: NodeActorDeps, config: NodeConfig): NodeBehavior {
  const settings = { config, providerName: deps.provider.name };
  const perform = nodeEffects(deps, settings);
  return {
    kind: 'node',
    initialState: initialNodeState,
    onStart: (state, now) => startNode(settings, state, now),
    decide: (state, msg, now) => decideNode(settings, state, msg, now),
    perform,
    summarize: (state) => ({
      node: config.nodeName,
      phase: state.phase,
      registered: state.registered,
      ready: state.readiness?.ready ?? null,
      reason: state.readiness?.reason ?? 'Unknown',
      lastPingAt: state.lastPing ? new Date(state.lastPing.at).toISOString() : null,
      lastPing: state.lastPing ? (state.lastPing.ok ? 'ok' : (state.lastPing.error ?? 'failed')) : null,
      consecutiveFailures: state.consecutiveFailures,
      statusWriteFailures: state.status.failures,
    }),
  };
}
