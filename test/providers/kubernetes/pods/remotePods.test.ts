/**
 * The remote pods of a virtual node turned into the provider's notifications by the
 * `remote-pods` reconciler, run as the node's subtree runs it, over a list-watch the test drives:
 * what each change notifies, one pod's notifications in order (also as a property over any
 * sequence of changes), and a crash of the loop that loses nothing.
 */
import fc from 'fast-check';
import t, { type Test as Tap } from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { RemotePods, remotePodDeletedMessage } from '../../../../src/providers/kubernetes/pods/remotePods.js';
import type { Reconciler } from '../../../../src/lib/reconcile.js';
import type { PodNotification } from '../../../../src/providers/provider.js';
import type { ActorSystem } from '../../../../src/supervisors/actorSystem.js';
import { FakeListWatch } from '../../../support/fakeListWatch.js';
import { ManualClock } from '../../../support/manualClock.js';
import { loopPath, runLoops } from '../../../support/runningLoops.js';
import { drain, until } from '../../../support/until.js';

const silentLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const path = loopPath('remote-pods');

/** A remote pod of host pod shop/<name> (host uid `host-<uid>`), Tether's for node vk-1 of host home. */
function remotePod(name: string, uid: string, resourceVersion: string, phase = 'Running', namespace = 'shop-home'): Pod {
  return {
    metadata: {
      name, namespace, uid, resourceVersion,
      labels: { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home', 'tether.dev/virtual-node': 'vk-1' },
      annotations: { 'tether.dev/host-namespace': 'shop', 'tether.dev/host-name': name, 'tether.dev/host-uid': `host-${uid}` },
    },
    spec: { containers: [{ name: 'app', image: 'x' }] },
    status: { phase },
  };
}

interface World {
  pods: RemotePods;
  watch: FakeListWatch<Pod>;
  seen: PodNotification[];
  clock: ManualClock;
}

function world(): World {
  let watch: FakeListWatch<Pod> | undefined;
  const clock = new ManualClock();
  const pods = new RemotePods({
    remote: { core: {}, limiter: {} } as unknown as ClusterClient,
    nodeName: 'vk-1', clock, log: silentLog, view: {},
    rule: { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespaceOf: (ns) => `${ns}-home` },
    watchFactory: (o) => (watch = new FakeListWatch<Pod>(o.path)),
  });
  const seen: PodNotification[] = [];
  pods.setCallback((n) => seen.push(n));
  pods.start();
  return { pods, watch: watch!, seen, clock };
}

/** As the node's subtree does; resolves once the loop listens. */
const runLoop = (t: Tap, w: World, loop: Reconciler = w.pods.reconciler()): Promise<ActorSystem> => runLoops(t, [loop], w.clock);

/** One line per notification: `<host uid> status <phase>` or `<host uid> gone <reason>`. */
const lines = (seen: readonly PodNotification[]): string[] => seen.map((n) =>
  n.type === 'status' ? `${n.pod.metadata?.uid} status ${n.pod.status?.phase}` : `${n.uid} gone ${n.reason}`);

void t.test('a remote pod that appears or changes is notified as its host pod; an unchanged one is not notified again', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.watch.listed([remotePod('web', 'u1', '1', 'Pending')]);
  await until('the listed pod', () => w.seen.length === 1);
  w.watch.modified(remotePod('web', 'u1', '2'));
  await until('the change', () => w.seen.length === 2);
  t.same(lines(w.seen), ['host-u1 status Pending', 'host-u1 status Running']);
  t.match(w.seen[1], { type: 'status', pod: { metadata: { namespace: 'shop', name: 'web', uid: 'host-u1' } } });
  w.watch.listed([remotePod('web', 'u1', '2')]); // a re-list that finds nothing new
  w.clock.advance(5 * 60_000); // and the loop's resync
  await drain(20);
  t.equal(w.seen.length, 2);
});

void t.test('a remote pod deleted outside Tether is gone; one deleted on request ends with a terminal status', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.watch.listed([remotePod('web', 'u1', '1'), remotePod('job', 'u2', '1')]);
  await until('both listed', () => w.seen.length === 2);
  w.watch.deleted(remotePod('web', 'u1', '2'));
  await until('web gone', () => w.seen.length === 3);
  t.match(w.seen[2], { type: 'gone', namespace: 'shop', name: 'web', uid: 'host-u1', reason: 'RemotePodDeleted', message: remotePodDeletedMessage });
  w.pods.markDeleting('shop-home', 'job', 'u2');
  w.watch.deleted(remotePod('job', 'u2', '2'));
  await until('job ended', () => w.seen.length === 4);
  t.match(w.seen[3], { type: 'status', pod: { metadata: { uid: 'host-u2' }, status: { phase: 'Failed', reason: 'Terminated' } } });
});

void t.test('changes that pile up are coalesced, and one pod\'s notifications keep their order: its end comes last', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.watch.listed([remotePod('web', 'u1', '1', 'Pending')]);
  await until('listed', () => w.seen.length === 1);
  // All at once, before the loop runs again: updates, a deletion, the same name created again.
  w.watch.modified(remotePod('web', 'u1', '2'));
  w.watch.modified(remotePod('web', 'u1', '3', 'Failed'));
  w.watch.deleted(remotePod('web', 'u1', '4', 'Failed'));
  w.watch.added(remotePod('web', 'u9', '5', 'Pending'));
  await until('the old pod ended and the new one reported', () => w.seen.length === 3);
  t.same(lines(w.seen), ['host-u1 status Pending', 'host-u1 gone RemotePodDeleted', 'host-u9 status Pending']);
});

void t.test('a remote pod that is not Tether\'s (its marks copied into another namespace) is never notified', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.watch.listed([remotePod('web', 'u1', '1', 'Running', 'elsewhere'), remotePod('ok', 'u2', '1')]);
  await until('the owned one', () => w.seen.length === 1);
  w.watch.deleted(remotePod('web', 'u1', '2', 'Running', 'elsewhere'));
  w.clock.advance(5 * 60_000);
  await drain(20);
  t.same(lines(w.seen), ['host-u2 status Running']);
  t.equal(w.pods.ignoredCount(), 1);
});

void t.test('a crash of the loop is restarted by its supervisor, and what changed meanwhile is still notified', async (t) => {
  const w = world();
  const loop = w.pods.reconciler();
  let crashes = 0;
  const crashing: Reconciler = { ...loop, reconcile: (key, ctx) => (key === 'shop-home/bug' && crashes++ === 0 ? Promise.reject(new Error('a bug')) : loop.reconcile(key, ctx)) };
  const sys = await runLoop(t, w, crashing);
  w.watch.listed([remotePod('web', 'u1', '1'), remotePod('gone', 'u3', '1')]);
  await until('listed', () => w.seen.length === 2);
  w.watch.added(remotePod('bug', 'u2', '1'));
  await until('crashed', () => sys.registry.get(path)?.snapshot().status === 'restarting');
  // While it is down: events are dropped, the cache still changes.
  w.watch.modified(remotePod('web', 'u1', '2', 'Succeeded'));
  w.watch.deleted(remotePod('gone', 'u3', '2'));
  w.clock.advance(60_000); // the restart's backoff
  await until('everything after the restart', () => w.seen.length === 5);
  t.same(lines(w.seen).slice(2).sort(), ['host-u1 status Succeeded', 'host-u2 status Running', 'host-u3 gone RemotePodDeleted']);
  t.match(sys.registry.get(path)?.snapshot(), { restarts: 1, status: 'running' });
});

type Step = { readonly type: 'update' | 'delete' | 'recreate' | 'reconcile' };

void t.test('property: over any sequence of changes and reconciles, each host pod gets statuses then at most one end, and the last state is reported', async (t) => {
  const step = fc.constantFrom<Step>({ type: 'update' }, { type: 'delete' }, { type: 'recreate' }, { type: 'reconcile' });
  await fc.assert(fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
    const w = world();
    const loop = w.pods.reconciler();
    const ctx = { signal: new AbortController().signal, failures: 0 };
    let generation = 0;
    let version = 0;
    let current: Pod | undefined = remotePod('web', 'u0', '0');
    w.watch.listed([current]);
    for (const s of steps) {
      if (s.type === 'reconcile') await loop.reconcile('shop-home/web', ctx);
      else if (s.type === 'update' && current) w.watch.modified((current = remotePod('web', `u${generation}`, String(++version))));
      else if (s.type === 'delete' && current) {
        w.watch.deleted(current);
        current = undefined;
      } else if (s.type === 'recreate' && !current) w.watch.added((current = remotePod('web', `u${++generation}`, String(++version))));
    }
    await loop.reconcile('shop-home/web', ctx);
    const byUid = new Map<string, string[]>();
    for (const n of w.seen) {
      const uid = (n.type === 'status' ? n.pod.metadata?.uid : n.uid) ?? '';
      byUid.set(uid, [...(byUid.get(uid) ?? []), n.type]);
    }
    for (const [uid, kinds] of byUid) {
      const end = kinds.indexOf('gone');
      if (end !== -1 && end !== kinds.length - 1) throw new Error(`${uid} notified after its end: ${kinds.join(',')}`);
    }
    const uids = w.seen.map((n) => (n.type === 'status' ? n.pod.metadata?.uid : n.uid));
    const firstSeen = [...new Set(uids)];
    for (let i = 1; i < firstSeen.length; i++) {
      const before = byUid.get(firstSeen[i - 1] ?? '') ?? [];
      if (before.at(-1) !== 'gone') throw new Error(`a successor was reported before ${firstSeen[i - 1]} ended`);
    }
    const last = w.seen.at(-1);
    if (current) {
      if (last?.type !== 'status' || last.pod.metadata?.uid !== `host-${current.metadata?.uid}`) throw new Error('the pod in the cache is not the last reported');
    } else if (last && last.type !== 'gone') throw new Error('a deleted pod was not ended');
  }), { numRuns: 200 });
  t.pass('held for every sequence');
});

void t.test('what deletePod asked for is forgotten once the pod goes, or if it was never there: the map stays bounded', async (t) => {
  const w = world();
  await runLoop(t, w);
  w.watch.listed([remotePod('web', 'u1', '1')]);
  await until('listed', () => w.seen.length === 1);
  w.pods.markDeleting('shop-home', 'web', 'u1');
  w.watch.deleted(remotePod('web', 'u1', '2'));
  await until('its end', () => w.seen.length === 2);
  // Pods already gone when deletePod ran (the delete answered 404 or 409): never seen again.
  for (let i = 0; i < 50; i++) w.pods.markDeleting('shop-home', `gone-${i}`, `g${i}`);
  await until('nothing is remembered about pods that are not there', () => w.pods.pendingDeletions() === 0);
  t.equal(w.pods.pendingDeletions(), 0);
});
