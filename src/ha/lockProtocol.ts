/**
 * The vocabulary of a node lock's actor (`tether/ha/lock-<node>`): one per configured node, in
 * every replica. It looks at the lock every retry period and takes, renews or loses it; the
 * replica drives the node while, and only while, the incarnation that took the lock holds it.
 */
import type { Lease } from '../adapters/kubernetes/model.js';
import type { Schedule } from '../runtime/effectOutcome.js';
import type { Observation } from './lockDecisions.js';

/** The replica's spreading inputs at the moment of a look: locks it holds or is taking, its fair share, and whether to give this node back. */
export interface Spread {
  readonly held: number;
  readonly share: number;
  readonly giveBack: boolean;
}

/** `release`: the lock given back (empty holder) while running, for a peer below its share. */
export type WriteKind = 'create' | 'take' | 'renew' | 'release';

export type LockMsg =
  /** Time to look at the lock. */
  | { readonly type: 'lock.look' }
  /** The look's read: the lock as stored (undefined: there is none), and the spread then. */
  | { readonly type: 'lock.read'; readonly seq: number; readonly lease: Lease | undefined; readonly spread: Spread }
  | { readonly type: 'lock.written'; readonly seq: number; readonly lease: Lease }
  /** Another replica wrote the lock first (a conflict, or it exists already). */
  | { readonly type: 'lock.outrun'; readonly seq: number }
  /** A call failed: an API error, or the look's deadline passed. */
  | { readonly type: 'lock.call-failed'; readonly seq: number; readonly error: string }
  /** Hold `gen` was lost by its timer (the node is already given up when this is read). */
  | { readonly type: 'lock.deadline-passed'; readonly gen: number }
  /** Stop looking; a held lock is given up, and released if `release` (else it expires). */
  | { readonly type: 'lock.stop'; readonly release: boolean };

export type LockEffect =
  | { readonly type: 'read'; readonly seq: number; readonly deadlineAt: number }
  | { readonly type: 'write'; readonly seq: number; readonly kind: WriteKind; readonly lease: Lease; readonly deadlineAt: number }
  /** Look again (`lock.look` in `ms`: a self-message, so looks may wait in the mailbox; the deadline never does). */
  | Schedule<LockMsg>
  /**
   * The lock is held (hold `gen`): drive the node, and lose it at `deadlineAt` by a clock timer,
   * whatever the calls in flight are doing, unless `renewed` moves the deadline first. The hold
   * ends with the incarnation too (a crash gives the node up at once).
   */
  | { readonly type: 'hold'; readonly gen: number; readonly deadlineAt: number }
  | { readonly type: 'renewed'; readonly gen: number; readonly deadlineAt: number }
  | { readonly type: 'lose'; readonly gen: number; readonly why: string }
  /** This replica gives a node back now (the next one may go a lock duration later). */
  | { readonly type: 'gave-back'; readonly at: number }
  /** What the replica's other locks read for spreading: taking this lock now, and who holds it. */
  | { readonly type: 'share'; readonly taking: boolean; readonly holder: string | undefined }
  /** Stopped: give the lock back (when `release` is a Lease), then say so. */
  | { readonly type: 'stopped'; readonly release: Lease | undefined };

/** The look in flight: its calls are answered only while it is current. */
export interface Look {
  readonly seq: number;
  /** The look's calls together end by then (renewDeadlineMs after it began). */
  readonly deadlineAt: number;
  /** The write it decided on, and when (the renewal's time). */
  readonly writing: { readonly kind: WriteKind; readonly at: number } | undefined;
}

export interface LockState {
  readonly phase: 'running' | 'stopped';
  readonly observation: Observation | undefined;
  readonly freeSince: number | undefined;
  /** The lock as last read or written. */
  readonly stored: Lease | undefined;
  /** Held since `gen` was taken; `lastRenewAt` is when the last successful write was decided. */
  readonly hold: { readonly gen: number; readonly lastRenewAt: number; readonly deadlineAt: number } | undefined;
  readonly look: Look | undefined;
  /** Counters for `seq` and `gen`. */
  readonly looks: number;
  readonly holds: number;
  /** Who holds the lock, as last seen (undefined: free). */
  readonly holderSeen: string | undefined;
  readonly renewals: number;
  /** Times this lock was given back to a peer below its share. */
  readonly givenBack: number;
  /** Failed calls since the last answered read. */
  readonly failures: number;
  readonly lastError: string | undefined;
}
