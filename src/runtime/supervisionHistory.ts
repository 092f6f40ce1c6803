/**
 * What happened to one actor or supervisor over time, as its supervisor saw it: the crashes with
 * their classified error, the decisions (restart after a delay, give up, escalate) and the
 * restarts. Kept in a small ring per cell, made at the first event, so the many pod actors that
 * never crash carry nothing; the first start of a worker is not recorded for the same reason
 * (its incarnation count, `restarts + 1`, says as much).
 */
import { kindOf, type ErrorKind } from '../lib/errorKind.js';
import { errorMessage } from '../lib/errorMessage.js';
import { Ring } from '../lib/ring.js';

/** An error as the history keeps it: the message, and its class (`defect` when it names none). */
export interface ClassifiedError {
  readonly message: string;
  readonly kind: ErrorKind | 'defect';
}

export type SupervisionEvent =
  | { readonly type: 'started'; readonly at: number }
  | { readonly type: 'crashed'; readonly at: number; readonly error: ClassifiedError }
  | { readonly type: 'restart-scheduled'; readonly at: number; readonly delayMs: number }
  | { readonly type: 'restarted'; readonly at: number; readonly incarnation: number }
  | { readonly type: 'given-up'; readonly at: number; readonly reason: string }
  | { readonly type: 'escalated'; readonly at: number; readonly reason: string }
  /** In a supervisor's own history: one of its children crashed, and what was decided. */
  | { readonly type: 'child-crashed'; readonly at: number; readonly child: string; readonly error: ClassifiedError; readonly decision: 'restart' | 'give-up' | 'escalate' };

export function classify(error: unknown): ClassifiedError {
  return { message: errorMessage(error), kind: kindOf(error) ?? 'defect' };
}

/** Events kept per worker actor and per supervisor. */
export const WORKER_HISTORY = 16;
export const SUPERVISOR_HISTORY = 64;

export class SupervisionHistory {
  private readonly ring: Ring<SupervisionEvent>;

  constructor(capacity: number) {
    this.ring = new Ring(capacity);
  }

  record(event: SupervisionEvent): void {
    this.ring.push(event);
  }

  get total(): number {
    return this.ring.total;
  }

  list(): SupervisionEvent[] {
    return this.ring.list();
  }
}
