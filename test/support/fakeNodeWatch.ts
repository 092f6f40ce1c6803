/**
 * The node's own Node watch, over an in-memory NodeApi: synced once started, `get` reads the
 * store. It never emits changes: a test that deletes the Node tells the node actor itself.
 */
import { Subject } from 'rxjs';
import type { Clock } from '../../src/lib/clock.js';
import type { Node } from '../../src/adapters/kubernetes/model.js';
import type { NodeWatch, NodeWatchEvent } from '../../src/adapters/kubernetes/watch.js';
import { fakeWatchLifecycle } from './fakeWatchLifecycle.js';

export function fakeNodeWatch(read: () => Node | undefined, clock?: Clock): NodeWatch {
  const subject = new Subject<NodeWatchEvent>();
  return { ...fakeWatchLifecycle(subject, clock), events: subject.asObservable(), get: read };
}
