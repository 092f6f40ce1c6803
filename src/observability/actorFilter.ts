/**
 * The content filters of `/actors` and `/actors/summary`, beside the structural selection of
 * actorQuery.ts: by state, role (kind), a text in the name, namespace or path, having restarted,
 * and a text in the last error. One predicate, so a page's list and its group counts always agree.
 */
import type { ActorSnapshot } from '../runtime/actorRegistry.js';
import { actorState, errorText, type ActorState } from './actorState.js';

export interface ActorFilter {
  /** Any of these states. */
  readonly states?: readonly ActorState[];
  /** Any of these kinds (`pod`, `lease`, `shard`, ...). */
  readonly roles?: readonly string[];
  /** Case-insensitive substring of the name, the pod's namespace/name, or the path. */
  readonly q?: string;
  /** Only actors restarted at least once. */
  readonly restarted?: boolean;
  /** Case-insensitive substring of the error shown; `*` for any error at all. */
  readonly error?: string;
}

export function isEmptyFilter(filter: ActorFilter): boolean {
  return filter.states === undefined && filter.roles === undefined && filter.q === undefined && filter.restarted === undefined && filter.error === undefined;
}

/** The text `q` is matched against: the name, the pod's namespace/name, the path. */
function searchable(snapshot: ActorSnapshot): string {
  const s = snapshot.summary;
  const pod = s && typeof s['name'] === 'string' ? `${String(s['namespace'] ?? '')}/${s['name']}` : '';
  return `${snapshot.name}\u0000${pod}\u0000${snapshot.path}`.toLowerCase();
}

export function matchesFilter(snapshot: ActorSnapshot, filter: ActorFilter): boolean {
  if (filter.roles !== undefined && !filter.roles.includes(snapshot.kind)) return false;
  if (filter.restarted === true && snapshot.restarts === 0) return false;
  if (filter.restarted === false && snapshot.restarts > 0) return false;
  if (filter.states !== undefined && !filter.states.includes(actorState(snapshot))) return false;
  if (filter.q !== undefined && !searchable(snapshot).includes(filter.q.toLowerCase())) return false;
  if (filter.error !== undefined) {
    const error = errorText(snapshot);
    if (error === '') return false;
    if (filter.error !== '*' && !error.toLowerCase().includes(filter.error.toLowerCase())) return false;
  }
  return true;
}
