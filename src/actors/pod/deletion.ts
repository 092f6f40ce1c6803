/**
 * Graceful deletion, decided: delete at the provider with the pod's grace period, mirror the
 * termination, then delete the host pod with grace 0 (bounded by the grace period plus a margin).
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import type { ErrorKind } from '../../providers/errors.js';
import { gracePeriodSeconds, hasRunningContainers, podForProvider } from './podStatusView.js';
import type { PodActorConfig } from './config.js';
import type { PodEffect, PodState } from './protocol.js';
import { event, minimalPod, retryDelay, withEffects, type Next } from './transitions.js';

export function onHostDeleted(config: PodActorConfig, state: PodState): Next {
  switch (state.stage) {
    case 'running':
    case 'creating':
    case 'starting': {
      // Deleted on the host without waiting for us (e.g. force-deleted): still stop it at the provider.
      const pod = state.host ?? minimalPod(state);
      return { state: { ...state, host: undefined, stage: 'orphaned' }, effects: [{ type: 'provider.delete', pod: podForProvider(pod, config.nodeName) }] };
    }
    case 'orphaned':
      return { state: { ...state, host: undefined } };
    case 'backoff':
    case 'rejected':
    case 'done':
    case 'terminating':
    case 'finishing':
      return { state: { ...state, host: undefined }, stop: true };
  }
}

export const isDeleting = (state: PodState): boolean => state.stage === 'terminating' || state.stage === 'finishing' || state.stage === 'orphaned';

export function startDeletion(config: PodActorConfig, state: PodState): Next {
  const host = state.host as Pod;
  switch (state.stage) {
    case 'starting':
    case 'creating':
      // Wait for the answer in flight; it decides whether anything runs at the provider.
      return { state };
    case 'backoff':
    case 'rejected':
    case 'done':
      // Nothing runs at the provider: finish at once.
      return finish(state);
    case 'running': {
      const toProvider: PodEffect = { type: 'provider.delete', pod: podForProvider(host, config.nodeName) };
      if (!hasRunningContainers(state.provider)) {
        // No container runs: nothing to wait for (the provider still removes its copy).
        const finished = finish(state);
        return withEffects(finished.state, [toProvider, ...(finished.stop ? [] : finished.effects ?? [])]);
      }
      const graceMs = gracePeriodSeconds(host) * 1000 + config.graceMarginMs;
      return withEffects({ ...state, stage: 'terminating' }, [
        toProvider,
        { type: 'timer', ms: graceMs, msg: { type: 'pod.grace-expired' } },
      ]);
    }
    case 'terminating':
    case 'finishing':
    case 'orphaned':
      return { state };
  }
}

/** Deletes the host pod for good (grace 0, UID precondition), after writing a final status if one is due. */
export function finish(state: PodState, ...extra: PodEffect[]): Next {
  const finishing = { ...state, stage: 'finishing' as const };
  if (state.writes.inFlight || state.writes.pending) return withEffects(finishing, extra); // delete once the write lands
  return withEffects(finishing, [...extra, { type: 'host.delete' }]);
}

export function onDeleteFailed(config: PodActorConfig, state: PodState, kind: ErrorKind, message: string): Next {
  if (kind === 'not-found') {
    // Already gone at the provider: deletion is done there.
    if (state.stage === 'orphaned') return { state, stop: true };
    if (state.stage === 'terminating') return finish(state);
    return { state };
  }
  const attempts = state.deleteAttempts + 1;
  return withEffects({ ...state, deleteAttempts: attempts }, [
    event('Warning', 'ProviderDeleteFailed', `deleting the pod at the provider failed: ${message}`, 'Delete'),
    { type: 'timer', ms: retryDelay(config, state, attempts - 1), msg: { type: 'pod.retry-delete' } },
  ]);
}

export function retryDelete(state: PodState): Next {
  if (state.stage !== 'terminating' && state.stage !== 'orphaned') return { state };
  const pod = state.host ?? minimalPod(state);
  return { state, effects: [{ type: 'provider.delete', pod }] };
}
