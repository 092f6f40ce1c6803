/**
 * The kubelet's back-off between restarts of a container that exited (flowcontrol.Backoff as
 * kuberuntime's doBackOff uses it), as a value and two pure decisions. The first exit restarts at
 * once and arms 10 s; an exit within the back-off since the last restart waits it out
 * (CrashLoopBackOff), and the restart that follows doubles it, up to 5 min. A container that ran
 * longer than twice the cap (10 min) since its last restart starts again from 10 s. The same
 * shape paces image pulls (ImagePullBackOff).
 */
import type { BackoffPolicy } from '../../lib/backoff.js';

/** kubelet.go's backOffPeriod and MaxContainerBackOff, without jitter (the kubelet uses none). */
export const CONTAINER_BACKOFF: BackoffPolicy = { minMs: 10_000, maxMs: 300_000, factor: 2, jitter: 0 };

export interface BackoffEntry {
  readonly delayMs: number;
  /** When the entry last moved (the last restart). */
  readonly lastUpdate: number;
}

export type RestartDecision =
  | { readonly type: 'start'; readonly entry: BackoffEntry }
  | { readonly type: 'wait'; readonly delayMs: number; readonly until: number };

function expired(policy: BackoffPolicy, eventTime: number, entry: BackoffEntry): boolean {
  return eventTime - entry.lastUpdate > policy.maxMs * 2;
}

/** The entry after a restart at `now` (flowcontrol's Next). */
export function nextEntry(policy: BackoffPolicy, entry: BackoffEntry | undefined, eventTime: number, now: number): BackoffEntry {
  if (entry === undefined || expired(policy, eventTime, entry)) return { delayMs: policy.minMs, lastUpdate: now };
  return { delayMs: Math.min(entry.delayMs * policy.factor, policy.maxMs), lastUpdate: now };
}

/**
 * Whether a container that finished at `finishedAt` may start again at `now`: `start` with the
 * entry to keep, or `wait` until the back-off since its exit has passed (decide again then).
 */
export function restartDecision(policy: BackoffPolicy, entry: BackoffEntry | undefined, finishedAt: number, now: number): RestartDecision {
  if (entry !== undefined && !expired(policy, finishedAt, entry) && now - finishedAt < entry.delayMs) {
    return { type: 'wait', delayMs: entry.delayMs, until: finishedAt + entry.delayMs };
  }
  return { type: 'start', entry: nextEntry(policy, entry, finishedAt, now) };
}

/** A duration as Go's time.Duration prints it (`10s`, `1m20s`, `5m0s`), for the kubelet's messages. */
export function goDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m${seconds % 60}s`;
}

/** The waiting message of a container in CrashLoopBackOff, in kuberuntime's words. */
export function crashLoopMessage(delayMs: number, container: string, pod: { name: string; namespace: string; uid: string }): string {
  return `back-off ${goDuration(delayMs)} restarting failed container=${container} pod=${pod.name}_${pod.namespace}(${pod.uid})`;
}
