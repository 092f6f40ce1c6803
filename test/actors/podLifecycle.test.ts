/**
 * Whole pod lifecycles on one virtual node, in memory (test/support/inMemoryNode.ts): the host
 * pod, the provider and the clock are fakes, everything between them is the real subtree. Each
 * scenario asserts what the host and the provider observe: writes, annotations, Events, calls.
 */
import t from 'tap';
import { transient } from '../../src/providers/errors.js';
import { podFixture } from '../providers/helpers.js';
import { startInMemoryNode } from '../support/inMemoryNode.js';

const CREATE_ERROR = 'tether.dev/provider-create-error';
const CREATE_ERROR_AT = 'tether.dev/provider-create-error-at';

t.test('a pod bound to the node is created at the provider, and the status it reports is mirrored onto the host pod', async (t) => {
  const node = await startInMemoryNode(t);
  node.host.bind(podFixture('web'));
  await node.eventually('created at the provider', () => node.provider.callsOf('createPod', 'web').length === 1);
  t.same(node.provider.callsOf('createPod', 'web').map((c) => c.uid), ['uid-web'], 'created once, for the host pod\'s uid');

  node.provider.run('ns', 'web');
  await node.eventually('Running and Ready on the host', () => node.host.pod('ns', 'web')?.status?.phase === 'Running' && node.podCondition('ns', 'web', 'Ready')?.status === 'True');
  const status = node.host.pod('ns', 'web')?.status;
  t.equal(status?.podIP, '10.244.0.7', 'the provider\'s pod IP');
  t.match(status?.containerStatuses, [{ name: 'main', ready: true, state: { running: {} } }]);
  t.equal(node.podCondition('ns', 'web', 'ContainersReady')?.status, 'True');
  t.same(node.provider.callsOf('createPod', 'web').length, 1, 'mirroring the status created nothing more');
});

t.test('a status another writer changed on the host pod is put back to the provider\'s', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web'));
  node.host.overwriteStatus('ns', 'web', { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] });
  await node.eventually('Running and Ready again', () => node.host.pod('ns', 'web')?.status?.phase === 'Running' && node.podCondition('ns', 'web', 'Ready')?.status === 'True');
});

t.test('a pod the provider lost without being asked ends Failed on the host, saying why', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web'));
  node.provider.lose('ns', 'web', 'Evicted');
  await node.eventually('Failed on the host', () => node.host.pod('ns', 'web')?.status?.phase === 'Failed');
  t.match(node.host.pod('ns', 'web')?.status, { reason: 'Evicted' }, "with the provider's reason");
  t.equal(node.podCondition('ns', 'web', 'Ready')?.status, 'False');
});

t.test('a deleted pod is stopped at the provider with its grace period, and leaves the host only once the provider reports it ended', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web', { terminationGracePeriodSeconds: 20 }));

  node.host.requestDelete('ns', 'web', 20);
  await node.eventually('deleted at the provider', () => node.provider.callsOf('deletePod', 'web').length > 0);
  t.same(node.provider.callsOf('deletePod', 'web').map((c) => c.graceSeconds), [20], 'with the pod\'s grace period');

  await node.advance(15_000);
  t.ok(node.host.pod('ns', 'web'), 'still on the host while the provider has not reported its end');
  t.notOk(node.host.calls.some((c) => c.op === 'deletePod'), 'nothing deleted it on the host');
  t.equal(node.host.pod('ns', 'web')?.status?.phase, 'Running', 'its status still mirrored while it terminates');

  node.provider.finish('ns', 'web');
  await node.eventually('gone from the host', () => node.host.pod('ns', 'web') === undefined);
  const writes = node.host.calls.filter((c) => c.name === 'web' && (c.op === 'patchPodStatus' || c.op === 'deletePod'));
  const last = writes.at(-1);
  t.match(last, { op: 'deletePod', delete: { uid: 'uid-web', gracePeriodSeconds: 0 } }, 'the final delete: grace 0, with the uid precondition');
  t.equal(writes.at(-2)?.status?.phase, 'Succeeded', 'the final status was written before it');
});

t.test('a provider that never reports the end keeps the pod Terminating: past the grace period and margin Tether escalates to grace 0, and keeps asking', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('stuck', { terminationGracePeriodSeconds: 5 }));

  node.host.requestDelete('ns', 'stuck', 5);
  await node.eventually('escalated to grace 0', () => node.provider.callsOf('deletePod', 'stuck').some((c) => c.graceSeconds === 0));
  const [first, escalated] = node.provider.callsOf('deletePod', 'stuck');
  t.equal(first?.graceSeconds, 5);
  t.ok((escalated?.at ?? 0) - (first?.at ?? 0) >= 5_000 + 10_000, 'not before the grace period plus the 10 s margin');

  await node.eventually('asked again', () => node.provider.callsOf('deletePod', 'stuck').length >= 3, { withinMs: 120_000 });
  t.ok(node.host.pod('ns', 'stuck'), 'the host pod stays: nothing is finished by a timer');
  t.notOk(node.host.calls.some((c) => c.op === 'deletePod'));
});

t.test('a failed create is shown on the host pod (annotation and Event), retried with growing backoff, and cleared once the provider takes the pod', async (t) => {
  const node = await startInMemoryNode(t);
  node.provider.faults.failNext('createPod', transient('quota exceeded'), transient('quota exceeded'));
  node.host.bind(podFixture('web'));

  await node.eventually('the error on the host pod', () => node.host.pod('ns', 'web')?.metadata?.annotations?.[CREATE_ERROR] !== undefined);
  const annotations = node.host.pod('ns', 'web')?.metadata?.annotations ?? {};
  t.match(annotations[CREATE_ERROR], /quota exceeded/);
  t.equal(annotations[CREATE_ERROR_AT], new Date(node.provider.callsOf('createPod', 'web')[0]?.at ?? 0).toISOString(), 'when it failed');
  t.match(node.eventsOf('web'), [{ type: 'Warning', reason: 'ProviderCreateFailed', note: /quota exceeded/ }]);
  t.not(node.host.pod('ns', 'web')?.status?.phase, 'Failed', 'the phase never carries the error');

  await node.eventually('created on the third attempt', () => node.provider.has('ns', 'web'));
  const at = node.provider.callsOf('createPod', 'web').map((c) => c.at);
  t.equal(at.length, 3);
  const [a0 = 0, a1 = 0, a2 = 0] = at;
  t.ok(a1 - a0 >= 800, `the first retry waited about a second (${a1 - a0} ms)`);
  t.ok(a2 - a1 > a1 - a0, `the second waited longer (${a2 - a1} ms)`);

  await node.eventually('the error cleared', () => {
    const now = node.host.pod('ns', 'web')?.metadata?.annotations ?? {};
    return !(CREATE_ERROR in now) && !(CREATE_ERROR_AT in now);
  });
  t.ok(node.eventsOf('web').some((e) => e.type === 'Normal' && e.reason === 'ProviderCreated'), 'the recovery is an Event too');
  node.provider.run('ns', 'web');
  await node.eventually('Running on the host', () => node.host.pod('ns', 'web')?.status?.phase === 'Running');
});

t.test('a create the provider never answers counts as failed at its deadline, is shown on the pod, and retried', async (t) => {
  const node = await startInMemoryNode(t);
  const release = node.provider.faults.hangNext('createPod');
  node.host.bind(podFixture('slow'));
  await node.eventually('the unanswered create shown on the pod', () => node.host.pod('ns', 'slow')?.metadata?.annotations?.[CREATE_ERROR] !== undefined, { withinMs: 120_000, stepMs: 1_000 });
  t.match(node.host.pod('ns', 'slow')?.metadata?.annotations?.[CREATE_ERROR], /did not answer the create within 60 s/);
  t.ok(node.elapsedMs() >= 60_000, 'not before the 60 s deadline');
  await node.eventually('retried and created', () => node.provider.has('ns', 'slow'), { withinMs: 120_000 });
  release();
  await node.eventually('the error cleared', () => node.host.pod('ns', 'slow')?.metadata?.annotations?.[CREATE_ERROR] === undefined);
});
