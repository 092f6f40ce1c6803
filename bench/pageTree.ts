/**
 * An agent's actor tree with N simulated pods for the page bench: a real ActorSystem (real
 * supervisors with the pod restart policy, real registry, history and change feed), one virtual
 * node with 16 shards, and a minimal pod actor per pod whose summary has the shape the pod actor's
 * has. A `crash` message makes a pod actor crash, as a provider fault would.
 */
import { silentLogger } from '../src/adapters/logger.js';
import type { ActorBehavior, ActorRef } from '../src/runtime/behavior.js';
import { ActorSystem } from '../src/supervisors/actorSystem.js';
import { nodeRestartPolicy, podRestartPolicy } from '../src/supervisors/restartPolicy.js';

export type SimPodMsg = { readonly type: 'crash' } | { readonly type: 'phase'; readonly phase: string };
interface SimPod { readonly namespace: string; readonly name: string; phase: string }

function simPod(namespace: string, name: string, phase: string): ActorBehavior<SimPod, SimPodMsg, never> {
  return {
    kind: 'pod',
    initialState: () => ({ namespace, name, phase }),
    decide(state, msg) {
      if (msg.type === 'crash') throw new Error(`simulated crash of ${namespace}/${name}`);
      return { state: { ...state, phase: msg.phase } };
    },
    perform: () => undefined,
    summarize: (s) => ({ namespace: s.namespace, name: s.name, stage: 'running', phase: s.phase, ready: s.phase === 'Running', nodeReady: true, createAttempts: 0, nextAttemptAt: null, lastError: null }),
  };
}

export interface PageTree {
  readonly system: ActorSystem;
  readonly node: string;
  readonly pods: ReadonlyArray<ActorRef<SimPodMsg>>;
}

export function pageTree(count: number, node = 'vk-bench'): PageTree {
  const system = new ActorSystem({ logger: silentLogger, onFatal: () => undefined });
  const nodeSup = system.root.spawnSupervisor(`node-${node}`, { policy: nodeRestartPolicy, kind: 'virtual-node', summarize: () => ({ node, ready: true, reason: 'KubeletReady', provider: 'simulated' }) });
  const group = nodeSup.spawnSupervisor('pods', { policy: nodeRestartPolicy, kind: 'shards' });
  const shards = Array.from({ length: 16 }, (_, i) => group.spawnSupervisor(`shard-${String(i).padStart(2, '0')}`, { policy: podRestartPolicy, kind: 'shard' }));
  const pods: Array<ActorRef<SimPodMsg>> = [];
  for (let i = 0; i < count; i++) {
    const phase = i % 50 === 0 ? 'Pending' : i % 333 === 0 ? 'Failed' : 'Running';
    pods.push(shards[i % 16]!.spawn(`uid-${String(i).padStart(6, '0')}`, simPod(`team-${i % 20}`, `web-${i}`, phase)));
  }
  return { system, node, pods };
}
