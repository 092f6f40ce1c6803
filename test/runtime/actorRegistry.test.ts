import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import type { ActorBehavior } from '../../src/runtime/behavior.js';
import { podRestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { until } from '../support/until.js';

const idle: ActorBehavior<{ phase: string }, 'run', never> = {
  kind: 'pod',
  initialState: () => ({ phase: 'Pending' }),
  decide: () => ({ state: { phase: 'Running' } }),
  perform: () => {},
  summarize: (s) => ({ phase: s.phase }),
};

t.test('a snapshot is the live tree: paths, kinds, status, summaries, with subtree and depth queries', async (t) => {
  const sys = new ActorSystem({ logger: silentLogger });
  t.teardown(() => sys.stop());
  const nodeA = sys.root.spawnSupervisor('node-a', { kind: 'node', policy: podRestartPolicy });
  const nodeB = sys.root.spawnSupervisor('node-b', { kind: 'node', policy: podRestartPolicy });
  const pod = nodeA.spawn('pod-1', idle);
  nodeB.spawn('pod-2', idle);
  pod.tell('run');
  await until('pod running', () => sys.registry.get(pod.path)?.snapshot().summary?.['phase'] === 'Running');

  const all = sys.snapshot();
  t.same(all.map((s) => s.path), ['tether', 'tether/node-a', 'tether/node-a/pod-1', 'tether/node-b', 'tether/node-b/pod-2']);
  t.match(all[2], { kind: 'pod', parent: 'tether/node-a', status: 'running', restarts: 0, mailboxDepth: 0, summary: { phase: 'Running' } });
  t.same(sys.snapshot({ root: 'tether/node-b' }).map((s) => s.path), ['tether/node-b', 'tether/node-b/pod-2']);
  t.same(sys.snapshot({ depth: 1 }).map((s) => s.path), ['tether', 'tether/node-a', 'tether/node-b']);
  t.same(sys.snapshot({ root: 'tether/nope' }), []);
});

t.test('mailbox depth counts messages waiting to be handled', async (t) => {
  const sys = new ActorSystem({ logger: silentLogger });
  t.teardown(() => sys.stop());
  const pod = sys.root.spawn('pod', idle);
  for (let i = 0; i < 5; i++) pod.tell('run');
  t.equal(sys.registry.get(pod.path)?.snapshot().mailboxDepth, 6, 'five messages and the start signal are queued');
  await until('drained', () => sys.registry.get(pod.path)?.snapshot().mailboxDepth === 0);
  t.equal(sys.registry.get(pod.path)?.snapshot().processed, 6);
});
