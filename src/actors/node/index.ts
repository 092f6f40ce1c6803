/**
 * The NodeActor: one per virtual node, the owner of its Node object.
 *
 * - protocol.ts: messages (`node.*`), effects and state; `nodeObserved` maps NodeWatch events.
 * - decide.ts: the pure rules (readiness thresholds, status cadence, registration, re-creation).
 * - readiness.ts, writeLoop.ts, nodeObject.ts: the small pure pieces decide.ts is made of.
 * - effects.ts: NodeApi, provider and Event calls; expected failures come back as messages.
 * - behavior.ts: `nodeActor(deps, config)`, the ActorBehavior a supervisor spawns.
 * - config.ts: defaults and `validateNodeConfig`.
 *
 * Wiring (the assembler's job): feed NodeWatch events through `nodeObserved` to the actor, forward
 * `onRegistered`'s uid to the lease actor as `lease.node-registered`, send `node.shutdown` on exit.
 */
export { nodeActor, type NodeBehavior } from './behavior.js';
export { withNodeDefaults, validateNodeConfig, defaultTaints, DEFAULT_KUBELET_VERSION, type NodeConfig, type NodeConfigInput } from './config.js';
export type { NodeActorDeps } from './effects.js';
export { nodeObserved, type NodeMsg, type Readiness } from './protocol.js';
