/**
 * The Service reflector's bookkeeping of namespaces with offloaded pods, on a manual clock: a
 * namespace whose last pod went keeps its copies for `lingerMs` (a Deployment replacing all its
 * pods at once keeps its Services), a pod coming back in time cancels the release, and with the
 * `none` switch nothing is tracked. The clusters are a mock API server that lists nothing.
 */
import t, { type Test } from 'tap';
import type { Service } from '../../../../src/adapters/kubernetes/model.js';
import { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { desiredObjects, REFLECTED_KINDS, type ReflectedKind } from '../../../../src/providers/kubernetes/serviceReflection/servicePlan.js';
import { ServiceReflector } from '../../../../src/providers/kubernetes/serviceReflection/serviceReflector.js';
import { MockApiServer } from '../../../adapters/kubernetes/mockApiServer.js';
import { ManualClock } from '../../../support/manualClock.js';
import { drain, until } from '../../../support/until.js';
import { runReconcilers } from '../../../support/reconcilers.js';

const silentLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A started Service reflector (Services only) for node vk-1 of host cluster `home`, on `server` as both clusters. */
function startedOn(t: Test, server: MockApiServer, events: string[] = [], namespaceUsable?: (remoteNamespace: string, hostNamespace: string) => Promise<void>): { reflector: ServiceReflector; clock: ManualClock } {
  const clock = new ManualClock();
  const client = new ClusterClient(server.kubeConfig(), { clock });
  t.teardown(() => client.stop());
  const r = new ServiceReflector({
    host: client, remote: client, marks: { hostClusterId: 'home', nodeName: 'vk-1' }, kinds: new Set(['Service'] as const),
    remoteNamespaceOf: (ns) => `${ns}-home`, lookup: () => undefined,
    events: { record: (about, type, reason, note) => events.push(`${about.name} ${type} ${reason}: ${note}`) },
    clock, log: silentLog, lingerMs: 30_000, ...(namespaceUsable ? { namespaceUsable } : {}),
  });
  t.teardown(() => r.stop());
  runReconcilers(t, r.reconcilers(), clock); // as the node's subtree runs them
  r.start();
  r.podsSynced();
  r.podAppeared('shop/web-1', 'shop');
  return { reflector: r, clock };
}

async function reflector(t: Test, kinds: readonly ReflectedKind[] = REFLECTED_KINDS): Promise<{ reflector: ServiceReflector; clock: ManualClock }> {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'GET' && r.url.searchParams.get('watch') !== 'true' ? { body: { metadata: { resourceVersion: '1' }, items: [] } } : 'hang'));
  const clock = new ManualClock();
  const client = new ClusterClient(server.kubeConfig(), { clock });
  t.teardown(() => client.stop());
  const r = new ServiceReflector({
    host: client, remote: client, marks: { hostClusterId: 'home', nodeName: 'vk-1' }, kinds: new Set(kinds),
    remoteNamespaceOf: (ns) => `${ns}-home`, lookup: () => undefined, events: { record: () => undefined },
    clock, log: silentLog, lingerMs: 30_000,
  });
  t.teardown(() => r.stop());
  runReconcilers(t, r.reconcilers(), clock);
  return { reflector: r, clock };
}

const tracked = (r: ServiceReflector): Record<string, number> => Object.fromEntries(r.state().map((s) => [s.namespace, s.offloadedPods]));

t.test('the last pod gone: the namespace lingers for lingerMs, then is released', async (t) => {
  const { reflector: r, clock } = await reflector(t);
  r.podAppeared('shop/web-1', 'shop');
  r.podAppeared('shop/web-2', 'shop');
  t.same(tracked(r), { shop: 2 });
  r.podGone('shop/web-1', 'shop');
  r.podGone('shop/web-2', 'shop');
  const goneAt = clock.now();
  clock.advance(29_999);
  t.same(tracked(r), { shop: 0 }, 'still reflected just before lingerMs');
  t.equal(r.state()[0]?.releasesAt, goneAt + 30_000, 'the release is due lingerMs after the last pod went');
  r.podAppeared('shop/web-3', 'shop');
  clock.advance(60_000);
  t.same(tracked(r), { shop: 1 }, 'a pod back in time cancels the release');
  t.equal(r.state()[0]?.releasesAt, undefined);
  r.podGone('shop/web-3', 'shop');
  clock.advance(30_000);
  // Shown while it has pods or copies (a pass deletes them); this one had none left to delete.
  t.same(tracked(r), {}, 'released at lingerMs');
});

t.test('with the none switch nothing is tracked', async (t) => {
  const { reflector: r } = await reflector(t, []);
  t.notOk(r.enabled);
  r.podAppeared('shop/web-1', 'shop');
  t.same(r.state(), []);
});

t.test('a Service the remote refuses (422) is reported on the host Service and skipped; the others are still reflected', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const service = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: '5' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }], ...extra },
  });
  const created: string[] = [];
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/services') {
      return { body: { metadata: { resourceVersion: '5' }, items: [service('a-dual', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] }), service('b-plain')] } };
    }
    if (r.method === 'GET') return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    if (r.method === 'POST' && r.url.pathname === '/api/v1/namespaces/shop-home/services') {
      const body = JSON.parse(r.body) as { metadata: { name: string } };
      if (body.metadata.name === 'a-dual') {
        return { status: 422, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 422, reason: 'Invalid', message: 'Service "a-dual" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services' } };
      }
      created.push(body.metadata.name);
      return { status: 201, body };
    }
    return undefined;
  });
  const events: string[] = [];
  const { reflector: r, clock } = startedOn(t, server, events);
  await until('b-plain reflected past the refused a-dual', () => {
    clock.advance(50);
    return created.includes('b-plain');
  }, 10_000);
  await until('the refusal reported on the host Service', () => events.length > 0, 10_000);
  t.match(events[0], /^a-dual Warning ReflectionRejected: .*spec\.ipFamilyPolicy/);
  t.equal(r.state()[0]?.lastError, undefined, 'a refusal is an answer, not a failing pass retried for ever');
});

t.test('a remote namespace that is not Tether\'s (squatted) gets no Service: the pass fails saying why, and writes once it may', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const hostService = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', resourceVersion: '5' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/services') return { body: { metadata: { resourceVersion: '5' }, items: [hostService] } };
    if (r.method === 'GET') return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    if (r.method === 'POST') return { status: 201, body: JSON.parse(r.body) as unknown };
    return undefined;
  });
  let squatted = true;
  const checked: string[] = [];
  const { reflector: r, clock } = startedOn(t, server, [], async (remoteNamespace, hostNamespace) => {
    checked.push(`${hostNamespace}->${remoteNamespace}`);
    if (squatted) throw new Error(`remote namespace ${remoteNamespace} exists and was not created by Tether for host cluster home`);
  });
  await until('the pass fails on the namespace check', () => {
    clock.advance(50);
    return /was not created by Tether/.test(r.state()[0]?.lastError ?? '');
  }, 10_000);
  t.same([...new Set(checked)], ['shop->shop-home'], 'the mapped namespace is checked');
  t.same(server.requests.filter((q) => q.method !== 'GET').map((q) => `${q.method} ${q.url.pathname}`), [], 'nothing written into it');
  squatted = false; // deleted, or listed in adoptNamespaces
  await until('reflected at a retry', () => {
    clock.advance(1_000);
    return server.requests.some((q) => q.method === 'POST' && q.url.pathname === '/api/v1/namespaces/shop-home/services');
  }, 10_000);
  await until('the pass no longer failing', () => r.state()[0]?.lastError === undefined, 10_000);
});

type Stored = { metadata: Record<string, unknown> & { labels?: Record<string, string> }; spec: Record<string, unknown> };

/**
 * One host Service `web`, reflected once: the remote stores each write (at resourceVersion 9,
 * with an allocated clusterIP, and whatever `admit` adds) and the copies' watch is open.
 */
async function writtenOnce(t: Test, admit: (labels: Record<string, string>) => Record<string, string> = (labels) => labels) {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const hostService = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', resourceVersion: '5' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
  let stored: Stored | undefined;
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return r.url.pathname === '/api/v1/services' ? 'watch' : 'hang';
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/services') return { body: { metadata: { resourceVersion: '5' }, items: [hostService] } };
    if (r.method === 'GET') return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    if (r.method === 'POST' || r.method === 'PUT') {
      const body = JSON.parse(r.body) as Stored;
      stored = { ...body, metadata: { ...body.metadata, uid: 'remote-uid', resourceVersion: '9', labels: admit(body.metadata.labels ?? {}) }, spec: { ...body.spec, clusterIP: '10.0.0.9' } };
      return { status: r.method === 'POST' ? 201 : 200, body: stored };
    }
    return undefined;
  });
  const writes = (): number => server.requests.filter((r) => r.method === 'POST' || r.method === 'PUT').length;
  const { reflector, clock } = startedOn(t, server);
  await until('the copy written', () => {
    clock.advance(50);
    return writes() === 1;
  }, 10_000);
  await until('the copies\' watch open', () => server.watches.some((w) => w.url.pathname === '/api/v1/services'), 10_000);
  const seen = async (object: unknown): Promise<void> => {
    for (const w of server.watches) if (w.url.pathname === '/api/v1/services') w.send('ADDED', object);
    await until('the copy seen', () => reflector.state()[0]?.services === 1, 10_000);
    for (let i = 0; i < 10; i++) { // the coalescing delay and a pass, had the event made one
      clock.advance(50);
      await drain();
    }
  };
  const send = (type: string, object: unknown): void => {
    for (const w of server.watches) if (w.url.pathname === '/api/v1/services') w.send(type, object);
  };
  return { stored: (): Stored => stored as Stored, writes, seen, send, reflector, clock };
}

t.test('a copy a mutating webhook labels on every write is written once, not again on each of its watch events', async (t) => {
  // The remote's admission chain adds a label of its own to whatever is written.
  const { stored, writes, seen } = await writtenOnce(t, (labels) => ({ ...labels, 'policy.example/audited': 'true' }));
  await seen(stored());
  t.equal(writes(), 1, 'what the remote stored for the write is in sync: no second write');
});

/**
 * Host Service `web` wanted by vk-1 while the sibling node vk-2 (same host cluster) holds its copy
 * in the shared remote namespace; `siblingPods` says whether vk-2 still has pods of `shop` there,
 * `ownPods` whether vk-1 has (its pods moved here; without, it is lingering after its own went).
 * The remote stores a PUT, and lists and watches by label selector as the API server does.
 */
async function heldBySibling(t: Test, siblingPods: boolean, ownPods = true) {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const hostService = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', resourceVersion: '5' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
  const sibling = {
    metadata: {
      name: 'web', namespace: 'shop-home', uid: 'sibling-uid', resourceVersion: '7',
      labels: { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home', 'tether.dev/virtual-node': 'vk-2' },
      annotations: { 'tether.dev/host-namespace': 'shop' },
    },
    spec: { type: 'ClusterIP', ports: [{ port: 80 }], clusterIP: '10.0.0.7' },
  };
  const siblingPod = { metadata: { name: 'web-2', namespace: 'shop-home', labels: { 'tether.dev/virtual-node': 'vk-2' }, annotations: { 'tether.dev/host-namespace': 'shop' } } };
  const ownPod = { metadata: { name: 'web-1', namespace: 'shop-home', labels: { 'tether.dev/virtual-node': 'vk-1' }, annotations: { 'tether.dev/host-namespace': 'shop' } } };
  const world: { copy: typeof sibling | undefined } = { copy: sibling };
  const selects = (url: URL, labels: Record<string, string>): boolean =>
    (url.searchParams.get('labelSelector') ?? '').split(',').filter(Boolean).every((term) => {
      const [k, v] = term.split('=');
      return labels[k ?? ''] === v;
    });
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return r.url.pathname === '/api/v1/services' ? 'watch' : 'hang';
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/services') return { body: { metadata: { resourceVersion: '5' }, items: [hostService] } };
    if (r.method === 'GET' && r.url.pathname === '/api/v1/services') {
      return { body: { metadata: { resourceVersion: '7' }, items: world.copy && selects(r.url, world.copy.metadata.labels) ? [world.copy] : [] } };
    }
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop-home/pods') return { body: { metadata: { resourceVersion: '3' }, items: [...(siblingPods ? [siblingPod] : []), ...(ownPods ? [ownPod] : [])] } };
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop-home/services/web') return world.copy ? { body: world.copy } : undefined;
    if (r.method === 'GET') return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    if (r.method === 'POST' && r.url.pathname === '/api/v1/namespaces/shop-home/services') {
      if (world.copy) return { status: 409, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'AlreadyExists', message: 'services "web" already exists' } };
      return { status: 201, body: JSON.parse(r.body) as unknown };
    }
    if (r.method === 'PUT' && r.url.pathname === '/api/v1/namespaces/shop-home/services/web') {
      const body = JSON.parse(r.body) as typeof sibling;
      world.copy = { ...body, metadata: { ...body.metadata, resourceVersion: '8' } };
      return { body: world.copy };
    }
    return undefined;
  });
  const events: string[] = [];
  const { reflector, clock } = startedOn(t, server, events);
  const writes = (): string[] => server.requests.filter((q) => q.method !== 'GET').map((q) => `${q.method} ${q.url.pathname}`);
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) { // the coalescing delays and the passes they make
      clock.advance(50);
      await drain();
    }
  };
  return { server, world, sibling, events, reflector, clock, writes, settle, selects };
}

t.test('a Service a sibling virtual node reflects there while it has pods is shared: no write, no Warning, not taken', async (t) => {
  const { reflector: r, events, writes, settle, server, clock } = await heldBySibling(t, true);
  await until('the pass looked at the sibling\'s pods', () => {
    clock.advance(50);
    return server.requests.some((q) => q.url.pathname === '/api/v1/namespaces/shop-home/pods');
  }, 10_000);
  await settle();
  t.same(writes(), [], 'the sibling\'s copy is left to it');
  t.same(events, [], 'no ReflectionNameTaken: one copy per host cluster and remote namespace');
  t.same(r.state()[0]?.taken, []);
});

t.test('a sibling\'s copy going frees the name at once: this node creates its copy, not at the next full pass', async (t) => {
  const { world, sibling, events, clock, server, selects } = await heldBySibling(t, true);
  const startedAt = clock.now();
  await until('the pass looked at the sibling\'s pods', () => {
    clock.advance(50);
    return server.requests.some((q) => q.url.pathname === '/api/v1/namespaces/shop-home/pods');
  }, 10_000);
  await until('the copies\' watch open', () => server.watches.some((w) => w.url.pathname === '/api/v1/services'), 10_000);
  world.copy = undefined;
  for (const w of server.watches) if (w.url.pathname === '/api/v1/services' && selects(w.url, sibling.metadata.labels)) w.send('DELETED', sibling);
  await until('this node\'s copy created', () => {
    clock.advance(50);
    return server.requests.some((q) => q.method === 'POST' && q.url.pathname === '/api/v1/namespaces/shop-home/services' && world.copy === undefined && q.body.includes('"vk-1"'));
  }, 10_000);
  t.ok(clock.now() - startedAt < 5 * 60_000, `well before the full pass (after ${clock.now() - startedAt} ms)`);
  t.same(events, []);
});

t.test('a sibling\'s copy whose node has no pods there any more (stopped, or moved away) is adopted: one replace, same uid and ClusterIP, no delete or create', async (t) => {
  const { world, events, clock, writes } = await heldBySibling(t, false);
  await until('adopted', () => {
    clock.advance(50);
    return world.copy?.metadata.labels['tether.dev/virtual-node'] === 'vk-1';
  }, 10_000);
  t.same(writes(), ['PUT /api/v1/namespaces/shop-home/services/web'], 'relabelled in place');
  t.match(world.copy, { metadata: { uid: 'sibling-uid' }, spec: { clusterIP: '10.0.0.7' } }, 'the same Service, its ClusterIP kept');
  t.same(events, []);
});

t.test('neither node has pods there (both lingering after their pods went): the sibling\'s copy is left to it, not taken back and forth', async (t) => {
  const { server, clock, writes, settle, events } = await heldBySibling(t, false, false);
  await until('the pass looked at the pods', () => {
    clock.advance(50);
    return server.requests.some((q) => q.url.pathname === '/api/v1/namespaces/shop-home/pods');
  }, 10_000);
  await settle();
  t.same(writes(), [], 'no relabel: only a node with pods of its own there adopts');
  t.same(events, []);
});

t.test('a watch event older than the copy Tether last wrote does not make it write again', async (t) => {
  const { stored, writes, seen } = await writtenOnce(t);
  // An earlier state of the copy (another write's echo, say), delivered after Tether's write was answered.
  await seen({ ...stored(), metadata: { ...stored().metadata, resourceVersion: '8' }, spec: { ...stored().spec, ports: [{ port: 81, protocol: 'TCP', targetPort: 81 }] } });
  t.equal(writes(), 1, 'the write stands until its own echo or a newer change');
});

t.test('after a restart, a copy a mutating webhook labelled is in sync: no write (the content mark)', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const hostService = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', resourceVersion: '5' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
  const [wanted] = desiredObjects({
    services: [hostService], slices: [], kinds: new Set(['Service'] as const), remoteNamespace: 'shop-home',
    marks: { hostClusterId: 'home', nodeName: 'vk-1' }, lookup: () => undefined,
  });
  const copy = wanted?.object as Service | undefined;
  const meta = copy?.metadata;
  // What the previous incarnation left: its write, as the remote stored it (a webhook's label, an allocated clusterIP).
  const left = {
    ...copy,
    metadata: { ...meta, uid: 'remote-uid', resourceVersion: '9', labels: { ...meta?.labels, 'policy.example/audited': 'true' } },
    spec: { ...copy?.spec, clusterIP: '10.0.0.9', clusterIPs: ['10.0.0.9'] },
  };
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/services') return { body: { metadata: { resourceVersion: '5' }, items: [hostService] } };
    if (r.method === 'GET' && r.url.pathname === '/api/v1/services') return { body: { metadata: { resourceVersion: '9' }, items: [left] } };
    if (r.method === 'GET') return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    return undefined;
  });
  const { reflector: r, clock } = startedOn(t, server);
  await until('the copy found', () => r.state()[0]?.services === 1, 10_000);
  for (let i = 0; i < 10; i++) {
    clock.advance(50);
    await drain();
  }
  t.same(server.requests.filter((q) => q.method !== 'GET').map((q) => `${q.method} ${q.url.pathname}`), [], 'nothing written');
});

t.test('a taken name is a ReflectionNameTaken Warning once, not again at every resync', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const hostService = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', resourceVersion: '5' }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
  const foreign = { metadata: { name: 'web', namespace: 'shop-home', uid: 'theirs', resourceVersion: '7', labels: { team: 'remote' } }, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } };
  let creates = 0;
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop/services') return { body: { metadata: { resourceVersion: '5' }, items: [hostService] } };
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop-home/services/web') return { body: foreign };
    if (r.method === 'GET') return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    if (r.method === 'POST' && r.url.pathname === '/api/v1/namespaces/shop-home/services') {
      creates++;
      return { status: 409, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'AlreadyExists', message: 'services "web" already exists' } };
    }
    return undefined;
  });
  const events: string[] = [];
  const { reflector: r, clock } = startedOn(t, server, events);
  await until('the name found taken', () => {
    clock.advance(50);
    return events.length > 0;
  }, 10_000);
  await until('shown as taken', () => r.state()[0]?.taken.length === 1, 10_000);
  // Two resyncs: each looks at the name again (a create answered AlreadyExists, a read).
  for (const resync of [1, 2]) {
    const before = creates;
    clock.advance(5 * 60_000); // nothing is in flight: no request's deadline passes
    await until(`resync ${resync} looked again`, () => creates > before, 10_000);
    await until(`resync ${resync} found it taken`, () => r.state()[0]?.taken.length === 1, 10_000);
  }
  t.equal(events.length, 1, 'one Warning');
});

t.test('what was written for a copy that then lost its marks is forgotten once its namespace no longer wants it: the memory stays bounded', async (t) => {
  const { stored, seen, send, reflector: r, clock } = await writtenOnce(t);
  await seen(stored());
  t.equal(r.rememberedCopies(), 1, 'the write is remembered while the copy is wanted');
  // A remote admin takes the copy over: it leaves the copies' label-selected watch.
  send('DELETED', { ...stored(), metadata: { ...stored().metadata, resourceVersion: '10', labels: { team: 'remote' } } });
  r.podGone('shop/web-1', 'shop');
  await until('the namespace released and passed over', () => {
    clock.advance(1_000);
    return r.state().length === 0 && r.rememberedCopies() === 0;
  }, 10_000);
  t.equal(r.refused.size, 0);
});
