/**
 * The NotReady rule, decided (kubelet contract; Liqo's fix): while the virtual node is NotReady,
 * a pod whose status Tether cannot confirm is Ready=False/ContainersReady=False (reason
 * VirtualNodeNotReady), whatever stage its actor is in, and in every incarnation (a restarted
 * actor marks its pod before the provider has answered). The real status comes back once the
 * node is Ready again.
 */
import type { PodState } from './protocol.js';
import type { PodActorConfig } from './config.js';
import { isNotReadyMark, notReadyStatus, notStartedStatus } from './podStatusView.js';
import { requestWrite } from './statusWrites.js';
import { deletionRequest } from './deletion.js';
import type { Next } from './transitions.js';

/** Stages in which the host pod may still show a status Tether can no longer vouch for. */
export function mayShowReady(state: PodState): boolean {
  if (!state.host) return false;
  switch (state.stage) {
    case 'starting':
    case 'creating':
    case 'backoff':
    case 'rejected':
    case 'running':
    case 'terminating':
      return true;
    case 'done':
    case 'finishing':
    case 'orphaned':
      return false;
  }
}

/** Writes the NotReady override, from the provider's last word or else from what the host shows. */
export function markNotReady(config: PodActorConfig, state: PodState, now: number): Next {
  if (state.node.ready || !mayShowReady(state)) return { state };
  const base = state.provider ?? state.host?.status;
  return requestWrite(state, notReadyStatus(base, state.node, config.nodeName, new Date(now)));
}

export function onNodeReadiness(config: PodActorConfig, state: PodState, readiness: PodState['node'], now: number): Next {
  const was = state.node.ready;
  const next = { ...state, node: readiness };
  if (was === readiness.ready) return { state: next };
  if (!readiness.ready) return markNotReady(config, next, now);
  // Ready again: the status held while NotReady is stale; ask the provider for the current one.
  switch (next.stage) {
    case 'running':
    case 'starting':
      return { state: next, effects: [{ type: 'provider.get' }] };
    case 'terminating':
      // The provider is back: ask it again to stop the pod, and read where it is.
      return { state: next, effects: [{ type: 'provider.get' }, { type: 'provider.delete', pod: deletionRequest(config, next) }] };
    case 'creating':
    case 'backoff':
    case 'rejected': {
      // Nothing runs at the provider to report a status: lift the override ourselves.
      if (!next.host || !isNotReadyMark(next.writes.last)) return { state: next };
      const containers = (next.host.spec?.containers ?? []).map((c) => c.name);
      return requestWrite(next, notStartedStatus(next.host.status, containers, new Date(now)));
    }
    case 'done':
    case 'finishing':
    case 'orphaned':
      return { state: next };
  }
}
