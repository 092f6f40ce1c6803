import type { Lease } from '../../adapters/kubernetes/model.js';

/**
 * The lease actor's vocabulary. One lease actor per virtual node keeps the node's heartbeat
 * Lease renewed. The renewals themselves run from the renewer's own timer (renewer.ts), outside
 * every mailbox; the actor owns the state and hears of each outcome.
 */

export type LeaseMsg =
  /** The Lease as stored after a successful renewal, when (renewer's clock) and how late against its due time. */
  | { readonly type: 'lease.renewed'; readonly lease: Lease; readonly at: number; readonly lagMs: number }
  | { readonly type: 'lease.renew-failed'; readonly error: string; readonly failures: number }
  /** The renewer met an error that is not an API failure: a bug; the actor crashes and restarts it. */
  | { readonly type: 'lease.renewer-crashed'; readonly error: unknown }
  /** The Node's uid, from whoever assembles the node: the Lease gets an ownerReference to it. */
  | { readonly type: 'lease.node-registered'; readonly uid: string }
  /** Stop renewing for good (SIGTERM: the node lifecycle controller takes it from there). */
  | { readonly type: 'lease.stop' };

export type LeaseEffect =
  /** Start this incarnation's renewer (renewer.ts): it renews from its own timer and reports back. */
  | { readonly type: 'start-renewer'; readonly nodeUid: string | undefined }
  | { readonly type: 'set-owner'; readonly uid: string }
  | { readonly type: 'stop-renewer' }
  | { readonly type: 'crash'; readonly error: unknown };

export interface LeaseState {
  readonly phase: 'running' | 'stopped';
  readonly nodeUid: string | undefined;
  /** The Lease as last stored (what the renewer last reported). */
  readonly lease: Lease | undefined;
  /** Consecutive failed renewals. */
  readonly failures: number;
  readonly renewals: number;
  readonly lastRenewAt: number | undefined;
  /** Time of the last successful renewal minus the time it was due, on the renewer's clock. */
  readonly lastLagMs: number | undefined;
  readonly maxLagMs: number;
  readonly lastError: string | undefined;
}
