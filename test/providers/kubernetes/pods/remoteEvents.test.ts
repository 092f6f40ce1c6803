/**
 * Remote Events reflected to host pods by the `remote-events` reconciler, run as the node's
 * subtree runs it, over list-watches the test drives: which namespaces are watched, what is
 * history, what is passed on (once per version), and a crash of the loop that loses nothing and
 * repeats nothing.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import t, { type Test as Tap } from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import type { Reconciler } from '../../../../src/lib/reconcile.js';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { RemoteEvents } from '../../../../src/providers/kubernetes/pods/remoteEvents.js';
import type { CachedListWatchOptions } from '../../../../src/adapters/kubernetes/cachedListWatch.js';
import type { ActorSystem } from '../../../../src/supervisors/actorSystem.js';
import { FakeListWatch } from '../../../support/fakeListWatch.js';
import { ManualClock } from '../../../support/manualClock.js';
import { loopPath, runLoops } from '../../../support/runningLoops.js';
import { drain, until } from '../../../support/until.js';

const silentLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const treePath = loopPath('remote-events');
const since = 1_700_000_000_000;

function remotePod(name: string, uid: string): Pod {
  return { metadata: { name, namespace: 'shop-home', uid, annotations: { 'tether.dev/host-namespace': 'shop', 'tether.dev/host-name': name, 'tether.dev/host-uid': `host-${uid}` } } };
}

/** An Event `name` about pod `pod` (uid `podUid`) at version `rv`, last seen at `at`; its message is its name unless given. */
function event(name: string, [pod, podUid]: readonly [string, string], resourceVersion: string, at: number, message = name): CoreV1Event {
  return {
    metadata: { name, namespace: 'shop-home', resourceVersion },
    involvedObject: { kind: 'Pod', name: pod, uid: podUid },
    reason: 'Pulled', message, type: 'Normal', lastTimestamp: new Date(at),
  };
}

interface World {
  events: RemoteEvents;
  watches: Map<string, FakeListWatch<CoreV1Event>>;
  /** The options each namespace's watch was built with. */
  options: Map<string, CachedListWatchOptions<CoreV1Event>>;
  passed: string[];
  pods: Map<string, Pod>;
  clock: ManualClock;
}

function world(): World {
  const clock = new ManualClock(since + 1000);
  const watches = new Map<string, FakeListWatch<CoreV1Event>>();
  const options = new Map<string, CachedListWatchOptions<CoreV1Event>>();
  const pods = new Map<string, Pod>([['web', remotePod('web', 'u1')]]);
  const passed: string[] = [];
  const events = new RemoteEvents({
    remote: {} as unknown as ClusterClient, clock, log: silentLog, since,
    podOf: (_ns, name) => pods.get(name),
    onEvent: (ref, type, reason, note) => passed.push(`${ref.namespace}/${ref.name}/${ref.uid} ${type} ${reason} ${note}`),
    watchFactory: (o) => {
      const watch = new FakeListWatch<CoreV1Event>(o.path);
      watches.set(o.path, watch);
      options.set(o.path, o);
      return watch;
    },
  });
  return { events, watches, options, passed, pods, clock };
}

const runLoop = (t: Tap, w: World, loop: Reconciler = w.events.reconciler()): Promise<ActorSystem> => runLoops(t, [loop], w.clock);

const path = '/api/v1/namespaces/shop-home/events';

void t.test('a remote namespace is watched while it holds pods of this node, and no longer once the last one goes', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.events.podAppeared('shop-home', 'web');
  w.events.podAppeared('shop-home', 'api');
  await until('watched', () => w.watches.get(path)?.started === true);
  w.events.podGone('shop-home', 'web');
  await drain(10);
  t.equal(w.watches.get(path)?.stopped, false, 'one pod is left');
  w.events.podGone('shop-home', 'api');
  await until('unwatched', () => w.watches.get(path)?.stopped === true);
});

void t.test('the first list\'s old Events are history; newer ones, later ones and each change are passed on once, about this node\'s pods only', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.events.podAppeared('shop-home', 'web');
  await until('watched', () => w.watches.has(path));
  const watch = w.watches.get(path)!;
  watch.listed([event('old', ['web', 'u1'], '1', since - 1), event('new', ['web', 'u1'], '2', since + 1)]);
  await until('the new one', () => w.passed.length === 1);
  t.same(w.passed, ['shop/web/host-u1 Normal Pulled remote: new']);
  watch.added(event('later', ['web', 'u1'], '3', since - 5_000)); // after the first list, its age does not matter
  watch.added(event('stranger', ['web', 'other-uid'], '4', since + 2)); // same name, another pod
  watch.added(event('unknown', ['db', 'u7'], '5', since + 2)); // not a pod of this node
  await until('the later one', () => w.passed.length === 2);
  watch.modified(event('old', ['web', 'u1'], '6', since + 3, 'old again')); // its count grew
  await until('the change', () => w.passed.length === 3);
  watch.listed(watch.list()); // a re-list that finds nothing new
  w.clock.advance(5 * 60_000); // and the loop's resync
  await drain(20);
  t.same(w.passed.slice(1), ['shop/web/host-u1 Normal Pulled remote: later', 'shop/web/host-u1 Normal Pulled remote: old again']);
});

void t.test('a crash of the loop is restarted by its supervisor: an Event that came meanwhile is passed on, and none is repeated', async (t) => {
  const w = world();
  const loop = w.events.reconciler();
  let crash = false;
  const crashing: Reconciler = { ...loop, reconcile: (key, ctx) => (crash ? ((crash = false), Promise.reject(new Error('a bug'))) : loop.reconcile(key, ctx)) };
  const sys = await runLoop(t, w, crashing);
  w.events.podAppeared('shop-home', 'web');
  await until('watched', () => w.watches.has(path));
  const watch = w.watches.get(path)!;
  watch.listed([event('first', ['web', 'u1'], '1', since + 1)]);
  await until('the first', () => w.passed.length === 1);
  crash = true;
  watch.added(event('second', ['web', 'u1'], '2', since + 2));
  await until('crashed', () => sys.registry.get(treePath)?.snapshot().status === 'restarting');
  watch.added(event('third', ['web', 'u1'], '3', since + 3)); // while it is down
  w.clock.advance(60_000); // the restart's backoff
  await until('both after the restart', () => w.passed.length === 3);
  await drain(20);
  t.same(w.passed.map((p) => p.split(' ').at(-1)), ['first', 'second', 'third']);
  t.match(sys.registry.get(treePath)?.snapshot(), { restarts: 1, status: 'running' });
});

void t.test('an Event without involvedObject.uid, or with another uid, is dropped and counted: anyone may create Events in the remote namespace', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.events.podAppeared('shop-home', 'web');
  await until('watched', () => w.watches.has(path));
  const watch = w.watches.get(path)!;
  const forged = event('forged', ['web', ''], '2', since + 1, 'Warning you did not earn');
  watch.listed([{ ...forged, involvedObject: { kind: 'Pod', name: 'web' } }, event('other', ['web', 'u9'], '3', since + 1)]);
  watch.added(event('real', ['web', 'u1'], '4', since + 2));
  await until('the real one', () => w.passed.length === 1);
  t.same(w.passed, ['shop/web/host-u1 Normal Pulled remote: real'], 'only the Event naming the remote pod\'s uid');
  t.equal(w.events.droppedCount(), 2, 'the two others are counted');
});

void t.test('the namespace watch keeps of each Event only what reflecting it reads: at 10k pods the whole Events were 61 MiB of heap', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.events.podAppeared('shop-home', 'web');
  await until('watched', () => w.options.has(path));
  const transform = w.options.get(path)?.transform;
  t.ok(transform, 'the watch is built with a transform');
  const full: CoreV1Event = {
    ...event('e1', ['web', 'u1'], '7', since + 1, 'pulled image'),
    metadata: { name: 'e1', namespace: 'shop-home', resourceVersion: '7', uid: 'eu', managedFields: [{ manager: 'kubelet', operation: 'Update' }], creationTimestamp: new Date(since) },
    involvedObject: { kind: 'Pod', name: 'web', uid: 'u1', namespace: 'shop-home', apiVersion: 'v1', resourceVersion: '99', fieldPath: 'spec.containers{c}' },
    source: { component: 'kubelet', host: 'w1' }, reportingComponent: 'kubelet', reportingInstance: 'w1', count: 3, firstTimestamp: new Date(since - 5), action: 'Pull',
  };
  t.same(transform?.(full), {
    metadata: { name: 'e1', namespace: 'shop-home', resourceVersion: '7', creationTimestamp: new Date(since) },
    involvedObject: { name: 'web', uid: 'u1' },
    type: 'Normal', reason: 'Pulled', message: 'pulled image', lastTimestamp: new Date(since + 1), firstTimestamp: new Date(since - 5),
  });
});

void t.test('after the first list, an Event that comes costs a look at that Event only, not a pass over the namespace\'s cache (at 10k pods, ~40k Events)', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.events.podAppeared('shop-home', 'web');
  await until('watched', () => w.watches.has(path));
  const watch = w.watches.get(path)!;
  let listed = 0;
  const list = watch.list.bind(watch);
  watch.list = () => (listed++, list());
  watch.listed(Array.from({ length: 2_000 }, (_, i) => event(`old-${i}`, ['web', 'u1'], String(i + 1), since - 1)));
  await until('the first list handled', () => listed >= 1);
  await drain(20);
  const afterFirst = listed;
  for (let i = 0; i < 50; i++) watch.added(event(`new-${i}`, ['web', 'u1'], String(5_000 + i), since + 1));
  await until('the new ones passed on', () => w.passed.length === 50);
  watch.modified(event('old-7', ['web', 'u1'], '9000', since + 2, 'old-7 again'));
  watch.deleted(event('old-8', ['web', 'u1'], '9001', since + 2));
  await until('the change passed on', () => w.passed.length === 51);
  t.equal(listed, afterFirst, 'no whole-namespace pass after the first list');
  t.equal(w.passed[50], 'shop/web/host-u1 Normal Pulled remote: old-7 again');
  watch.listed(watch.list()); // a re-list: a whole pass again, that repeats nothing
  await drain(20);
  t.equal(w.passed.length, 51);
});
