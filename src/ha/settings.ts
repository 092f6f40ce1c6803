/**
 * Leader election's settings: the options (the config file's `leaderElection:` section), their
 * defaults and timing rules, the lock's name, and the restart policy of the lock actors.
 */
import { backoffPolicy } from '../lib/backoff.js';
import { definedOnly } from '../lib/defaults.js';
import type { RestartPolicy } from '../supervisors/restartPolicy.js';

export interface LeaderElectionOptions {
  /** Where the per-node locks live: Tether's own namespace. */
  readonly namespace: string;
  /** This replica, unique among replicas (the pod name in a Deployment). */
  readonly identity: string;
  /** How long an unrenewed lock stays someone else's (default 15 s). */
  readonly leaseDurationMs?: number;
  /** A holder that has not renewed for this long gives the node up (default 10 s; < duration). */
  readonly renewDeadlineMs?: number;
  /** How often a holder renews and a candidate looks (default 2 s). */
  readonly retryPeriodMs?: number;
}

export type ElectionSettings = Required<LeaderElectionOptions>;

export const LOCK_PREFIX = 'tether-node-';

export function lockName(nodeName: string): string {
  return `${LOCK_PREFIX}${nodeName}`;
}

/** Defaults, then the problems of the timing (empty when usable). */
export function electionSettings(options: LeaderElectionOptions): { settings: ElectionSettings; problems: string[] } {
  const settings: ElectionSettings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...definedOnly(options), namespace: options.namespace, identity: options.identity };
  const problems: string[] = [];
  if (settings.namespace === '') problems.push('leaderElection.namespace: must not be empty');
  if (settings.identity === '') problems.push('leaderElection.identity: must not be empty');
  if (!(settings.renewDeadlineMs < settings.leaseDurationMs)) problems.push('leaderElection.renewDeadlineMs: must be below leaseDurationMs');
  if (!(settings.retryPeriodMs < settings.renewDeadlineMs)) problems.push('leaderElection.retryPeriodMs: must be below renewDeadlineMs');
  if (settings.retryPeriodMs <= 0) problems.push('leaderElection.retryPeriodMs: must be positive');
  return { settings, problems };
}

/**
 * The lock actors (`tether/ha/lock-<node>`): a crash restarts only that lock's actor, soon (its
 * own record is still fresh then, so it takes the lock back before anyone else may); one that
 * keeps crashing is given up alone and its node left to the other replicas. No budget escalates:
 * a broken lock never stops the nodes this replica drives.
 */
export const lockRestartPolicy: RestartPolicy = {
  strategy: 'one-for-one',
  restart: 'transient',
  childIntensity: { maxRestarts: 5, withinMs: 60_000 },
  backoff: { ...backoffPolicy(500, 10_000), resetAfterMs: 60_000 },
};
