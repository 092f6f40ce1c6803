/**
 * The node's own Node watch, over an in-memory NodeApi: synced once started, `get` reads the
 * store. Nobody deletes the Node during a bench, so it never emits changes.
 */
import { Subject } from 'rxjs';
import { systemClock } from '../../src/adapters/clock.js';
import { LifecycleControl } from '../../src/lib/lifecycle.js';
import type { Node } from '../../src/adapters/kubernetes/model.js';
import type { NodeWatch, NodeWatchEvent } from '../../src/adapters/kubernetes/watch.js';

export function fakeNodeWatch(read: () => Node | undefined): NodeWatch {
  const subject = new Subject<NodeWatchEvent>();
  let started = false;
  const life = new LifecycleControl({ clock: systemClock, release: () => subject.complete() });
  return {
    events: subject.asObservable(),
    ready: life.ready,
    done: life.done,
    start: () => {
      if (started) return;
      started = true;
      queueMicrotask(() => {
        subject.next({ type: 'synced' });
        life.markReady();
      });
    },
    stop: (options) => life.stop(options),
    hasSynced: () => started,
    get: read,
  };
}
