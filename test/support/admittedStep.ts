/**
 * For pod decide tests about what follows admission: a step that, when the pod actor asks the
 * node's admission (node.admit), answers at once that the pod is admitted, as a node with room
 * for every pod would. Admission itself is specified in test/actors/pod/admission.test.ts.
 */
import type { PodEffect, PodMsg, PodState } from '../../src/actors/pod/protocol.js';
import type { Transition } from '../../src/runtime/behavior.js';

type Next = Transition<PodState, PodEffect>;

export function admittingEverything(step: (state: PodState, msg: PodMsg, now?: number) => Next): (state: PodState, msg: PodMsg, now?: number) => Next {
  return (state, msg, now) => {
    const next = step(state, msg, now);
    const asked = !next.stop && (next.effects ?? []).some((e) => e.type === 'node.admit');
    if (!asked) return next;
    const admitted = step(next.state, { type: 'pod.admitted' }, now);
    if (admitted.stop) return admitted;
    return { state: admitted.state, effects: [...(next.effects ?? []).filter((e) => e.type !== 'node.admit'), ...(admitted.effects ?? [])] };
  };
}
