/**
 * Admission, decided for the pod actor: a pod the provider does not have is put to the node's
 * admission (src/actors/admission) before it is created; a rejected one ends as the kubelet ends
 * it (kubelet.go rejectPod): phase Failed, the reason, "Pod was rejected: <message>", and a
 * Warning Event with the same reason. It never reaches the provider.
 */
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { definedOnly } from '../../lib/defaults.js';
import type { PodActorConfig } from './config.js';
import { create } from './creation.js';
import { finish } from './deletion.js';
import type { PodEffect, PodState } from './protocol.js';
import type { OwnerWarning } from '../admission/daemonSets.js';
import { requestWrite } from './statusWrites.js';
import { enter, event, plus, withEffects, type Next } from './transitions.js';

/** Still `starting` while the node answers: only the answer (or a deletion) moves the pod on. */
export function askAdmission(state: PodState): Next {
  return withEffects(state, [{ type: 'node.admit', pod: state.host as Pod }]);
}

export function onAdmitted(config: PodActorConfig, state: PodState, now: number): Next {
  if (state.stage !== 'starting' || !state.host || state.host.metadata?.deletionTimestamp) return { state };
  return create(config, state, now);
}

export function onAdmissionRejected(state: PodState, reason: string, message: string, ownerWarning?: OwnerWarning): Next {
  if (state.stage !== 'starting' || !state.host) return { state };
  if (state.host.metadata?.deletionTimestamp) return finish(state);
  const status: PodStatus = {
    phase: 'Failed',
    reason,
    message: `Pod was rejected: ${message}`,
    ...definedOnly({ qosClass: state.host.status?.qosClass }),
  };
  const owner: PodEffect[] = ownerWarning ? [{ type: 'host.owner-event', warning: ownerWarning }] : [];
  return plus(requestWrite(enter({ ...state, provider: status }, { stage: 'done' }), status), event('Warning', reason, message, 'Admit'), ...owner);
}
