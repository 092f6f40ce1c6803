/**
 * `/actors/<path>`: one actor in depth over HTTP, against a real actor system: its history after
 * a crash, its budget, its last messages, kubectl commands for a pod; and the restarts by kind
 * in /metrics.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { startIntrospectionServer } from '../../src/observability/introspectionServer.js';
import type { ActorDetailAnswer } from '../../src/observability/actorDetail.js';
import { TetherMetrics } from '../../src/observability/metrics.js';
import type { ActorBehavior } from '../../src/runtime/behavior.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import { podRestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { ManualClock } from '../support/manualClock.js';
import { until } from '../support/until.js';

type Msg = { type: 'boom' } | { type: 'ping' };
const pod: ActorBehavior<null, Msg, never> = {
  kind: 'pod',
  initialState: () => null,
  decide(s, msg) {
    if (msg.type === 'boom') throw new Error('injected crash');
    return { state: s };
  },
  perform: () => undefined,
  summarize: () => ({ namespace: 'shop', name: 'web-1', stage: 'running', phase: 'Running', ready: true, createAttempts: 0, nextAttemptAt: null, lastError: null }),
};

t.test('/actors/<path> shows the crash in the history, the budget left, the messages and kubectl commands', async (t) => {
  const clock = new ManualClock();
  const sys = new ActorSystem({ clock, logger: silentLogger, onFatal: () => {}, random: () => 0.5 });
  t.teardown(() => sys.stop());
  const node = sys.root.spawnSupervisor('node-vk', { policy: { ...podRestartPolicy, restart: 'permanent' }, kind: 'virtual-node' });
  const shard = node.spawnSupervisor('shard-00', { policy: podRestartPolicy, kind: 'shard' });
  const ref = shard.spawn('uid-1', pod);
  const metrics = new TetherMetrics({ processMetrics: false, clock }).observe({ system: sys, nodes: [] });
  const server = await startIntrospectionServer({ agent: { system: sys, nodes: [] }, port: 0, metrics });
  t.teardown(() => server.stop());
  ref.tell({ type: 'ping' });
  ref.tell({ type: 'boom' });
  await until('restart scheduled', () => sys.registry.get(ref.path)?.detail?.().history.length === 2);

  const res = await fetch(`${server.url}/actors/${ref.path}`);
  t.equal(res.status, 200);
  const answer = (await res.json()) as ActorDetailAnswer;
  t.equal(answer.state, 'restarting');
  t.equal(answer.node, 'vk');
  t.match(answer.detail?.history, [{ type: 'crashed', error: { message: 'injected crash', kind: 'defect' } }, { type: 'restart-scheduled' }]);
  t.same(answer.detail?.giveUp, { crashesLeft: 4, withinMs: 60_000 });
  t.match(answer.trace.map((e) => e.type), ['ping', 'boom']);
  t.ok(answer.kubectl.includes('kubectl -n shop describe pod web-1'), answer.kubectl.join('\n'));
  t.ok(answer.kubectl.includes('kubectl get node vk -o wide'));
  const sup = (await (await fetch(`${server.url}/actors/${shard.path}`)).json()) as ActorDetailAnswer;
  t.match(sup.detail?.history.at(-1), { type: 'child-crashed', child: 'uid-1', decision: 'restart' });
  t.equal((await fetch(`${server.url}/actors/tether/nope`)).status, 404);
  clock.advance(1_100);
  t.match(await (await fetch(`${server.url}/metrics`)).text(), /tether_actor_restarts_total\{kind="pod"\} 1/);
});
