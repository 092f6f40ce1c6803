/**
 * Actor runtime benchmark: spawn rate, memory per idle actor, message throughput, on the real
 * runtime (nact underneath), with pod-like actors under shards as Tether runs them.
 *
 *   npm run bench            (builds, then runs with --expose-gc)
 *
 * Figures go to docs/benchmarks.md by hand; nothing here is asserted.
 */
import { silentLogger } from '../src/adapters/logger.js';
import { ActorSystem } from '../src/supervisors/actorSystem.js';
import type { ActorBehavior, ActorRef } from '../src/runtime/behavior.js';
import { podRestartPolicy } from '../src/supervisors/restartPolicy.js';
import { Shards } from '../src/supervisors/shards.js';

interface Counter {
  handled: number;
}
const done = { count: 0 };
const podLike: ActorBehavior<Counter, 'ping', never> = {
  kind: 'pod',
  initialState: () => ({ handled: 0 }),
  decide: (s) => {
    done.count++;
    return { state: { handled: s.handled + 1 } };
  },
  perform: () => {},
};

const gc = (globalThis as { gc?: () => void }).gc;
const heap = (): number => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
};
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
async function waitUntil(cond: () => boolean): Promise<void> {
  while (!cond()) await turn();
}
const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits });

async function run(actors: number, messagesPerActor: number): Promise<void> {
  const sys = new ActorSystem({ logger: silentLogger });
  const node = sys.root.spawnSupervisor('node-bench', { policy: podRestartPolicy });
  const shards = new Shards(node, 'pods', 32, podRestartPolicy);
  await waitUntil(() => sys.snapshot().every((s) => s.mailboxDepth === 0));
  const before = heap();

  let t0 = process.hrtime.bigint();
  const refs: ActorRef<'ping'>[] = [];
  for (let i = 0; i < actors; i++) refs.push(shards.spawn(`pod-${i}`, podLike));
  await waitUntil(() => sys.registry.get(refs[actors - 1]!.path)?.snapshot().status === 'running');
  await waitUntil(() => sys.snapshot({ root: shards.path, depth: 1 }).every((s) => s.mailboxDepth === 0));
  const spawnMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const perActor = (heap() - before) / actors;

  done.count = 0;
  const total = actors * messagesPerActor;
  t0 = process.hrtime.bigint();
  for (let m = 0; m < messagesPerActor; m++) for (const ref of refs) ref.tell('ping');
  await waitUntil(() => done.count === total);
  const msgMs = Number(process.hrtime.bigint() - t0) / 1e6;

  t0 = process.hrtime.bigint();
  const snapshot = sys.snapshot();
  const snapMs = Number(process.hrtime.bigint() - t0) / 1e6;

  console.log(
    `| ${fmt(actors)} | ${fmt((actors / spawnMs) * 1000)} /s | ${fmt(perActor / 1024, 2)} KiB | ${fmt((total / msgMs) * 1000)} msg/s (${fmt(total)} msgs) | ${fmt(snapMs, 1)} ms (${fmt(snapshot.length)} entries) | ${fmt(shards.largestShard())} |`,
  );
  sys.stop();
}

console.log(`node ${process.version}, ${gc ? 'with' : 'WITHOUT'} --expose-gc`);
console.log('| actors | spawn rate | heap per idle actor | message throughput | full tree snapshot | largest shard |');
console.log('|---|---|---|---|---|---|');
for (const n of [1_000, 10_000, 100_000]) await run(n, n >= 100_000 ? 2 : 10);
