/** Small builders shared by the pod actor's decisions. */
import type { Pod } from '../../adapters/kubernetes/model.js';
import { fingerprint } from '../../lib/fingerprint.js';
import type { Transition } from '../../runtime/behavior.js';
import { backoffDelay } from '../../lib/backoff.js';
import type { PodActorConfig } from './config.js';
import type { PodEffect, PodState } from './protocol.js';

export type Next = Transition<PodState, PodEffect>;

export function withEffects(state: PodState, effects: PodEffect[]): Next {
  return { state, effects };
}

export function event(eventType: 'Normal' | 'Warning', reason: string, note: string, action: string): PodEffect {
  return { type: 'host.event', eventType, reason, note, action };
}

export function minimalPod(state: PodState): Pod {
  return { metadata: { namespace: state.namespace, name: state.name, uid: state.uid } };
}

/**
 * Exponential backoff with a jitter derived from the pod's uid, so decisions stay pure and
 * repeatable while a storm of failing pods still spreads its retries.
 */
export function retryDelay(config: PodActorConfig, state: Pick<PodState, 'uid'>, attempt: number): number {
  const seed = fingerprint(`${state.uid}:${attempt}`);
  let hash = 0;
  for (let i = 0; i < seed.length; i++) hash = (Math.imul(hash, 31) + seed.charCodeAt(i)) >>> 0;
  return backoffDelay(config.retry, attempt, () => (hash % 10_000) / 10_000);
}
