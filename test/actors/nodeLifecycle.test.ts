/**
 * The virtual node's readiness as its pods see it, in memory (test/support/inMemoryNode.ts):
 * when the provider stops answering its pings the Node goes NotReady and every pod on it is
 * marked Ready=False and ContainersReady=False (so Services stop routing to it), and once the
 * provider is back the Node is Ready and each pod shows its real status again.
 */
import t from 'tap';
import { podFixture } from '../providers/helpers.js';
import { startInMemoryNode, type InMemoryNode } from '../support/inMemoryNode.js';

async function runningPods(node: InMemoryNode, names: readonly string[]): Promise<void> {
  for (const name of names) await node.runPod(podFixture(name));
  await node.eventually('all Ready on the host', () => names.every((n) => node.podCondition('ns', n, 'Ready')?.status === 'True'));
}

t.test('an unreachable provider turns the Node NotReady and every pod Ready=False, ContainersReady=False; its return brings their real status back', async (t) => {
  const node = await startInMemoryNode(t);
  await runningPods(node, ['web-1', 'web-2']);

  node.provider.pingFails = true;
  await node.eventually('the Node NotReady', () => node.nodeReady()?.status === 'False', { stepMs: 1_000, withinMs: 120_000 });
  await node.eventually('both pods marked', () => ['web-1', 'web-2'].every((n) => node.podCondition('ns', n, 'Ready')?.status === 'False'));
  for (const name of ['web-1', 'web-2']) {
    t.match(node.podCondition('ns', name, 'Ready'), { status: 'False', reason: 'VirtualNodeNotReady' }, `${name} not Ready`);
    t.match(node.podCondition('ns', name, 'ContainersReady'), { status: 'False', reason: 'VirtualNodeNotReady' }, `${name} containers not ready`);
    t.equal(node.host.pod('ns', name)?.status?.phase, 'Running', `${name} keeps its phase`);
  }
  t.ok(node.eventsOf('tether-node').some((e) => e.reason === 'NodeNotReady'), 'a NodeNotReady Event');

  node.provider.pingFails = false;
  await node.eventually('the Node Ready again', () => node.nodeReady()?.status === 'True', { stepMs: 1_000, withinMs: 120_000 });
  await node.eventually('both pods Ready again', () => ['web-1', 'web-2'].every((n) => node.podCondition('ns', n, 'Ready')?.status === 'True'));
  for (const name of ['web-1', 'web-2']) {
    t.not(node.podCondition('ns', name, 'Ready')?.reason, 'VirtualNodeNotReady', `${name}: the provider's condition, not the mark`);
    t.equal(node.podCondition('ns', name, 'ContainersReady')?.status, 'True');
  }
});

t.test('a status the provider reports while the node is NotReady is held, and written once the node is Ready again', async (t) => {
  const node = await startInMemoryNode(t);
  await runningPods(node, ['job']);
  node.provider.pingFails = true;
  await node.eventually('the pod marked', () => node.podCondition('ns', 'job', 'Ready')?.reason === 'VirtualNodeNotReady', { stepMs: 1_000, withinMs: 120_000 });

  node.provider.finish('ns', 'job');
  await node.advance(5_000);
  t.equal(node.host.pod('ns', 'job')?.status?.phase, 'Running', 'not written while the node cannot vouch for it');

  node.provider.pingFails = false;
  await node.eventually('the real (ended) status on the host', () => node.host.pod('ns', 'job')?.status?.phase === 'Succeeded', { stepMs: 1_000, withinMs: 120_000 });
});

t.test('a pod bound while the node is NotReady is marked not Ready on the host from the start', async (t) => {
  const node = await startInMemoryNode(t);
  node.provider.pingFails = true;
  await node.eventually('the Node NotReady', () => node.nodeReady()?.status === 'False', { stepMs: 1_000, withinMs: 120_000 });
  node.host.bind(podFixture('late'));
  await node.eventually('marked', () => node.podCondition('ns', 'late', 'Ready')?.reason === 'VirtualNodeNotReady');
  t.match(node.podCondition('ns', 'late', 'ContainersReady'), { status: 'False', reason: 'VirtualNodeNotReady' });
});
