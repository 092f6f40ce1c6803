/**
 * The lease actor under an ActorSystem with an in-memory LeaseApi and a manual clock: the Lease
 * it writes, its cadence, the conflict, not-found and failure paths of a renewal, and a crash in
 * a renewal restarted by its supervisor.
 */
import t, { type Test } from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import { silentLogger } from '../../../src/adapters/logger.js';
import { leaseActor } from '../../../src/actors/lease/behavior.js';
import { withLeaseDefaults } from '../../../src/actors/lease/config.js';
import { renewTimeOf } from '../../../src/actors/lease/leaseObject.js';
import type { LeaseMsg } from '../../../src/actors/lease/protocol.js';
import { ActorSystem } from '../../../src/supervisors/actorSystem.js';
import { nodeRestartPolicy } from '../../../src/supervisors/restartPolicy.js';
import type { ActorRef } from '../../../src/runtime/behavior.js';
import { drain, until } from '../../support/until.js';
import { FakeLeaseApi } from '../fakes/fakeLeaseApi.js';
import { kubeError } from '../fakes/kubeErrors.js';
import { toKubeApiError } from '../../../src/adapters/kubernetes/errors.js';

function setup(t: Test, api = new FakeLeaseApi()) {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {} });
  t.teardown(() => sys.stop());
  const ref: ActorRef<LeaseMsg> = sys.root.spawn('lease-vn-1', leaseActor({ leaseApi: api, logger: silentLogger, random: () => 0.5 }, withLeaseDefaults({ nodeName: 'vn-1' })));
  const lease = () => api.get('kube-node-lease', 'vn-1');
  const renewedAt = () => renewTimeOf(lease());
  const summary = () => sys.registry.get(ref.path)?.snapshot().summary;
  return { clock, sys, api, ref, lease, renewedAt, summary };
}

t.test('creates the node Lease and renews it every 10 s as the clock advances', async (t) => {
  const { clock, api, lease, renewedAt, summary } = setup(t);
  const start = clock.now();
  await until('created', () => summary()?.renewals === 1);
  t.equal(renewedAt(), start);
  t.match(lease(), {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'vn-1', namespace: 'kube-node-lease' },
    spec: { holderIdentity: 'vn-1', leaseDurationSeconds: 40 },
  });
  t.equal(typeof lease()?.spec?.renewTime, 'string', 'the fake hands renewTime back as a string, as the wire does');
  for (let i = 1; i <= 3; i++) {
    clock.advance(9_999);
    await drain();
    t.equal(renewedAt(), start + (i - 1) * 10_000, `no renewal before ${i * 10} s`);
    clock.advance(1);
    await until(`renewal ${i}`, () => summary()?.renewals === i + 1);
    t.equal(renewedAt(), start + i * 10_000);
  }
  t.equal(api.count('createLease'), 1);
  t.equal(api.count('updateLease'), 3);
  t.match(summary(), { renewals: 4, lastLagMs: 0, failures: 0, expiresAt: new Date(start + 30_000 + 40_000).toISOString() });
});

t.test('a conflict re-reads the Lease and updates it', async (t) => {
  const { clock, api, renewedAt, summary } = setup(t);
  await until('created', () => summary()?.renewals === 1);
  api.touch('kube-node-lease', 'vn-1');
  clock.advance(10_000);
  await until('renewed despite the conflict', () => renewedAt() === clock.now());
  t.same(api.calls.slice(-3).map((c) => c.method), ['updateLease', 'getLease', 'updateLease']);
});

t.test('a Lease deleted meanwhile is created again', async (t) => {
  const { clock, api, renewedAt, summary } = setup(t);
  await until('created', () => summary()?.renewals === 1);
  api.leases.clear();
  clock.advance(10_000);
  await until('re-created', () => renewedAt() === clock.now());
  t.equal(api.count('createLease'), 2);
});

t.test('transient failures retry quickly, then the normal cadence resumes', async (t) => {
  const { clock, api, renewedAt, summary } = setup(t);
  await until('created', () => summary()?.renewals === 1);
  const due = clock.now() + 10_000;
  api.failNext('updateLease', kubeError('transient'), kubeError('transient'));
  clock.advance(10_000);
  await until('first failure', () => summary()?.failures === 1);
  clock.advance(199);
  await drain();
  t.equal(api.count('updateLease'), 1, 'the retry waits 200 ms');
  clock.advance(1);
  await until('second failure', () => summary()?.failures === 2);
  clock.advance(400);
  await until('renewed', () => summary()?.renewals === 2);
  t.equal(renewedAt(), due + 600);
  t.match(summary(), { failures: 0, lastLagMs: 600, maxLagMs: 600 });
  clock.advance(10_000);
  await until('back to every 10 s', () => renewedAt() === due + 10_600);
});

t.test('the Lease is owned by the Node once its uid is known', async (t) => {
  const { clock, ref, lease, renewedAt, summary } = setup(t);
  await until('created', () => summary()?.renewals === 1);
  t.equal(lease()?.metadata?.ownerReferences, undefined);
  ref.tell({ type: 'lease.node-registered', uid: 'node-uid-1' });
  await drain();
  clock.advance(10_000);
  await until('renewed', () => renewedAt() === clock.now());
  t.same(lease()?.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'vn-1', uid: 'node-uid-1' }]);
});

t.test('lease.stop ends the renewals', async (t) => {
  const { clock, api, ref, summary } = setup(t);
  await until('created', () => summary()?.renewals === 1);
  ref.tell({ type: 'lease.stop' });
  await drain();
  const writes = api.calls.length;
  clock.advance(60_000);
  await drain();
  t.equal(api.calls.length, writes, 'no calls after stop');
});

t.test('a renewal does not wait behind busy mailboxes: its lag does not grow with the message load', async (t) => {
  const api = new FakeLeaseApi();
  const { clock, sys, summary } = setup(t, api);
  await until('created', () => summary()?.renewals === 1);
  // Busy neighbours, as pod actors under a storm: each with a message queued; nact runs one
  // message per turn of its setImmediate queue, every actor in turn.
  let handled = 0;
  const load = 2_000;
  const behavior = {
    kind: 'busy',
    initialState: () => 0,
    decide: (state: number) => {
      handled += 1;
      return { state: state + 1 };
    },
    perform: () => undefined,
  };
  const busy = Array.from({ length: load }, (_, i) => sys.root.spawn<number, number, never>(`busy-${i}`, behavior));
  for (const b of busy) b.tell(0);
  await until('the neighbours started and idle', () => handled === load, 30_000);
  handled = 0;
  let handledAtRenewal: number | undefined;
  const update = api.updateLease.bind(api);
  api.updateLease = (lease) => {
    handledAtRenewal ??= handled;
    return update(lease);
  };
  for (const b of busy) b.tell(1);
  clock.advance(10_000);
  await until('renewed', () => summary()?.renewals === 2, 30_000);
  t.ok(handledAtRenewal !== undefined && handledAtRenewal < load / 10, `the renewal went out after ${handledAtRenewal} of ${load} queued messages, not behind them`);
  t.equal(summary()?.lastLagMs, 0, 'on time on the lease clock');
});

t.test('a renewal that never returns fails at its deadline and is retried', async (t) => {
  const api = new FakeLeaseApi();
  const { clock, summary, renewedAt } = setup(t, api);
  await until('created', () => summary()?.renewals === 1);
  const update = api.updateLease.bind(api);
  let hung = 0;
  api.updateLease = (lease) => {
    if (hung === 0) {
      hung += 1;
      return new Promise(() => undefined); // a frozen API server: no answer, no error
    }
    return update(lease);
  };
  clock.advance(10_000);
  const hungAt = clock.now();
  await until('the hung renewal started', () => hung === 1);
  let sawTimeout = false;
  for (let i = 0; i < 100 && summary()?.renewals !== 2; i++) {
    clock.advance(1_000);
    await drain();
    sawTimeout ||= /timed out after 10000 ms/.test(String(summary()?.lastError));
  }
  t.ok(sawTimeout, 'the hung renewal failed at its 10 s deadline');
  t.equal(summary()?.renewals, 2, 'and the retry renewed');
  t.ok((renewedAt() ?? 0) > hungAt, 'with a renewTime after the hung attempt');
});

t.test('a bug inside a renewal crashes the lease actor; its supervisor restarts it under the node policy and the renewals resume', async (t) => {
  const clock = new ManualClock();
  const api = new FakeLeaseApi();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  t.teardown(() => sys.stop());
  const node = sys.root.spawnSupervisor('node-vn-1', { kind: 'virtual-node', policy: nodeRestartPolicy });
  const ref = node.spawn('lease', leaseActor({ leaseApi: api, logger: silentLogger, random: () => 0.5 }, withLeaseDefaults({ nodeName: 'vn-1' })));
  const shown = () => sys.snapshot().find((s) => s.path === 'tether/node-vn-1/lease');
  await until('created', () => shown()?.summary?.renewals === 1);
  const update = api.updateLease.bind(api);
  let bugs = 1;
  api.updateLease = (lease) => {
    if (bugs-- > 0) throw new TypeError('renewal bug'); // not an API failure: a defect
    return update(lease);
  };
  clock.advance(10_000);
  await until('crashed and waiting its backoff', () => shown()?.status === 'restarting');
  t.match(shown(), { restarts: 1, lastError: { message: /renewal bug/ } }, 'the tree shows the crash');
  const crashedAt = clock.now();
  clock.advance(500); // nodeRestartPolicy's first backoff (jitter pinned to its centre)
  await until('restarted and renewed', () => shown()?.status === 'running' && shown()?.summary?.renewals === 1 && renewTimeOf(api.get('kube-node-lease', 'vn-1')) === crashedAt + 500);
  clock.advance(10_000);
  await until('the cadence resumes', () => shown()?.summary?.renewals === 2);
  t.equal(renewTimeOf(api.get('kube-node-lease', 'vn-1')), crashedAt + 10_500);
  t.equal(ref.path, 'tether/node-vn-1/lease');
});

t.test('a renewal already in flight keeps the owner it started with; the next one carries the new uid', async (t) => {
  const api = new FakeLeaseApi();
  const { clock, ref, lease, summary } = setup(t, api);
  await until('created', () => summary()?.renewals === 1);
  const update = api.updateLease.bind(api);
  let release: (() => void) | undefined;
  let started = 0;
  api.updateLease = (l) => new Promise((resolve, reject) => {
    started += 1;
    release = () => void update(l).then(resolve, reject);
  });
  clock.advance(10_000);
  await until('a renewal in flight', () => release !== undefined);
  ref.tell({ type: 'lease.node-registered', uid: 'node-uid-1' });
  await drain();
  release?.();
  await until('renewed', () => summary()?.renewals === 2);
  t.equal(lease()?.metadata?.ownerReferences, undefined, 'the call in flight was not changed');
  t.equal(started, 1, 'and no second renewal was started beside it');
  api.updateLease = update;
  clock.advance(10_000);
  await until('renewed again', () => summary()?.renewals === 3);
  t.same(lease()?.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'vn-1', uid: 'node-uid-1' }]);
});

t.test('a defect the adapter wrapped (a KubeApiError without a kind) crashes the lease actor: it is no failed renewal to back off from', async (t) => {
  const clock = new ManualClock();
  const api = new FakeLeaseApi();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  t.teardown(() => sys.stop());
  const node = sys.root.spawnSupervisor('node-vn-1', { kind: 'virtual-node', policy: nodeRestartPolicy });
  node.spawn('lease', leaseActor({ leaseApi: api, logger: silentLogger, random: () => 0.5 }, withLeaseDefaults({ nodeName: 'vn-1' })));
  const shown = () => sys.snapshot().find((s) => s.path === 'tether/node-vn-1/lease');
  await until('created', () => shown()?.summary?.renewals === 1);
  const update = api.updateLease.bind(api);
  let bugs = 1;
  api.updateLease = (lease) => (bugs-- > 0 ? Promise.reject(toKubeApiError(new TypeError('renewal bug'), 'update lease')) : update(lease));
  clock.advance(10_000);
  await until('crashed', () => shown()?.status === 'restarting');
  t.match(shown(), { restarts: 1, lastError: { message: /renewal bug/ } });
  t.equal(shown()?.summary?.failures, 0, 'not counted as a failed renewal');
});
