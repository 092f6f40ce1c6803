/**
 * One word for what an actor is doing, for grouping and filtering the tree (node → role → state):
 * the runtime's status while the actor is not running, and for a running one what its own summary
 * says (a pod's provider phase, an error it is retrying). Pure: computed from a snapshot.
 */
import type { ActorSnapshot } from '../runtime/actorRegistry.js';

export const ACTOR_STATES = ['failed', 'restarting', 'erroring', 'starting', 'pending', 'running', 'succeeded', 'stopping', 'stopped'] as const;
export type ActorState = (typeof ACTOR_STATES)[number];

export function isActorState(value: string): value is ActorState {
  return (ACTOR_STATES as readonly string[]).includes(value);
}

/** The error an actor shows: its last crash, else the one its summary reports it is retrying. */
export function errorText(snapshot: ActorSnapshot): string {
  const reported = snapshot.summary?.['lastError'];
  return snapshot.lastError?.message ?? (typeof reported === 'string' ? reported : '');
}

export function actorState(snapshot: ActorSnapshot): ActorState {
  if (snapshot.status !== 'running') return snapshot.status;
  const summary = snapshot.summary;
  const reported = summary?.['lastError'];
  if (snapshot.kind === 'pod') {
    const phase = summary?.['phase'];
    if (phase === 'Failed') return 'failed';
    if (typeof reported === 'string' && reported !== '') return 'erroring';
    if (phase === 'Running') return 'running';
    if (phase === 'Succeeded') return 'succeeded';
    return 'pending';
  }
  return typeof reported === 'string' && reported !== '' ? 'erroring' : 'running';
}
