/**
 * What the host API does wrong, and the node's pods carrying on, in memory
 * (test/support/inMemoryNode.ts): a conflict on the uid precondition (409), a watch whose
 * resourceVersion expired (410 Gone) or broke, requests that time out, and slow answers.
 */
import t from 'tap';
import { podFixture } from '../providers/helpers.js';
import { startInMemoryNode } from '../support/inMemoryNode.js';

t.test('409: a namesake re-created while the old pod\'s final delete was on its way is spared by the uid precondition, and runs', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('db-0'));
  const release = node.host.faults.hangNext('deletePod');
  node.host.requestDelete('ns', 'db-0', 30);
  await node.eventually('stopped at the provider', () => node.provider.callsOf('deletePod', 'db-0').length > 0);
  node.provider.finish('ns', 'db-0');
  await node.eventually('the final delete sent', () => node.host.calls.some((c) => c.op === 'deletePod'));

  // The StatefulSet controller replaces the pod before the delete reaches the server.
  node.host.recreate(podFixture('db-0', { uid: 'uid-db-0-b' }));
  release();
  await node.eventually('the new pod created at the provider', () => node.provider.callsOf('createPod', 'db-0').some((c) => c.uid === 'uid-db-0-b'));
  t.equal(node.host.pod('ns', 'db-0')?.metadata?.uid, 'uid-db-0-b', 'the namesake is still on the host');
  t.match(node.host.calls.filter((c) => c.op === 'deletePod'), [{ delete: { uid: 'uid-db-0', gracePeriodSeconds: 0 } }], 'the one delete named the old uid');
  node.provider.run('ns', 'db-0');
  await node.eventually('the namesake Running on the host', () => node.host.pod('ns', 'db-0')?.status?.phase === 'Running');
});

t.test('410: changes the watch missed while its resourceVersion was expired are acted on after the relist', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web'));
  node.host.watchFaults.expire();
  node.host.requestDelete('ns', 'web', 30);
  node.host.bind(podFixture('api'));
  await node.advance(5_000);
  t.same(node.provider.callsOf('deletePod', 'web'), [], 'a deletion nobody heard of is not acted on');
  t.notOk(node.provider.has('ns', 'api'), 'nor a pod bound meanwhile');

  node.host.watchFaults.relist();
  await node.eventually('the deletion acted on', () => node.provider.callsOf('deletePod', 'web').length > 0);
  await node.eventually('the new pod created', () => node.provider.has('ns', 'api'));
  node.provider.finish('ns', 'web');
  await node.eventually('the deleted pod finished on the host', () => node.host.pod('ns', 'web') === undefined);
});

t.test('a broken watch (an error, then a relist) loses no deletion', async (t) => {
  const node = await startInMemoryNode(t);
  await node.runPod(podFixture('web'));
  node.host.watchFaults.fail(new Error('watch stream reset'));
  node.host.requestDelete('ns', 'web', 30);
  await node.advance(2_000);
  node.host.watchFaults.relist();
  await node.eventually('the deletion acted on', () => node.provider.callsOf('deletePod', 'web').length > 0);
  node.provider.finish('ns', 'web');
  await node.eventually('finished on the host', () => node.host.pod('ns', 'web') === undefined);
});

t.test('a status write that times out is sent again with backoff until the host pod shows the status', async (t) => {
  const node = await startInMemoryNode(t);
  node.host.bind(podFixture('web'));
  await node.eventually('created', () => node.provider.has('ns', 'web'));
  node.host.faults.timeoutNext('patchPodStatus', { afterMs: 10_000 });
  node.provider.run('ns', 'web');
  await node.eventually('Running on the host', () => node.host.pod('ns', 'web')?.status?.phase === 'Running', { withinMs: 120_000 });
  const writes = node.host.calls.filter((c) => c.op === 'patchPodStatus' && c.status?.phase === 'Running');
  t.ok(writes.length >= 2, `the timed-out write was sent again (${writes.length} writes of Running)`);
  t.ok(node.elapsedMs() >= 10_000, 'not before the first one timed out');
});

t.test('a status write that landed but whose answer timed out leaves the host pod right, and the pod carries on to its end', async (t) => {
  const node = await startInMemoryNode(t);
  node.host.bind(podFixture('web'));
  await node.eventually('created', () => node.provider.has('ns', 'web'));
  node.host.faults.timeoutNext('patchPodStatus', { afterMs: 10_000, applied: true });
  node.provider.run('ns', 'web');
  await node.eventually('Running on the host', () => node.host.pod('ns', 'web')?.status?.phase === 'Running', { withinMs: 120_000 });
  node.host.requestDelete('ns', 'web', 30);
  await node.eventually('stopped at the provider', () => node.provider.callsOf('deletePod', 'web').length > 0, { withinMs: 120_000 });
  node.provider.finish('ns', 'web');
  await node.eventually('finished on the host', () => node.host.pod('ns', 'web') === undefined, { withinMs: 120_000 });
});

t.test('a host that answers slowly delays the mirror, never loses it: the newest status ends on the host', async (t) => {
  const node = await startInMemoryNode(t);
  node.host.bind(podFixture('web'));
  await node.eventually('created', () => node.provider.has('ns', 'web'));
  node.host.faults.delayNext('patchPodStatus', 8_000, 3);
  node.provider.run('ns', 'web');
  await node.advance(1_000);
  node.provider.finish('ns', 'web', 1);
  await node.eventually('the last status on the host', () => node.host.pod('ns', 'web')?.status?.phase === 'Failed', { withinMs: 120_000 });
  await node.advance(30_000);
  t.equal(node.host.pod('ns', 'web')?.status?.phase, 'Failed', 'no older write landed after it');
});
