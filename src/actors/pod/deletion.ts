/**
 * Graceful deletion, decided. The host pod object is what guarantees at most one pod per identity
 * (a StatefulSet waits for it), so it goes only on the provider's word, as a kubelet removes it
 * only once its containers are dead: delete at the provider with the pod's grace period; at the
 * deadline (grace plus a margin) escalate with grace 0 and keep asking with backoff; finish (last
 * status, then delete the host pod with grace 0) once the provider reports the pod terminal or
 * gone. While the provider cannot be reached the pod stays Terminating, like a pod on a
 * partitioned node; `kubectl delete --force` and the node lifecycle controller remain the
 * operator's tools (docs/reliability.md).
 */
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import type { ProviderErrorKind as ErrorKind } from '../../providers/errors.js';
import { deadlineExceededStatus, deletionAskedAt, graceLeft, gracePeriodSeconds, hostStatusFrom, isTerminal, podForProvider } from './podStatusView.js';
import type { PodActorConfig } from './config.js';
import type { PodEffect, PodIn, PodMsg, PodState, Termination } from './protocol.js';
import { requestWrite } from './statusWrites.js';
import { awaitPreStop, beginPreStop, failedHookEvent, hasPreStopHooks, killingEvents, MINIMUM_GRACE_SECONDS, preStopOver, remainingGrace, shortenPreStop } from './lifecycleHooks.js';
import { after, andThen, enter, event, failedAgain, minimalPod, noRetry, retryDelay, withEffects, type Next } from './transitions.js';

export function onHostDeleted(config: PodActorConfig, state: PodState): Next {
  switch (state.stage) {
    case 'running':
    case 'creating':
    case 'starting':
    case 'terminating': {
      // Deleted on the host without waiting for us (e.g. force-deleted): still stop it at the provider.
      const pod = deletionRequest(config, state);
      return { state: orphaned({ ...state, host: undefined }), effects: [{ type: 'provider.delete', pod }] };
    }
    case 'orphaned':
      return { state: { ...state, host: undefined } };
    case 'backoff':
    case 'rejected':
    case 'done':
    case 'finishing':
      return { state: { ...state, host: undefined }, stop: true };
  }
}

/** The host pod is gone: what is left at the provider is removed, with the grace of a deletion already under way. */
export function orphaned(state: PodState): PodState {
  const deletion = state.stage === 'terminating' || state.stage === 'orphaned' ? { termination: state.termination, delete: state.delete } : { termination: null, delete: noRetry };
  return enter(state, { stage: 'orphaned', ...deletion });
}

export const isDeleting = (state: PodState): boolean => state.stage === 'terminating' || state.stage === 'finishing' || state.stage === 'orphaned';

export function startDeletion(config: PodActorConfig, state: PodState, now: number): Next {
  switch (state.stage) {
    case 'creating':
      // Wait for the answer in flight (creation has a deadline); it decides what the provider has.
      return { state };
    case 'starting':
      // An incarnation that finds the deletion begun (a restart): only the grace left counts.
      return resumeDeletion(config, state, now);
    case 'rejected':
    case 'done':
      // The provider refused the pod, or already reported its end: nothing runs there.
      return finish(state);
    case 'backoff':
      // A failed create may still have happened: the provider's answer to the delete says.
      return terminate(config, state, now);
    case 'running':
      if (isTerminal(state.provider)) return after([{ type: 'provider.delete', pod: deletionRequest(config, state) }], finish(state));
      return terminate(config, state, now);
    case 'terminating':
      return shortenGrace(config, state, now);
    case 'finishing':
    case 'orphaned':
      return { state };
  }
}

/**
 * Asks the provider to stop the pod within its grace period, and arms the deadline. A running pod
 * is stopped as the kubelet stops it when Tether has the containers' duties: `Killing` for each
 * running container, their preStop hooks first (lifecycleHooks.ts), the provider asked after them.
 */
export function terminate(config: PodActorConfig, state: PodState, now: number, cause: Termination['cause'] = 'deletion', graceSeconds = gracePeriodSeconds(state.host)): Next {
  const ms = graceSeconds * 1000 + config.graceMarginMs;
  const ours = state.stage === 'running' && config.containerDuties.by === 'tether';
  const killing = ours ? killingEvents(config, state.host, state.provider) : [];
  const hooks = ours ? beginPreStop(config, state.host, state.provider, { graceSeconds, now }) : { preStop: null, effects: [] };
  const next = enter(state, { stage: 'terminating', termination: { cause, graceSeconds, deadlineAt: now + ms, escalations: 0, preStop: hooks.preStop }, delete: noRetry });
  const ask: PodEffect[] = hooks.preStop ? [] : [{ type: 'provider.delete', pod: deletionRequest(config, next) }];
  return withEffects(next, [...killing, ...hooks.effects, ...ask, { type: 'schedule', ms, msg: { type: 'pod.grace-expired', at: now + ms } }]);
}

/**
 * An incarnation that starts on a deletion under way (Tether restarted during it) has only the
 * grace left (graceLeft: to the deletionTimestamp), so a restart never extends the deadline. With
 * preStop hooks that are Tether's to run, it waits for the provider's status to know which
 * containers run and runs their hooks again within that (resumePreStop), as a restarted kubelet
 * kills the pod again; a `sleep` is continued from the deletion, not begun again. Otherwise the
 * provider is asked at once (the read may not come for a long while, in an outage), with at least
 * the kubelet's 2 s; the read, when it comes, ends the deletion if the pod is gone.
 */
function resumeDeletion(config: PodActorConfig, state: PodState, now: number): Next {
  const left = graceLeft(state.host, now);
  if (config.containerDuties.by !== 'tether' || left === 0 || !hasPreStopHooks(state.host)) {
    return terminate(config, state, now, 'deletion', resumedGrace(state.host, left));
  }
  const ms = left * 1000 + config.graceMarginMs;
  const wait = awaitPreStop(left, now);
  const next = enter(state, { stage: 'terminating', termination: { cause: 'deletion', graceSeconds: left, deadlineAt: now + ms, escalations: 0, preStop: wait.preStop }, delete: noRetry });
  return withEffects(next, [...wait.effects, { type: 'schedule', ms, msg: { type: 'pod.grace-expired', at: now + ms } }]);
}

/** What a resumed deletion asks the provider with: the kubelet's minimum over what is left, never more than the pod's own grace. */
function resumedGrace(host: Parameters<typeof gracePeriodSeconds>[0], left: number): number {
  return Math.min(gracePeriodSeconds(host), Math.max(MINIMUM_GRACE_SECONDS, left));
}

/**
 * The provider's status reached an incarnation waiting to resume the preStop hooks: the running
 * containers get the kubelet's `Killing` and their hooks, within what is left till the cut; none
 * to run, the provider is asked at once.
 */
export function resumePreStop(config: PodActorConfig, state: PodState, status: PodStatus, now: number): Next {
  if (state.stage !== 'terminating' || state.termination.preStop?.resuming !== true) return { state };
  const left = Math.max(0, Math.floor((state.termination.preStop.cutAt - now) / 1000));
  const hooks = beginPreStop(config, state.host, status, { graceSeconds: left, now, sleptFrom: deletionAskedAt(state.host, now) });
  const killing = killingEvents(config, state.host, status);
  if (hooks.preStop) return withEffects({ ...state, termination: { ...state.termination, graceSeconds: left, preStop: hooks.preStop } }, [...killing, ...hooks.effects]);
  const next: PodState = { ...state, termination: { ...state.termination, graceSeconds: resumedGrace(state.host, left), preStop: null } };
  return withEffects(next, [...killing, ...hooks.effects, { type: 'provider.delete', pod: deletionRequest(config, next) }]);
}

/**
 * A shorter grace period given to a terminating pod re-asks the provider and brings the deadline
 * forward; during the preStop hooks it cuts them instead (the provider is asked once they are over).
 * A pod being stopped for its active deadline and now deleted leaves the host once ended.
 */
function shortenGrace(config: PodActorConfig, deleted: PodIn<'terminating'>, now: number): Next {
  const state: PodIn<'terminating'> = { ...deleted, termination: { ...deleted.termination, cause: 'deletion' } };
  const current = state.termination;
  const graceSeconds = gracePeriodSeconds(state.host);
  if (current.escalations > 0 || graceSeconds >= current.graceSeconds) return { state };
  const ms = graceSeconds * 1000 + config.graceMarginMs;
  const deadlineAt = Math.min(current.deadlineAt, now + ms);
  const cut = current.preStop ? shortenPreStop(current.preStop, graceSeconds, now) : null;
  const next: PodIn<'terminating'> = { ...state, termination: { ...current, graceSeconds, deadlineAt, preStop: cut?.preStop ?? null } };
  const effects: PodEffect[] = cut ? cut.effects : [{ type: 'provider.delete', pod: deletionRequest(config, next) }];
  if (deadlineAt !== current.deadlineAt) effects.push({ type: 'schedule', ms: deadlineAt - now, msg: { type: 'pod.grace-expired', at: deadlineAt } });
  return andThen(withEffects(next, effects), (s) => endPreStopIfOver(config, s, now));
}

/** A preStop timer is due (a stale one, after a shorter grace, finds the hooks still running and waits on). */
export function onPreStopDue(config: PodActorConfig, state: PodState, now: number): Next {
  return endPreStopIfOver(config, state, now);
}

/** The provider ran a container's hook: the preStop wait may be over; a failed hook is the kubelet's Warning. */
export function onHookFinished(config: PodActorConfig, state: PodState, msg: Extract<PodMsg, { type: 'pod.hook-finished' }>, now: number): Next {
  const warn = msg.error !== undefined ? [failedHookEvent(config, msg.container, msg.hook)] : [];
  if (msg.hook !== 'preStop' || state.stage !== 'terminating' || !state.termination.preStop) return withEffects(state, warn);
  const preStop = state.termination.preStop;
  const next: PodState = { ...state, termination: { ...state.termination, preStop: { ...preStop, pending: preStop.pending.filter((c) => c !== msg.container) } } };
  return after(warn, endPreStopIfOver(config, next, now));
}

/** The hooks are over (or cut): ask the provider, with what is left of the grace period. */
function endPreStopIfOver(config: PodActorConfig, state: PodState, now: number): Next {
  if (state.stage !== 'terminating' || !state.termination.preStop || !preStopOver(state.termination.preStop, now)) return { state };
  const graceSeconds = remainingGrace(state.termination, state.termination.preStop, now);
  const next: PodState = { ...state, termination: { ...state.termination, graceSeconds, preStop: null } };
  return withEffects(next, [{ type: 'provider.delete', pod: deletionRequest(config, next) }]);
}

/** The deadline passed and the provider has not reported the end: escalate (grace 0), ask again later. */
export function onGraceExpired(config: PodActorConfig, state: PodState, msg: Extract<PodMsg, { type: 'pod.grace-expired' }>, now: number): Next {
  if (state.stage !== 'terminating' || msg.at !== state.termination.deadlineAt) return { state };
  const current = state.termination;
  const delay = retryDelay(config, state, current.escalations);
  // Escalated: whatever hook still runs is cut (the provider kills the pod now).
  const next: PodState = { ...state, termination: { ...current, graceSeconds: 0, deadlineAt: now + delay, escalations: current.escalations + 1, preStop: null } };
  const effects: PodEffect[] = [
    { type: 'provider.delete', pod: deletionRequest(config, next) },
    { type: 'schedule', ms: delay, msg: { type: 'pod.grace-expired', at: now + delay } },
  ];
  if (current.escalations === 0) {
    const grace = gracePeriodSeconds(state.host);
    effects.unshift(event('Warning', 'GracePeriodExceeded', `the provider has not reported the pod ended within its grace period (${grace} s) plus ${config.graceMarginMs / 1000} s; asking it to kill the pod now (grace 0) until it does`, 'Delete'));
  }
  return withEffects(next, effects);
}

/** The pod as the provider is asked to delete it: with the grace period of the termination under way. */
export function deletionRequest(config: PodActorConfig, state: PodState): Pod {
  const pod = podForProvider(state.host ?? minimalPod(state), config.nodeName);
  const termination = state.stage === 'terminating' || state.stage === 'orphaned' ? state.termination : null;
  if (termination) pod.metadata = { ...pod.metadata, deletionGracePeriodSeconds: termination.graceSeconds };
  return pod;
}

/**
 * The provider reports the terminating pod ended (`status`, terminal) or gone (undefined). A
 * deleted pod gets its final status, if the node can vouch for it, and leaves the host; one stopped
 * for its active deadline stays, Failed with reason DeadlineExceeded, and nothing more runs.
 */
export function endTermination(state: PodIn<'terminating'>, status: PodStatus | undefined, now: number): Next {
  if (state.termination.cause === 'deadline') {
    const failed = deadlineExceededStatus(status ?? state.provider, state.host?.status, new Date(now));
    return requestWrite(enter({ ...state, provider: failed }, { stage: 'done' }), failed);
  }
  if (!status) return finish(state);
  const written = state.node.ready ? requestWrite(state, hostStatusFrom(status)) : { state };
  return andThen(written, (s) => finish(s));
}

/** Deletes the host pod for good (grace 0, UID precondition), after writing a final status if one is due. */
export function finish(state: PodState, ...extra: PodEffect[]): Next {
  const finishing = enter(state, { stage: 'finishing', hostDelete: noRetry });
  if (state.writes.inFlight > 0) return withEffects(finishing, extra); // delete once the write lands
  return withEffects(finishing, [...extra, { type: 'host.delete' }]);
}

export function onDeleteFailed(config: PodActorConfig, state: PodState, kind: ErrorKind, message: string, now: number): Next {
  if (kind === 'not-found') {
    // Already gone at the provider: deletion is done there.
    if (state.stage === 'orphaned') return { state, stop: true };
    if (state.stage === 'terminating') return endTermination(state, undefined, now);
    return { state };
  }
  const warn = event('Warning', 'ProviderDeleteFailed', `deleting the pod at the provider failed: ${message}`, 'Delete');
  // The older pod of a namesake, in any other stage: asked again unless a deletion takes over meanwhile.
  if (state.stage !== 'terminating' && state.stage !== 'orphaned') return withEffects(state, [warn, { type: 'schedule', ms: retryDelay(config, state, 0), msg: { type: 'pod.retry-delete' } }]);
  // Once escalated, the deadline's own backoff asks again; a second chain would double the calls.
  if (state.stage === 'terminating' && state.termination.escalations > 0) {
    return withEffects({ ...state, delete: failedAgain(state.delete, now, null, message) }, [warn]);
  }
  const ms = retryDelay(config, state, state.delete.attempt);
  return withEffects({ ...state, delete: failedAgain(state.delete, now, ms, message) }, [warn, { type: 'schedule', ms, msg: { type: 'pod.retry-delete' } }]);
}

export function retryDelete(config: PodActorConfig, state: PodState): Next {
  if (state.stage !== 'terminating' && state.stage !== 'orphaned') return { state };
  return { state, effects: [{ type: 'provider.delete', pod: deletionRequest(config, state) }] };
}

/** The host pod's delete failed: ask again with backoff while the pod is finishing. */
export function onHostDeleteFailed(config: PodActorConfig, state: PodState, message: string, now: number): Next {
  if (state.stage !== 'finishing') return { state };
  const ms = retryDelay(config, state, state.hostDelete.attempt);
  return withEffects({ ...state, hostDelete: failedAgain(state.hostDelete, now, ms, message) }, [{ type: 'schedule', ms, msg: { type: 'pod.retry-host-delete' } }]);
}
