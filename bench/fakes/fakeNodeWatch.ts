/**
 * The node's own Node watch, over an in-memory NodeApi: synced once started, `get` reads the
 * store. Nobody deletes the Node during a bench, so it never emits changes.
 */
import { Subject } from 'rxjs';
import type { Node } from '../../src/adapters/kubernetes/model.js';
import type { NodeWatch, NodeWatchEvent } from '../../src/adapters/kubernetes/watch.js';

export function fakeNodeWatch(read: () => Node | undefined): NodeWatch {
  const subject = new Subject<NodeWatchEvent>();
  let started = false;
  return {
    events: subject.asObservable(),
    start: () => {
      if (started) return;
      started = true;
      queueMicrotask(() => subject.next({ type: 'synced' }));
    },
    stop: () => subject.complete(),
    hasSynced: () => started,
    get: read,
  };
}
