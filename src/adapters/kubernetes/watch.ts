import type { Observable } from 'rxjs';
import type { Lifecycle } from '../../lib/lifecycle.js';
import type { Node, Pod } from './model.js';

/** How an object changed. */
export type ChangeType = 'added' | 'updated' | 'deleted';

/**
 * What a pod watch reports. 'synced' follows every successful full list (at start, after each
 * restart, after each resync): from then on, absence from `list()` is meaningful. A failed list
 * is reported as 'error' and never looks like "no pods". 'error' is informational: the watch
 * restarts itself with backoff. A pod recreated under the same name (new UID) is reported as
 * 'deleted' (old) then 'added' (new), never as 'updated'.
 */
export type PodWatchEvent =
  | { readonly type: ChangeType; readonly pod: Pod }
  | { readonly type: 'synced' }
  | { readonly type: 'error'; readonly error: Error };

/** The same as {@link PodWatchEvent}, for the node's own Node object. */
export type NodeWatchEvent =
  | { readonly type: ChangeType; readonly node: Node }
  | { readonly type: 'synced' }
  | { readonly type: 'error'; readonly error: Error };

/**
 * The lifecycle shared by the watches (src/lib/lifecycle.ts): `ready` settles at the first full
 * list, `stop()` stops for good (no more restarts, `events` completes). Contract: events arrive
 * in order on `events`, a hot Observable that never errors; the cache already reflects an event
 * when it is delivered; objects handed out are the cache's own and must not be mutated.
 */
export interface WatchLifecycle extends Lifecycle {
  /** Starts listing and watching. Calling it again is a no-op. */
  start(): void;
  /** True once a full list has succeeded. */
  hasSynced(): boolean;
}

/** Pods bound to one node (`spec.nodeName=<node>`), self-healing (restart, watchdog, resync). */
export interface PodWatch extends WatchLifecycle {
  readonly events: Observable<PodWatchEvent>;
  /** A snapshot of the cache. */
  list(): Pod[];
  get(namespace: string, name: string): Pod | undefined;
}

/** The virtual node's own Node object (`metadata.name=<node>`): learns when someone deletes it. */
export interface NodeWatch extends WatchLifecycle {
  readonly events: Observable<NodeWatchEvent>;
  /** The cached Node; undefined before sync or after it was deleted. */
  get(): Node | undefined;
}
