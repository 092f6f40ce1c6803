/**
 * One virtual node wired as the agent wires it (startVirtualNode: lease, node, pod controller,
 * sharded pod actors under a real ActorSystem), with every door to the outside in memory: the
 * host's pods and their watch (FakeHostPods), the Node and its Lease, Events, a hand-driven
 * provider, and a manual clock. virtual-kubelet's `wireUpSystem` in lifecycle_test.go, for Tether.
 *
 * Scenarios assert on what the outside observes (the host pod, the Node, Events, provider
 * calls), never on actor state, and wait with `eventually`: simulated time moves a step at a
 * time, the actors work in between, until the condition holds.
 */
import type { Test } from 'tap';
import { virtualNodeConfig, type VirtualNodeSettings } from '../../src/actors/virtualNodeConfig.js';
import { startVirtualNode, type VirtualNode } from '../../src/actors/virtualNode.js';
import type { Pod, PodCondition } from '../../src/adapters/kubernetes/model.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { ActorSystem } from '../../src/supervisors/actorSystem.js';
import { FakeEvents, type RecordedEvent } from './fakeEvents.js';
import { FakeHostPods } from './fakeHostPods.js';
import { FakeLeaseApi } from './fakeLeaseApi.js';
import { FakeNodeApi } from './fakeNodeApi.js';
import { fakeNodeWatch } from './fakeNodeWatch.js';
import { FakeProvider } from './fakeProvider.js';
import { ManualClock } from './manualClock.js';
import { drain } from './until.js';

/** The node name podFixture (test/providers/helpers.ts) binds its pods to. */
export const IN_MEMORY_NODE = 'tether-node';

export interface InMemoryNodeOptions {
  /** Settings beyond the name and address (ping, pod retries, ...). */
  readonly settings?: Partial<Omit<VirtualNodeSettings, 'name' | 'internalIP'>>;
  /** A provider of the test's own (one with an optional capability); default a FakeProvider. */
  readonly provider?: (clock: ManualClock) => FakeProvider;
}

export interface EventuallyOptions {
  /** Simulated time allowed before giving up (default 60 s). */
  readonly withinMs?: number;
  /** Simulated time per step (default 100 ms). */
  readonly stepMs?: number;
}

export interface InMemoryNode {
  readonly clock: ManualClock;
  readonly host: FakeHostPods;
  readonly nodeApi: FakeNodeApi;
  readonly leaseApi: FakeLeaseApi;
  readonly events: FakeEvents;
  readonly provider: FakeProvider;
  /** The virtual node running now (a new one after `restart`). */
  readonly vnode: VirtualNode;
  /**
   * A Tether restart: stops this virtual node's actors and starts them again over the same host,
   * provider, Node, Lease, Events and clock (what survives a restart), then waits until it is
   * Ready and both watches listed.
   */
  restart(): Promise<void>;
  /**
   * Lets the actors work and moves simulated time on, a step at a time, until `condition` holds
   * (a passing assertion named `description`); fails once `withinMs` of simulated time have
   * passed without it.
   */
  eventually(description: string, condition: () => boolean, options?: EventuallyOptions): Promise<void>;
  /** Binds `pod`, waits for its create at the provider, has it run, and waits until the host pod shows Running. */
  runPod(pod: Pod): Promise<void>;
  /** Moves simulated time on by `ms`, a step at a time, letting the actors work in between. */
  advance(ms: number, stepMs?: number): Promise<void>;
  /** Simulated time now, in ms since this node started. */
  elapsedMs(): number;
  /** The Events recorded about `name` (a pod's or the Node's), oldest first. */
  eventsOf(name: string): RecordedEvent[];
  /** A condition of the host pod as stored. */
  podCondition(namespace: string, name: string, type: string): PodCondition | undefined;
  /** The Node's Ready condition as stored. */
  nodeReady(): PodCondition | undefined;
}

export async function startInMemoryNode(t: Test, options: InMemoryNodeOptions = {}): Promise<InMemoryNode> {
  const clock = new ManualClock();
  const started = clock.now();
  let fatal: unknown;
  // One actor system per incarnation: a restart is a new process, with nothing of the old one's actors.
  const newSystem = (): ActorSystem => new ActorSystem({ clock, logger: silentLogger, random: () => 0.5, onFatal: (error) => (fatal = error) });
  let system = newSystem();
  const host = new FakeHostPods({ clock, recordCalls: true });
  const nodeApi = new FakeNodeApi(clock);
  const leaseApi = new FakeLeaseApi(clock);
  const events = new FakeEvents();
  const provider = options.provider?.(clock) ?? new FakeProvider({ clock });
  const start = (podWatch = host.watch): VirtualNode =>
    startVirtualNode(system.root, virtualNodeConfig({ name: IN_MEMORY_NODE, internalIP: '10.0.0.10', shards: 2, ...options.settings }), {
      provider,
      nodeApi,
      leaseApi,
      podApi: host,
      events,
      podWatch,
      nodeWatch: fakeNodeWatch(() => nodeApi.nodes.get(IN_MEMORY_NODE), clock),
      clock,
      logger: silentLogger,
    });
  let vnode = start();
  t.teardown(async () => {
    await vnode.stop({ deadlineMs: 1_000 });
    system.stop();
  });

  const eventually = async (description: string, condition: () => boolean, { withinMs = 60_000, stepMs = 100 }: EventuallyOptions = {}): Promise<void> => {
    const deadline = clock.now() + withinMs;
    for (;;) {
      await drain();
      if (fatal !== undefined) throw new Error(`the actor system failed while waiting for: ${description}`, { cause: fatal });
      if (condition()) {
        t.pass(description);
        return;
      }
      if (clock.now() >= deadline) throw new Error(`not within ${withinMs} ms of simulated time: ${description}`);
      clock.advance(stepMs);
    }
  };
  const advance = async (ms: number, stepMs = 100): Promise<void> => {
    const until = clock.now() + ms;
    while (clock.now() < until) {
      await drain();
      clock.advance(Math.min(stepMs, until - clock.now()));
    }
    await drain();
  };
  const runPod = async (pod: Pod): Promise<void> => {
    const { namespace = '', name = '' } = pod.metadata ?? {};
    host.bind(pod);
    await eventually(`${name} created at the provider`, () => provider.has(namespace, name));
    provider.run(namespace, name);
    await eventually(`${name} Running on the host`, () => host.pod(namespace, name)?.status?.phase === 'Running');
  };
  const node: InMemoryNode = {
    clock,
    host,
    nodeApi,
    leaseApi,
    events,
    provider,
    get vnode() {
      return vnode;
    },
    restart: async () => {
      const stopping = vnode.stop({ deadlineMs: 1_000 });
      await drain();
      await stopping;
      system.stop();
      system = newSystem();
      vnode = start(host.openWatch());
      await eventually('restarted: the node Ready and both watches listed', () => vnode.watchesSynced() && node.nodeReady()?.status === 'True');
    },
    eventually,
    runPod,
    advance,
    elapsedMs: () => clock.now() - started,
    eventsOf: (name) => events.recorded.filter((e) => e.regarding.name === name),
    podCondition: (namespace, name, type) => host.pod(namespace, name)?.status?.conditions?.find((c) => c.type === type),
    nodeReady: () => nodeApi.nodes.get(IN_MEMORY_NODE)?.status?.conditions?.find((c) => c.type === 'Ready'),
  };
  await eventually('the node registered Ready and both watches listed', () => vnode.watchesSynced() && node.nodeReady()?.status === 'True');
  return node;
}
