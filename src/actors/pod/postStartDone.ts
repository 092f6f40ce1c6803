/**
 * The call telling a provider that a sidecar's postStart hook is over (`provider.poststart-done`)
 * is what releases the containers after it, so a failed one is made again, with the pod's retry
 * backoff, for as long as the run it names is the sidecar's current one. A later run has its own
 * hook and its own call, so a retry for an earlier run is dropped.
 */
import { backoffDelay, seededJitter } from '../../lib/backoff.js';
import type { PodActorConfig } from './config.js';
import { containerStatusOf } from './postStartHold.js';
import type { PodMsg, PodState } from './protocol.js';
import { withEffects, type Next } from './transitions.js';

type Failed = Extract<PodMsg, { type: 'pod.poststart-done-failed' }>;
type Retry = Extract<PodMsg, { type: 'pod.retry-poststart-done' }>;

/** The provider still reports the sidecar's run `containerID`, and its hook is over. */
function current(state: PodState, { container, containerID }: { container: string; containerID: string }): boolean {
  const status = containerStatusOf(state.provider, container);
  return status !== undefined && (status.containerID ?? '') === containerID && state.postStart.some((r) => r.container === container && r.phase === 'done');
}

export function onPostStartDoneFailed(config: PodActorConfig, state: PodState, msg: Failed): Next {
  if (!current(state, msg)) return { state };
  const attempt = msg.attempt + 1;
  const ms = backoffDelay(config.retry, msg.attempt, seededJitter(`${state.uid}:poststart-done:${msg.container}:${attempt}`));
  return withEffects(state, [{ type: 'schedule', ms, msg: { type: 'pod.retry-poststart-done', container: msg.container, containerID: msg.containerID, attempt } }]);
}

export function retryPostStartDone(state: PodState, msg: Retry): Next {
  if (!current(state, msg)) return { state };
  return withEffects(state, [{ type: 'provider.poststart-done', container: msg.container, containerID: msg.containerID, attempt: msg.attempt }]);
}
