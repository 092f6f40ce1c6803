/**
 * The last messages handled and effects started, process-wide, in one fixed ring: an actor's
 * detail view filters it by path. One ring for all actors rather than one per actor, so 100,000
 * pod actors cost nothing more than the ring's fixed size; the price is that a busy process keeps
 * less of a quiet actor's past. Only the `type` of a message or effect is kept, never its
 * payload, so nothing of a pod spec (and no Secret) ever lands here.
 */
import { Ring } from '../lib/ring.js';

export interface TraceEntry {
  readonly at: number;
  readonly path: string;
  readonly what: 'message' | 'effect';
  readonly type: string;
}

export const TRACE_CAPACITY = 4_096;

/** The `type` of a discriminated-union value, or its constructor's name, or its typeof. */
export function typeOf(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const type = (value as { type?: unknown }).type;
    if (typeof type === 'string') return type;
    return value.constructor?.name ?? 'object';
  }
  return typeof value;
}

export class MessageTrace {
  private readonly ring = new Ring<TraceEntry>(TRACE_CAPACITY);

  record(at: number, path: string, what: TraceEntry['what'], value: unknown): void {
    this.ring.push({ at, path, what, type: typeOf(value) });
  }

  /** The last `limit` entries of one actor, oldest first. */
  of(path: string, limit = 32): TraceEntry[] {
    return this.ring.list().filter((e) => e.path === path).slice(-limit);
  }
}
