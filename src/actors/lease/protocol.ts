import type { Lease } from '../../adapters/kubernetes/model.js';

/**
 * The lease actor's vocabulary. One lease actor per virtual node keeps the node's heartbeat
 * Lease renewed. Its decisions (when the next renewal is due, how long to back off) are pure;
 * each renewal is an effect that starts from its own clock timer (renewal.ts), outside every
 * mailbox, and reports its outcome back as a message.
 */

export type LeaseMsg =
  /** The Lease as stored after a successful renewal, and when it was stored (the renewal's clock). */
  | { readonly type: 'lease.renewed'; readonly lease: Lease; readonly at: number }
  /**
   * A renewal failed (an API error, or its deadline passed), at `at`. `jitter` is the random
   * draw in [0, 1) for the retry's backoff, made by the effect so that the decision stays pure.
   */
  | { readonly type: 'lease.renew-failed'; readonly error: string; readonly at: number; readonly jitter: number }
  /** The Node's uid, from whoever assembles the node: the Lease gets an ownerReference to it. */
  | { readonly type: 'lease.node-registered'; readonly uid: string }
  /** Stop renewing for good (SIGTERM: the node lifecycle controller takes it from there). */
  | { readonly type: 'lease.stop' };

export type LeaseEffect =
  /**
   * Renewal number `attempt` of this incarnation, started at `startAt` (at once if that has
   * passed) from a clock timer, bounded by `renewTimeoutMs`. The same attempt again (a new
   * owner uid) replaces it while it still waits, and changes nothing once it has started.
   */
  | {
      readonly type: 'renew';
      readonly attempt: number;
      readonly startAt: number;
      readonly nodeUid: string | undefined;
      /** The Lease as last stored (its resourceVersion); undefined: read it first. */
      readonly known: Lease | undefined;
    }
  /** No renewal starts after this; one in flight is abandoned and reports nothing. */
  | { readonly type: 'stop-renewal' };

export interface LeaseState {
  readonly phase: 'running' | 'stopped';
  readonly nodeUid: string | undefined;
  /** The Lease as last stored. */
  readonly lease: Lease | undefined;
  /** The renewal outstanding (waiting for its time or in flight): one at a time. */
  readonly attempt: number;
  /** When the outstanding renewal starts (the cadence, or the backoff after a failure). */
  readonly nextAt: number | undefined;
  /** When the heartbeat is due: the lag of a renewal is measured against it. */
  readonly dueAt: number;
  /** Consecutive failed renewals. */
  readonly failures: number;
  readonly renewals: number;
  readonly lastRenewAt: number | undefined;
  /** Time of the last successful renewal minus the time it was due. */
  readonly lastLagMs: number | undefined;
  readonly maxLagMs: number;
  readonly lastError: string | undefined;
}
