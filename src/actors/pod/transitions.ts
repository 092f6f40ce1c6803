/**
 * Small builders shared by the pod actor's decisions: entering a stage, chaining transitions,
 * and retry records. Decisions are composed from these instead of splicing effect lists.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import { fingerprint } from '../../lib/fingerprint.js';
import { definedOnly } from '../../lib/defaults.js';
import type { Transition } from '../../runtime/behavior.js';
import { backoffDelay, seededJitter } from '../../lib/backoff.js';
import type { PodActorConfig } from './config.js';
import type { PodCommon, PodEffect, PodStage, PodState, Retry } from './protocol.js';

export type Next = Transition<PodState, PodEffect>;

export function withEffects(state: PodState, effects: PodEffect[]): Next {
  return { state, effects };
}

/** The transition `next`, then `effects` (none if `next` stops the actor). */
export function plus(next: Next, ...effects: PodEffect[]): Next {
  if (next.stop) return next;
  return { state: next.state, effects: [...(next.effects ?? []), ...effects] };
}

/** `effects` first, then the transition `next` (none if it stops the actor). */
export function after(effects: readonly PodEffect[], next: Next): Next {
  if (next.stop) return next;
  return { state: next.state, effects: [...effects, ...(next.effects ?? [])] };
}

/** `next`, then `then` applied to the state it reached; the effects of both in order. A stop ends the chain. */
export function andThen(next: Next, then: (state: PodState) => Next): Next {
  if (next.stop) return next;
  return after(next.effects ?? [], then(next.state));
}

/** The fields valid in every stage, and nothing of the stage's own. */
export function common(state: PodState): PodCommon {
  const { namespace, name, uid, host, node, provider, createError, annotation, writes, retries, allocation, postStart, inPlace } = state;
  return { namespace, name, uid, host, node, provider, createError, annotation, writes, retries, allocation, postStart, inPlace };
}

/** `state` in another stage: what every stage has is carried, the old stage's own fields are not. */
export function enter<S extends PodStage>(state: PodState, stage: S): PodCommon & S {
  return { ...common(state), ...stage };
}

export const noRetry: Retry = { attempt: 0, dueAt: null, lastError: null };

/** One more failure of an operation, retried `delayMs` from `now` (null: no retry of its own is due). */
export function failedAgain(retry: Retry, now: number, delayMs: number | null, error: string | null): Retry {
  return { attempt: retry.attempt + 1, dueAt: delayMs === null ? null : now + delayMs, lastError: error };
}

export function event(eventType: 'Normal' | 'Warning', reason: string, note: string, action: string): PodEffect {
  return { type: 'host.event', eventType, reason, note, action };
}

/** The action each kubelet reason stands for (events.k8s.io/v1 wants one; the kubelet's core Events have none). */
const kubeletActions: Readonly<Record<string, string>> = { ResizeInfeasible: 'Resize', Pulling: 'Pull', Pulled: 'Pull', Created: 'Create', Started: 'Start', Killing: 'Kill', BackOff: 'BackOff', Failed: 'Start', FailedPreStopHook: 'Kill', FailedPostStartHook: 'Start' };

/** An Event as the node's kubelet records it: source `kubelet` on the node, about one container. */
export function kubeletEvent(config: PodActorConfig, e: { readonly eventType: 'Normal' | 'Warning'; readonly reason: string; readonly note: string; readonly fieldPath: string }): PodEffect {
  const action = kubeletActions[e.reason] ?? e.reason;
  return { type: 'host.event', eventType: e.eventType, reason: e.reason, note: e.note, action, fieldPath: e.fieldPath, source: { component: 'kubelet', host: config.nodeName } };
}

/** A kubelet Event about the pod (a container's, with `fieldPath`), from the kubelet on the node. */
export function dutyEvent(config: PodActorConfig, e: { readonly reason: string; readonly note: string; readonly fieldPath?: string }): PodEffect {
  const action = kubeletActions[e.reason] ?? e.reason;
  return { type: 'host.event', eventType: 'Warning', reason: e.reason, note: e.note, action, ...definedOnly({ fieldPath: e.fieldPath }), source: { component: 'kubelet', host: config.nodeName } };
}

export function minimalPod(state: PodState): Pod {
  return { metadata: { namespace: state.namespace, name: state.name, uid: state.uid } };
}

/**
 * Exponential backoff with a jitter derived from the pod's uid, so decisions stay pure and
 * repeatable while a storm of failing pods still spreads its retries.
 */
export function retryDelay(config: PodActorConfig, state: Pick<PodState, 'uid'>, attempt: number): number {
  return backoffDelay(config.retry, attempt, seededJitter(fingerprint(`${state.uid}:${attempt}`)));
}
