/**
 * The reflector never copies a host ServiceAccount token to the remote cluster: a pod referencing
 * one is refused as invalid input (so the pod actor annotates it and records an Event), and
 * nothing is written remotely. A copy deleted in the remote cluster comes back whenever the
 * deletion happened relative to the watches starting. Fake cluster clients and watches.
 */
import { ApiException } from '@kubernetes/client-node';
import t, { type Test as Tap } from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { eventReasonOf, providerKindOf } from '../../../../src/providers/errors.js';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { Reflector } from '../../../../src/providers/kubernetes/configReflection/configReflector.js';
import { asCalled, audited, configMapWorld, offloaded, silentLog, type ConfigMapWorld, type FakeWatch } from './configMapWorld.js';
import { remoteCopy, type HostObject } from '../../../../src/providers/kubernetes/configReflection/reflectedObject.js';
import { ManualClock } from '../../../support/manualClock.js';
import { drain } from '../../../support/until.js';
import type { Operation } from '../../../../src/adapters/kubernetes/operation.js';

function fakeCluster(secrets: Record<string, object>, writes: string[]): ClusterClient {
  const core = {
    readNamespacedSecret: async ({ name }: { name: string }) => secrets[name] ?? Promise.reject(new ApiException(404, 'not found', JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound' }), {})),
    createNamespacedSecret: async ({ namespace, body }: { namespace: string; body: { metadata: { name: string } } }) => {
      writes.push(`${namespace}/${body.metadata.name}`);
      return body;
    },
  };
  return { call: (_p: string, op: Operation, fn: (c: typeof core) => Promise<unknown>) => asCalled(op, () => fn(core)) } as unknown as ClusterClient;
}


function podWithSecretVolume(secretName: string): Pod {
  return {
    metadata: { name: 'p', namespace: 'shop', uid: 'u' },
    spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', secret: { secretName } }] },
  };
}

void t.test('a pod referencing a ServiceAccount token Secret is refused as invalid input; nothing reaches the remote', async (t) => {
  const writes: string[] = [];
  const host = fakeCluster({
    'builder-token': { metadata: { name: 'builder-token', namespace: 'shop' }, type: 'kubernetes.io/service-account-token', data: { token: 'c2VjcmV0' } },
    plain: { metadata: { name: 'plain', namespace: 'shop' }, type: 'Opaque', data: { a: 'eA==' } },
  }, []);
  const reflector = new Reflector({
    host, remote: fakeCluster({}, writes), hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`,
    clock: new ManualClock(), log: silentLog as never,
  });
  const error = await reflector.reflectFor(podWithSecretVolume('builder-token'), 'shop-home').then(() => undefined, (e: unknown) => e);
  t.ok(error, 'refused');
  t.equal(providerKindOf(error), 'invalid-input', 'permanent: the pod is rejected with an annotation and an Event');
  t.match((error as Error).message, /secret shop\/builder-token .* is a ServiceAccount token/);
  t.notMatch((error as Error).message, /c2VjcmV0/, 'the token is not in the message');
  t.same(writes, [], 'nothing written to the remote');

  const ok = await reflector.reflectFor(podWithSecretVolume('plain'), 'shop-home');
  ok.done();
  t.same(writes, ['shop-home/plain'], 'an ordinary Secret is still reflected');
  await reflector.stop();
});


void t.test('a copy deleted remotely before the host watch has listed is written again once it has', async (t) => {
  const world = configMapWorld(t);
  await offloaded(world);
  t.same(world.writes, ['shop-home/app-config=v1'], 'written once before the pod');
  const copies = world.watch('/api/v1/configmaps');
  copies.listed([world.copy]);
  copies.deleted(world.copy); // the host watch has not listed yet: nothing to compare against
  world.watch('/api/v1/namespaces/shop/configmaps').listed([world.source]);
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'shop-home/app-config=v1'], 'put back, although Tether wrote that content before');
  await world.reflector.stop();
});

void t.test('a copy deleted remotely before the copies\' watch has listed is written again by that first list', async (t) => {
  const world = configMapWorld(t);
  await offloaded(world);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([world.source]);
  world.watch('/api/v1/configmaps').listed([]); // the deletion happened before the list: no event for it
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'shop-home/app-config=v1']);
  await world.reflector.stop();
});

void t.test('a copy that both watches show in sync is not written again', async (t) => {
  const world = configMapWorld(t);
  await offloaded(world);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([world.source]);
  world.watch('/api/v1/configmaps').listed([world.copy]);
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1'], 'one write: the first');
  await world.reflector.stop();
});

void t.test('a copy a mutating webhook labels on every write is written once, not again on each of its watch events', async (t) => {
  const world = configMapWorld(t, audited);
  await offloaded(world);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([world.source]);
  const copies = world.watch('/api/v1/configmaps');
  copies.listed([audited(world.copy)]);
  copies.modified(audited(world.copy));
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1'], 'what the remote stored for the write is in sync');
  copies.modified({ ...audited(world.copy), metadata: { ...audited(world.copy).metadata, resourceVersion: '12' }, data: { 'app.conf': 'tampered' } });
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'replace shop-home/app-config=v1 at 12'], 'a real edit is still put back');
  await world.reflector.stop();
});

/** The host object at a new version with new content, and the copy Tether makes of it. */
function changed(world: ConfigMapWorld, value: string, version: string): { source: HostObject; copy: HostObject } {
  const source = { ...world.source, metadata: { ...world.source.metadata, resourceVersion: version }, data: { 'app.conf': value } };
  return { source, copy: remoteCopy('ConfigMap', source, 'shop-home', 'home') };
}

void t.test('a change of a copy the watch holds is one replace at its resourceVersion, not a create that fails first', async (t) => {
  const world = configMapWorld(t);
  await offloaded(world);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([world.source]);
  world.watch('/api/v1/configmaps').listed([world.copy]);
  world.watch('/api/v1/namespaces/shop/configmaps').modified(changed(world, 'v2', '4').source);
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'replace shop-home/app-config=v2 at 10']);
  await world.reflector.stop();
});

/** An offloaded pod's world after both watches have listed: the host source and (as the webhook left it) its copy. */
async function listedWorld(t: Tap, admit: (body: HostObject) => HostObject): Promise<{ world: ConfigMapWorld; hostWatch: FakeWatch; copies: FakeWatch }> {
  const world = configMapWorld(t, admit);
  await offloaded(world);
  const hostWatch = world.watch('/api/v1/namespaces/shop/configmaps');
  const copies = world.watch('/api/v1/configmaps');
  hostWatch.listed([world.source]);
  copies.listed([admit(world.copy)]);
  return { world, hostWatch, copies };
}

void t.test('a watch event of a copy that arrives while its write is in flight does not write it again', async (t) => {
  const { world, hostWatch, copies } = await listedWorld(t, audited);
  let answer!: () => void;
  world.hold(new Promise<void>((resolve) => (answer = resolve)));
  const v2 = changed(world, 'v2', '4');
  hostWatch.modified(v2.source);
  await drain();
  // The remote has stored the write (and the webhook its label); its watch event comes before the answer.
  copies.modified(audited({ ...v2.copy, metadata: { ...v2.copy.metadata, resourceVersion: '11' } }));
  await drain();
  answer();
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'replace shop-home/app-config=v2 at 10'], 'one write for v2');
  await world.reflector.stop();
});

void t.test('a copy the watch still shows at a version older than Tether\'s last write is not judged until the watch catches up', async (t) => {
  const { world, hostWatch, copies } = await listedWorld(t, audited);
  const v2 = changed(world, 'v2', '4');
  hostWatch.modified(v2.source);
  await drain();
  copies.modified(audited(world.copy)); // an old event (resourceVersion 10), delivered after the write was answered (11)
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'replace shop-home/app-config=v2 at 10'], 'not written again on a stale event');
  copies.modified(audited({ ...v2.copy, metadata: { ...v2.copy.metadata, resourceVersion: '11' } }));
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'replace shop-home/app-config=v2 at 10'], 'the write seen back: in sync');
  await world.reflector.stop();
});

void t.test('after a restart, a referenced host ConfigMap whose remote copy is already in sync is not written again (issue 16)', async (t) => {
  for (const order of ['host watch first', 'copies\' watch first'] as const) {
    const world = configMapWorld(t);
    world.reflector.track('shop/p', 'shop', world.pod); // adopted: the pod runs remotely, nothing is created
    const host = world.watch('/api/v1/namespaces/shop/configmaps');
    const copies = world.watch('/api/v1/configmaps');
    if (order === 'host watch first') host.listed([world.source]);
    copies.listed([world.copy]);
    if (order !== 'host watch first') host.listed([world.source]);
    await drain();
    t.same(world.writes, [], `${order}: nothing written`);
    await world.reflector.stop();
  }
});

void t.test('after a restart, a copy in sync is not written when the copies\' watch lists while the remote namespace is being checked', async (t) => {
  let checked: () => void = () => undefined;
  const check = new Promise<void>((resolve) => (checked = resolve));
  const world = configMapWorld(t, undefined, { namespaceUsable: () => check });
  world.reflector.track('shop/p', 'shop', world.pod); // adopted: the pod runs remotely, nothing is created
  const host = world.watch('/api/v1/namespaces/shop/configmaps');
  const copies = world.watch('/api/v1/configmaps');
  host.listed([world.source]); // judged from here on: the namespace check is the first thing it waits for
  await drain();
  copies.listed([world.copy]); // lists while the check is out
  checked();
  await drain();
  t.same(world.writes, [], 'judged on what the watches hold after the check, not on the copy missing before it');
  await world.reflector.stop();
});

void t.test('a host change is written through; a host event that changes nothing the copy carries is not', async (t) => {
  const world = configMapWorld(t);
  await offloaded(world);
  const host = world.watch('/api/v1/namespaces/shop/configmaps');
  const copies = world.watch('/api/v1/configmaps');
  host.listed([world.source]);
  copies.listed([world.copy]);
  host.modified({ ...world.source, metadata: { ...world.source.metadata, resourceVersion: '4', ownerReferences: [] } });
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1'], 'only the write before the pod');
  host.modified({ ...world.source, metadata: { ...world.source.metadata, resourceVersion: '5' }, data: { 'app.conf': 'v2' } });
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'replace shop-home/app-config=v2 at 10']);
  await world.reflector.stop();
});

const at = (object: HostObject, resourceVersion: string): HostObject => ({ ...object, metadata: { ...object.metadata, resourceVersion } });

void t.test('a copy Tether has just re-created is not written again before the watch shows it', async (t) => {
  const { world, hostWatch, copies } = await listedWorld(t, (body) => body);
  copies.deleted(at(world.copy, '10')); // deleted remotely: put back (a create, answered at 11)
  await drain();
  hostWatch.listed([world.source]); // a re-list asks for a repair before the create's 'added' arrives
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'shop-home/app-config=v1'], 'put back once');
  copies.added(at(world.copy, '11'));
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'shop-home/app-config=v1'], 'the echo is in sync');
  await world.reflector.stop();
});

void t.test('a deletion the watch delivers after Tether re-created the copy is not judged', async (t) => {
  const { world, hostWatch, copies } = await listedWorld(t, (body) => body);
  world.deleteRemotely(); // deleted at 11, not yet seen by the watch
  const v2 = changed(world, 'v2', '4');
  hostWatch.modified(v2.source); // the replace at 10 meets 404: created again, at 12
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'shop-home/app-config=v2']);
  copies.deleted(at(world.copy, '11')); // the stale deletion
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'shop-home/app-config=v2'], 'not written again on the stale deletion');
  copies.added(at(v2.copy, '12'));
  await drain();
  t.same(world.writes, ['shop-home/app-config=v1', 'shop-home/app-config=v2'], 'the echo is in sync');
  await world.reflector.stop();
});

void t.test('missing Secrets get virtual-kubelet\'s Event reasons: a mandatory one fails the creation, an optional one is reported and skipped', async (t) => {
  const writes: string[] = [];
  const warned: string[] = [];
  const reflector = new Reflector({
    host: fakeCluster({}, []), remote: fakeCluster({}, writes), hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`,
    clock: new ManualClock(), log: silentLog as never,
    onOptionalMissing: (pod, reason, note) => warned.push(`${pod.metadata?.name}: ${reason}: ${note}`),
  });
  const error = await reflector.reflectFor(podWithSecretVolume('db-password'), 'shop-home').then(() => undefined, (e: unknown) => e);
  t.equal(providerKindOf(error), 'transient', 'retried: the Secret may be created later');
  t.equal(eventReasonOf(error), 'MandatorySecretNotFound');
  t.match((error as Error).message, 'secret shop/db-password not found (referenced by volume "v")');

  const optional = podWithSecretVolume('extra');
  optional.spec!.volumes![0]!.secret!.optional = true;
  (await reflector.reflectFor(optional, 'shop-home')).done();
  t.same(warned, ['p: OptionalSecretNotFound: secret "extra" not found']);
  t.same(writes, [], 'nothing to copy');
  await reflector.stop();
});

void t.test('the reflector hands each request the call\'s options, so a deadline aborts the request itself, not only the wait', async (t) => {
  const options = { middleware: [] };
  const seen: unknown[] = [];
  const through = (core: Record<string, (params: unknown, o: unknown) => Promise<unknown>>) => ({
    call: (_p: string, op: Operation, fn: (c: unknown, o: unknown) => Promise<unknown>) => asCalled(op, () => fn(core, options)),
  });
  const source = { metadata: { name: 'app-config', namespace: 'shop' }, data: { a: 'b' } };
  const host = through({ readNamespacedConfigMap: async (_params, o) => { seen.push(o); return source; } });
  const remote = through({ createNamespacedConfigMap: async (params, o) => { seen.push(o); return (params as { body: unknown }).body; } });
  const reflector = new Reflector({
    host: host as unknown as ClusterClient, remote: remote as unknown as ClusterClient, hostClusterId: 'home',
    remoteNamespaceOf: (ns) => `${ns}-home`, clock: new ManualClock(), log: silentLog as never,
  });
  const pod: Pod = { metadata: { name: 'p', namespace: 'shop', uid: 'u' }, spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', configMap: { name: 'app-config' } }] } };
  (await reflector.reflectFor(pod, 'shop-home')).done();
  t.equal(seen.length, 2, 'a host read and a remote create');
  t.ok(seen.every((o) => o === options), 'both carried the call\'s options');
  await reflector.stop();
});

void t.test('a copy whose namespace check is still out when the reflector stops is not written', async (t) => {
  let checked: () => void = () => undefined;
  const check = new Promise<void>((resolve) => (checked = resolve));
  const world = configMapWorld(t, undefined, { namespaceUsable: () => check });
  world.reflector.track('shop/p', 'shop', world.pod);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([world.source]);
  world.watch('/api/v1/configmaps').listed([]); // the copy is missing: it would be written
  await drain();
  await world.reflector.stop();
  checked();
  await drain();
  t.same(world.writes, [], 'nothing written through a client that is being closed');
});

void t.test('a copy no pod references any more by the end of its namespace check is not written', async (t) => {
  let checked: () => void = () => undefined;
  const check = new Promise<void>((resolve) => (checked = resolve));
  const world = configMapWorld(t, undefined, { namespaceUsable: () => check });
  world.reflector.track('shop/p', 'shop', world.pod);
  world.watch('/api/v1/namespaces/shop/configmaps').listed([world.source]);
  world.watch('/api/v1/configmaps').listed([]);
  await drain();
  world.reflector.untrack('shop/p');
  checked();
  await drain();
  t.same(world.writes, [], 'the sweep owns it now');
  await world.reflector.stop();
});

/** A host whose Secret reads wait until `answer` is called; counts the reads that reached it. */
function heldHost(): { readonly host: ClusterClient; readonly reads: () => number; readonly answer: () => void } {
  let reads = 0;
  let answer = (): void => undefined;
  let gate = new Promise<void>((resolve) => (answer = resolve));
  const core = {
    readNamespacedSecret: async ({ name, namespace }: { name: string; namespace: string }) => {
      reads += 1;
      await gate;
      return { metadata: { name, namespace }, type: 'Opaque', data: { a: 'eA==' } };
    },
  };
  const host = { call: (_p: string, op: Operation, fn: (c: typeof core) => Promise<unknown>) => asCalled(op, () => fn(core)) } as unknown as ClusterClient;
  return {
    host,
    reads: () => reads,
    answer: () => {
      answer();
      gate = new Promise<void>((resolve) => (answer = resolve));
    },
  };
}

void t.test('pods created at once that reference one host Secret share one read of it; a later pod reads it afresh', async (t) => {
  const writes: string[] = [];
  const held = heldHost();
  const reflector = new Reflector({ host: held.host, remote: fakeCluster({}, writes), hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`, clock: new ManualClock(), log: silentLog as never });
  t.teardown(() => reflector.stop());
  const creating = Array.from({ length: 20 }, () => reflector.reflectFor(podWithSecretVolume('plain'), 'shop-home'));
  await drain();
  t.equal(held.reads(), 1, 'twenty creates, one host read in flight');
  held.answer();
  for (const h of await Promise.all(creating)) h.done();
  t.same(writes, ['shop-home/plain'], 'the copy written once');
  const later = reflector.reflectFor(podWithSecretVolume('plain'), 'shop-home');
  await drain();
  t.equal(held.reads(), 2, 'a read that has settled is not a cache: the next pod reads the Secret again');
  held.answer();
  (await later).done();
});

void t.test('a create given up while its host read still waits is answered at once with the reason; the others still get the object', async (t) => {
  const held = heldHost();
  const reflector = new Reflector({ host: held.host, remote: fakeCluster({}, []), hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`, clock: new ManualClock(), log: silentLog as never });
  t.teardown(() => reflector.stop());
  const attempt = new AbortController();
  const givenUp = reflector.reflectFor(podWithSecretVolume('plain'), 'shop-home', attempt.signal);
  const other = reflector.reflectFor(podWithSecretVolume('plain'), 'shop-home');
  await drain();
  attempt.abort(new Error('the provider did not answer the create within 60 s'));
  await t.rejects(givenUp, /within 60 s/, 'the given-up create does not wait for the read');
  held.answer();
  (await other).done();
  t.equal(held.reads(), 1, 'the read the two shared went on for the pod still creating');
});
