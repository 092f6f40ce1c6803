import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import type { ActorBehavior, ActorRef } from '../../src/runtime/behavior.js';
import { podRestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { Shards } from '../../src/supervisors/shards.js';
import { until } from '../support/until.js';

const seen = { count: 0 };
const leaf: ActorBehavior<number, 'ping', never> = {
  kind: 'leaf',
  initialState: () => 0,
  decide: (n) => {
    seen.count++;
    return { state: n + 1 };
  },
  perform: () => {},
};

t.test('10k actors under shards: bounded parents, and messages never pass through a supervisor', async (t) => {
  const sys = new ActorSystem({ logger: silentLogger });
  t.teardown(() => sys.stop());
  const node = sys.root.spawnSupervisor('node-a', { policy: podRestartPolicy });
  const shards = new Shards(node, 'pods', 32, podRestartPolicy);
  const refs: ActorRef<'ping'>[] = [];
  for (let i = 0; i < 10_000; i++) refs.push(shards.spawn(`pod-${i}`, leaf));

  t.ok(shards.largestShard() < 10_000 / 32 * 1.3, `largest shard holds ${shards.largestShard()} of 10k (even spread)`);
  const supervisors = sys.snapshot().filter((s) => s.kind !== 'leaf');
  t.ok(supervisors.every((s) => s.children <= 400), 'no parent holds thousands of children');

  const processedBySupervisors = (): number => sys.snapshot().filter((s) => s.kind !== 'leaf').reduce((sum, s) => sum + s.processed, 0);
  await until('every actor has started', () => sys.snapshot().every((s) => s.mailboxDepth === 0), 30_000);
  const before = processedBySupervisors();
  seen.count = 0;
  for (const ref of refs) ref.tell('ping');
  await until('every actor handled its message', () => seen.count === 10_000, 30_000);
  t.equal(processedBySupervisors(), before, 'no supervisor handled any of the 10k messages: per-message cost is independent of the pod count');
  t.equal(sys.registry.size, 10_000 + 32 + 3, 'registry: 10k leaves, 32 shards, the group, the node, the root');
});

t.test('the same key always lands in the same shard', async (t) => {
  const sys = new ActorSystem({ logger: silentLogger });
  t.teardown(() => sys.stop());
  const shards = new Shards(sys.root, 'pods', 8, podRestartPolicy);
  t.equal(shards.shardFor('uid-1').path, shards.shardFor('uid-1').path);
  const ref = shards.spawn('uid-1', leaf);
  t.match(ref.path, /^tether\/pods\/shard-0\d\/uid-1$/);
  shards.release('uid-1');
  t.equal(sys.registry.get(ref.path), undefined);
  t.throws(() => new Shards(sys.root, 'bad', 0, podRestartPolicy), /shardCount must be a positive integer/);
});
