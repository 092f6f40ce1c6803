/**
 * The LeaseActor: one per virtual node, renewing its heartbeat Lease in its own mailbox so a
 * renewal never waits behind pod or status work.
 *
 * - protocol.ts: messages (`lease.*`), effects and state.
 * - decide.ts: the pure cadence (renew every renewIntervalMs, back off after failures) and lag.
 * - leaseObject.ts: the Lease Tether writes, and parsing `renewTime` (a Date or a string).
 * - renewal.ts: the `renew` effect, started by a clock timer (never behind a mailbox), with its deadline.
 * - renewLease.ts: one renewal's calls (update; on conflict re-read; if absent create).
 * - effects.ts: the effect runner.
 * - behavior.ts: `leaseActor(deps, config)`; config.ts: defaults and `validateLeaseConfig`.
 */
export { leaseActor, type LeaseBehavior } from './behavior.js';
export { withLeaseDefaults, validateLeaseConfig, type LeaseConfig, type LeaseConfigInput } from './config.js';
export type { LeaseActorDeps } from './effects.js';
export type { LeaseMsg } from './protocol.js';
