/**
 * The offloading topology of the e2e tests, on real clusters: in the remote cluster a "worker", a
 * Tether node with the simulated provider (so offloaded pods really reach Running); in the host
 * cluster a Tether whose virtual node offloads to the remote through the Kubernetes provider.
 * Each part stops at the test's end (the host side first, as tap runs teardowns last-in first-out).
 *
 *   const worker = startRemoteWorker(t, remote, { name: uniqueNamespace('shop-worker'), podCIDR: '10.88.0.0/16' });
 *   const node = startOffloadingNode(t, host, remote, { name: uniqueNamespace('shop'), hostClusterId: 'host1' });
 *   await bothReady(host, node, remote, worker);
 */
import type { PodSpec, Taint } from '../../src/adapters/kubernetes/model.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { PodEventForwarder } from '../../src/app/podEventForwarder.js';
import { TetherAgent, type AgentNodeSpec } from '../../src/app/tetherAgent.js';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { KubernetesProvider, type KubernetesProviderOptions } from '../../src/providers/kubernetes/index.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import type { InPlaceUpdate, NodeResources } from '../../src/providers/provider.js';
import type { ReportingHost, TeardownHost } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, type KubeObject } from './kubectlJson.js';

type Toleration = NonNullable<PodSpec['tolerations']>[number];

export interface RemoteWorkerOptions {
  /** The worker's node name (unique per test: `uniqueNamespace('…-worker')`). */
  readonly name: string;
  /** Where its pods get their IPs: distinct per test, so a test can tell its remote pods apart. */
  readonly podCIDR: string;
  readonly startLatencyMs?: number;
  readonly stopLatencyMs?: number;
  /** Default none: the worker is the remote's only node. On a shared remote, taint it so only this test's pods land there. */
  readonly taints?: readonly Taint[];
  /** Labels on the worker's Node beyond Tether's own (a pool's label, for a scheduling patch's nodeSelector). */
  readonly labels?: Readonly<Record<string, string>>;
  /** What the worker offers (default the simulated provider's: cpu 20, memory 100Gi, pods 10000). */
  readonly resources?: NodeResources;
  /** Delete the worker's Node when the test ends (default: leave it NotReady). */
  readonly deleteNodeOnStop?: boolean;
  /** The running-pod changes the worker applies in place, as a kubelet (default none). */
  readonly inPlaceUpdates?: readonly InPlaceUpdate[];
}

export interface RemoteWorker {
  readonly name: string;
  readonly provider: SimulatedProvider;
  readonly agent: TetherAgent;
  /** What an offloaded pod needs to tolerate to land on this worker (its taints). */
  readonly tolerations: Toleration[];
}

export function startRemoteWorker(t: TeardownHost, remote: ClusterAccess, options: RemoteWorkerOptions): RemoteWorker {
  const { name } = options;
  const taints = [...(options.taints ?? [])];
  const provider = new SimulatedProvider({
    startLatencyMs: options.startLatencyMs ?? 200,
    ...(options.stopLatencyMs !== undefined ? { stopLatencyMs: options.stopLatencyMs } : {}),
    podCIDR: options.podCIDR,
    ...(options.inPlaceUpdates !== undefined ? { inPlaceUpdates: options.inPlaceUpdates } : {}),
    ...(options.resources !== undefined ? { resources: options.resources } : {}),
  });
  const agent = TetherAgent.start({
    host: { kind: 'file', path: remote.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name, internalIP: '127.0.0.1', provider, taints, statusIntervalMs: 5_000, ...(options.labels !== undefined ? { labels: options.labels } : {}) }],
  });
  t.teardown(async () => {
    await agent.stop(options.deleteNodeOnStop ? { deleteNodes: true } : {});
    void provider.stop();
  });
  const tolerations = taints.map((taint): Toleration => ({ key: taint.key, operator: 'Equal', value: taint.value, effect: taint.effect }));
  return { name, provider, agent, tolerations };
}

/** The Kubernetes provider's options a test may choose; the clusters and the node come from the fixture. */
export type OffloadingProviderOptions = Partial<Omit<KubernetesProviderOptions, 'nodeName' | 'hostClusterId' | 'remote' | 'host'>>;

export interface OffloadingNodeOptions {
  /** The virtual node's name (unique per test, unless two host clusters share it on purpose). */
  readonly name: string;
  readonly hostClusterId: string;
  /** The kubeconfig of the remote account the provider uses (default: the remote cluster's admin one). */
  readonly remoteKubeconfigPath?: string;
  /** Beyond the defaults: counting virtual nodes (the remote's worker is one), reflection without delays. */
  readonly provider?: OffloadingProviderOptions;
  /** The virtual node's settings beyond its name and address (default: status every 5 s). */
  readonly node?: Partial<Omit<AgentNodeSpec, 'name' | 'internalIP' | 'provider'>>;
  /** Other nodes the host Tether runs beside the virtual node (a host-side simulated worker, say). */
  readonly otherNodes?: readonly AgentNodeSpec[];
  /** Record the provider's Events about pods on the host pods, as `tether run` wires it. */
  readonly forwardRemoteEvents?: boolean;
  /** Printed at teardown when the test failed (what the provider or the actors were doing). */
  readonly onFailure?: (node: OffloadingNode) => void;
}

export interface OffloadingNode {
  readonly name: string;
  readonly provider: KubernetesProvider;
  readonly agent: TetherAgent;
}

/** The virtual node's Kubernetes provider, with the fixture's defaults (for a node started another way, behind a kubelet API say). */
export function offloadingProvider(host: ClusterAccess, remote: ClusterAccess, options: Pick<OffloadingNodeOptions, 'name' | 'hostClusterId' | 'remoteKubeconfigPath' | 'provider'>, podEvents?: PodEventForwarder): KubernetesProvider {
  return new KubernetesProvider({
    ...(podEvents ? { onRemoteEvent: podEvents.record } : {}),
    nodeName: options.name,
    hostClusterId: options.hostClusterId,
    remote: { kind: 'file', path: options.remoteKubeconfigPath ?? remote.kubeconfigPath },
    host: { kind: 'file', path: host.kubeconfigPath },
    countVirtualNodes: true,
    reflection: { minAgeMs: 0, sweepDelayMs: 200 },
    ...options.provider,
  });
}

export function startOffloadingNode(t: ReportingHost, host: ClusterAccess, remote: ClusterAccess, options: OffloadingNodeOptions): OffloadingNode {
  const { name } = options;
  const podEvents = options.forwardRemoteEvents ? new PodEventForwarder() : undefined;
  const provider = offloadingProvider(host, remote, options, podEvents);
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [...(options.otherNodes ?? []), { name, internalIP: '127.0.0.1', provider, statusIntervalMs: 5_000, ...options.node }],
  });
  podEvents?.bind(agent.eventsOf(name));
  const node: OffloadingNode = { name, provider, agent };
  t.teardown(async () => {
    if (!t.passing()) options.onFailure?.(node);
    await agent.stop({ deleteNodes: true });
    await provider.stop();
  });
  return node;
}

/** Whether the Node `name` in `cluster` is Ready. */
export async function nodeIsReady(cluster: ClusterAccess, name: string): Promise<boolean> {
  return condition(await getJson<KubeObject>(cluster, ['node', name]), 'Ready')?.status === 'True';
}

/** Waits until the virtual node (in the host) and the worker (in the remote) are both Ready. */
export async function bothReady(host: ClusterAccess, node: OffloadingNode, remote: ClusterAccess, worker: RemoteWorker, timeoutMs = 90_000): Promise<void> {
  await waitFor('both nodes Ready', async () => (await nodeIsReady(host, node.name)) && (await nodeIsReady(remote, worker.name)), { timeoutMs });
}
