/**
 * spec.activeDeadlineSeconds, enforced by Tether for every provider, as the kubelet does
 * (pkg/kubelet/active_deadline.go; kubelet_pods.go generateAPIPodStatus): once a running pod has
 * been active that long, counted from status.startTime, a Normal Event DeadlineExceeded is
 * recorded and the provider is asked to stop the pod with its termination grace period (the
 * deletion machinery, escalation included); once the provider reports it ended or gone, the host
 * pod is Failed with reason DeadlineExceeded (deletion.ts endTermination). The provider need not
 * know the field.
 *
 * The deadline is recomputed from the host pod on every message, never kept from when a timer was
 * set: a lowered deadline (the API allows no other change) re-arms the timer, and a restarted actor
 * counts from startTime like the first one. The timer is the actor's own scheduled message.
 */
import type { PodActorConfig } from './config.js';
import { deadlineExceeded, epochMs } from './podStatusView.js';
import type { PodIn, PodState } from './protocol.js';
import { terminate } from './deletion.js';
import { after, event, plus, type Next } from './transitions.js';

/** When the pod's active deadline runs out (epoch ms), or null: no deadline, or not started. */
export function activeDeadlineOf(state: PodState): number | null {
  const seconds = state.host?.spec?.activeDeadlineSeconds;
  if (typeof seconds !== 'number') return null;
  // The host pod's startTime is the truth that survives restarts; before it is written, the provider's.
  const start = epochMs(state.host?.status?.startTime ?? state.provider?.startTime);
  return start === null ? null : start + seconds * 1000;
}

export function pastActiveDeadline(state: PodState, now: number): boolean {
  const at = activeDeadlineOf(state);
  return at !== null && now >= at;
}

/** After any decision: a running pod's timer is (re-)armed when its deadline is not the one armed. */
export function armActiveDeadline(next: Next, now: number): Next {
  const state = next.state;
  if (next.stop || state.stage !== 'running') return next;
  const at = activeDeadlineOf(state);
  if (at === null || at === state.deadlineTimer) return next;
  return plus({ ...next, state: { ...state, deadlineTimer: at } }, { type: 'schedule', ms: Math.max(0, at - now), msg: { type: 'pod.active-deadline-reached', at } });
}

/** The timer armed for `at` is due: stop the pod if it is still running and still past its deadline. */
export function onActiveDeadlineReached(config: PodActorConfig, state: PodState, at: number, now: number): Next {
  if (state.stage !== 'running' || state.deadlineTimer !== at || !pastActiveDeadline(state, now)) return { state };
  return stopForDeadline(config, state, now);
}

/** The kubelet's Event, then the provider asked to stop the pod with its grace period. */
export function stopForDeadline(config: PodActorConfig, state: PodIn<'running'>, now: number): Next {
  return after([event('Normal', deadlineExceeded.reason, deadlineExceeded.message, 'Kill')], terminate(config, state, now, 'deadline'));
}
