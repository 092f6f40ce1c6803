/**
 * The lifecycle part of an in-memory watch (src/adapters/kubernetes/watch.ts): `start()` lists on
 * the next microtask ('synced', then ready), a second start is a no-op, `stop()` completes the
 * events. The fakes share it so their watches start as the real ones do.
 */
import { systemClock } from '../../src/adapters/clock.js';
import type { Clock } from '../../src/lib/clock.js';
import { LifecycleControl } from '../../src/lib/lifecycle.js';
import type { WatchLifecycle } from '../../src/adapters/kubernetes/watch.js';

/** The part of the watch's Subject the lifecycle drives. */
export interface SyncedSink {
  next(event: { readonly type: 'synced' }): void;
  complete(): void;
}

export function fakeWatchLifecycle(subject: SyncedSink, clock: Clock = systemClock): WatchLifecycle {
  let started = false;
  const life = new LifecycleControl({ clock, release: () => subject.complete() });
  return {
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
  };
}
