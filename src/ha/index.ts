/**
 * High availability: one coordination.k8s.io Lease lock per virtual node (`tether-node-<name>` in
 * Tether's own namespace; not the node heartbeat lease in kube-node-lease). Every replica runs one
 * lock actor per configured node under `tether/ha`; the replica holding a node's lock drives that
 * node, the others watch the lock and take it once it has gone unrenewed for the lock's duration.
 *
 * - settings.ts: the options, their defaults and timing rules, the lock's name, the restart policy.
 * - lockDecisions.ts: the pure parts (observe, isExpired, decideStep, acquireDelayMs, fairShare, lockLease).
 * - lockProtocol.ts, lockDecide.ts: the lock actor's messages, effects, state, and its pure decide.
 * - lockEffects.ts: its effects: the calls, each with a deadline, and the hold, lost by a timer at
 *   the renew deadline (never by a message) or with the incarnation that took it.
 * - lockActor.ts: the behaviour; lockGroup.ts: what the locks of one replica share for spreading.
 * - membership.ts, membershipActor.ts: each replica's membership Lease (`tether-replica-<identity>`)
 *   and the listing of its peers', so nodes spread over replicas and are given back one at a time.
 * - nodeLocks.ts: `NodeLocks`, the lifecycle the agent starts and stops.
 *
 * The agent (src/app/tetherAgent.ts) wires it: a node's subtree runs from `onAcquired` to `onLost`.
 */
export { electionSettings, lockName, lockRestartPolicy, LOCK_PREFIX, type ElectionSettings, type LeaderElectionOptions } from './settings.js';
export { NodeLocks, HA_SUPERVISOR, lockActorName, type LockedNode } from './nodeLocks.js';
