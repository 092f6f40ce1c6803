/**
 * The agent's write fences under leader election (issue 26): a node's provider is fenced from the
 * agent's start until this replica holds the node's lock (a standby never opens it), opened when
 * the lock is taken, and fenced first when the lock is lost, before the node's subtree stops.
 * Without leader election the provider is opened at start (a single replica holds every node).
 * One mock host API server keeps the Lease lock; the providers are fakes that log the calls.
 */
import t, { type Test } from 'tap';
import { systemClock } from '../../src/adapters/clock.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { MockApiServer } from '../adapters/kubernetes/mockApiServer.js';
import { FakeProvider } from '../support/fakeProvider.js';
import { until } from '../support/until.js';

const NS = 'tether-system';
const LOCK = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/tether-node-vk-1`;

/** A fake provider that logs its fence's changes and its first pod call. */
class FencedFake extends FakeProvider {
  readonly log: string[] = [];
  constructor() {
    super({ clock: systemClock });
  }
  fenceWrites(): void {
    this.log.push('fence');
  }
  openWrites(): void | Promise<void> {
    this.log.push('open');
  }
  override listPods(): ReturnType<FakeProvider['listPods']> {
    if (this.log.at(-1) !== 'list') this.log.push('list');
    return super.listPods();
  }
}

/** The host: a Lease store (`lease`), lists answer empty, watches hang, the rest 404. */
async function hostWithLocks(t: Test): Promise<{ server: MockApiServer; lease: () => Record<string, unknown> | undefined; steal: () => () => void }> {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  let lease: Record<string, unknown> | undefined;
  let version = 1;
  let stolen = false;
  const stored = (body: string): Record<string, unknown> => {
    const parsed = JSON.parse(body) as { metadata?: Record<string, unknown> };
    lease = { ...parsed, metadata: { ...parsed.metadata, resourceVersion: String((version += 1)) } };
    return lease;
  };
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.url.pathname === LOCK && r.method === 'GET') return lease ? { body: lease } : undefined;
    if (r.url.pathname === LOCK && r.method === 'PUT') return stolen ? { status: 409, body: { kind: 'Status', code: 409, reason: 'Conflict' } } : { body: stored(r.body) };
    if (r.url.pathname === `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases` && r.method === 'POST') return lease ? { status: 409, body: { kind: 'Status', code: 409, reason: 'AlreadyExists' } } : { status: 201, body: stored(r.body) };
    if (r.method === 'GET' && r.url.pathname.endsWith('/pods')) return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    return undefined;
  });
  /** Another replica takes the lock and renews it until the returned function is called. */
  const steal = (): (() => void) => {
    stolen = true;
    const spec = (lease?.spec ?? {}) as Record<string, unknown>;
    // Another replica took it and renews it: a fresh record each read.
    lease = { ...lease, spec: { ...spec, holderIdentity: 'someone-else', renewTime: new Date().toISOString() } };
    const renew = setInterval(() => {
      lease = { ...lease, spec: { ...(lease?.spec as object), renewTime: new Date().toISOString() } };
    }, 100);
    t.teardown(() => clearInterval(renew));
    return () => {
      clearInterval(renew);
      stolen = false;
    };
  };
  return { server, lease: () => lease, steal };
}

function agent(t: Test, server: MockApiServer, provider: FencedFake, identity: string | undefined): TetherAgent {
  const a = TetherAgent.start({
    host: { kind: 'string', yaml: server.kubeConfigYaml() },
    logger: silentLogger,
    nodes: [{ name: 'vk-1', internalIP: '127.0.0.1', provider }],
    ...(identity ? { leaderElection: { namespace: NS, identity, leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 } } : {}),
  });
  t.teardown(() => a.stop({ deadlineMs: 2_000 }));
  return a;
}

const holder = (lease: Record<string, unknown> | undefined): unknown => (lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;

t.test('a standby replica\'s provider is fenced from the agent\'s start and never opened; the holder\'s is opened before its node runs', async (t) => {
  const { server, lease } = await hostWithLocks(t);
  const leader = new FencedFake();
  agent(t, server, leader, 'replica-a');
  await until('replica-a holds the lock', () => holder(lease()) === 'replica-a', 10_000);
  await until('its node lists its pods', () => leader.log.includes('list'), 10_000);
  t.same(leader.log.slice(0, 3), ['fence', 'open', 'list'], 'fenced at start, opened on taking the lock, then driven');
  const standby = new FencedFake();
  agent(t, server, standby, 'replica-b');
  const reads = server.matching('GET', LOCK).length;
  await until('the standby looked at the lock several times', () => server.matching('GET', LOCK).length >= reads + 6, 10_000);
  t.same(standby.log, ['fence'], 'the standby\'s provider: fenced at start, never opened, never driven');
});

t.test('a replica that loses its lock fences its provider before anything else; it opens again only once the lock is held again', async (t) => {
  const { server, lease, steal } = await hostWithLocks(t);
  const provider = new FencedFake();
  const a = agent(t, server, provider, 'replica-a');
  await until('replica-a drives the node', () => provider.log.includes('list') && a.nodes.length === 1, 10_000);
  const giveBack = steal();
  await until('the lock lost: fenced again', () => provider.log.at(-1) === 'fence', 10_000);
  await until('the node stopped', () => a.nodes.length === 0, 10_000);
  t.same(provider.log, ['fence', 'open', 'list', 'fence'], 'fenced, opened, driven, fenced');
  t.equal(holder(lease()), 'someone-else');
  giveBack();
  await until('the lock taken back (once the other\'s record expired) and the node driven again', () => provider.log.length >= 6 && a.nodes.length === 1, 15_000);
  t.same(provider.log, ['fence', 'open', 'list', 'fence', 'open', 'list'], 'opened again only with the lock held again');
});

/** A fenced fake whose open waits for the test (its parts of an earlier hold still stopping). */
class SlowToOpen extends FencedFake {
  release = (): void => undefined;
  override openWrites(): Promise<void> {
    this.log.push('opening');
    return new Promise<void>((resolve) => {
      this.release = () => {
        this.log.push('open');
        resolve();
      };
    });
  }
}

t.test('a node runs only once its provider has opened: an open that waits for an earlier hold\'s parts holds the node back', async (t) => {
  const { server, lease } = await hostWithLocks(t);
  const provider = new SlowToOpen();
  const a = agent(t, server, provider, 'replica-a');
  await until('replica-a holds the lock', () => holder(lease()) === 'replica-a', 10_000);
  const reads = server.matching('GET', LOCK).length + server.matching('PUT', LOCK).length;
  await until('the lock renewed several times', () => server.matching('GET', LOCK).length + server.matching('PUT', LOCK).length >= reads + 4, 10_000);
  t.same(provider.log, ['fence', 'opening'], 'not driven while the provider is still opening');
  t.equal(a.nodes.length, 0, 'the node does not run yet');
  provider.release();
  await until('the node runs', () => provider.log.includes('list') && a.nodes.length === 1, 10_000);
  t.same(provider.log, ['fence', 'opening', 'open', 'list']);
});

t.test('without leader election the provider is opened at start: one replica holds every node', async (t) => {
  const { server } = await hostWithLocks(t);
  const provider = new FencedFake();
  agent(t, server, provider, undefined);
  await until('the node lists its pods', () => provider.log.includes('list'), 10_000);
  t.same(provider.log, ['open', 'list']);
});
