import type { Lease } from '../../adapters/kubernetes/model.js';

/**
 * The lease actor's vocabulary. One lease actor per virtual node keeps the node's heartbeat
 * Lease renewed; it is its own actor so a renewal never waits behind pod or status work.
 */

export type LeaseMsg =
  /** A renewal is due (self-scheduled: every renewIntervalMs, sooner after a failure). */
  | { readonly type: 'lease.tick' }
  /** The Lease as stored after a successful renewal. */
  | { readonly type: 'lease.renewed'; readonly lease: Lease }
  | { readonly type: 'lease.renew-failed'; readonly error: string }
  /** The Node's uid, from whoever assembles the node: the Lease gets an ownerReference to it. */
  | { readonly type: 'lease.node-registered'; readonly uid: string }
  /** Stop renewing for good (SIGTERM: the node lifecycle controller takes it from there). */
  | { readonly type: 'lease.stop' };

export type LeaseEffect =
  /**
   * Write the Lease with `renewTime = renewAt`, starting from `known` (the last stored Lease, for
   * its resourceVersion): update; on conflict re-read and update; if absent, create.
   */
  | { readonly type: 'renew'; readonly renewAt: number; readonly known: Lease | undefined; readonly nodeUid: string | undefined }
  | { readonly type: 'schedule'; readonly ms: number; readonly msg: LeaseMsg };

export interface LeaseState {
  readonly phase: 'running' | 'stopped';
  readonly nodeUid: string | undefined;
  /** The Lease as last stored; its resourceVersion is what the next update sends. */
  readonly lease: Lease | undefined;
  readonly inFlight: boolean;
  /** When the renewal now pending or in flight was due; lag is measured from here. */
  readonly dueAt: number;
  /** Consecutive failed renewals, for the backoff. */
  readonly failures: number;
  readonly renewals: number;
  readonly lastRenewAt: number | undefined;
  /** Time of the last successful renewal minus the time it was due. */
  readonly lastLagMs: number | undefined;
  readonly maxLagMs: number;
  readonly lastError: string | undefined;
}
