/**
 * For e2e tests of the kubelet API through the host API server: a virtual node the API server can
 * reach. Its kubelet API listens at the host-side address of a harness network namespace (the
 * API server refuses loopback node addresses), and a Tether agent registers the node with that
 * InternalIP and port. Everything stops at the test's end.
 */
import { readFileSync } from 'node:fs';
import type { Taint } from '../../src/adapters/kubernetes/model.js';
import { definedOnly } from '../../src/lib/defaults.js';
import type { Test } from 'tap';
import { createAccessReviewer } from '../../src/adapters/kubernetes/accessReviewClient.js';
import { systemClock } from '../../src/adapters/clock.js';
import { boundedReviewer } from '../../src/kubelet/boundedReviewer.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import type { PodEventForwarder } from '../../src/app/podEventForwarder.js';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { createNetworkNamespace } from '../../src/harness/networkNamespace.js';
import { startKubeletServer, type KubeletServer, type KubeletServerOptions } from '../../src/kubelet/kubeletServer.js';
import type { Provider } from '../../src/providers/provider.js';
import { uniqueNamespace } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, type KubeObject } from './kubectlJson.js';

export interface KubeletNode {
  readonly nodeName: string;
  readonly kubelet: KubeletServer;
  /** The node's InternalIP, where its kubelet API listens. */
  readonly address: string;
}

export async function startKubeletNode(
  t: Test,
  host: ClusterAccess,
  options: {
    readonly prefix: string;
    readonly provider: Provider & { stop(): Promise<unknown> };
    /** What the kubelet API serves from, if not `provider` itself (a wrapper, say). */
    readonly kubeletProvider?: (nodeName: string) => KubeletServerOptions['provider'];
    /** Bound to the node's host EventRecorder once the agent runs (a provider's pod Events, as `tether run` binds them). */
    readonly podEvents?: PodEventForwarder;
    /** The node's name, when its provider needs it first (a Kubernetes provider); default `uniqueNamespace(prefix)`. */
    readonly nodeName?: string;
    /** The node's taints (default Tether's own) and labels beyond Tether's. */
    readonly taints?: readonly Taint[];
    readonly labels?: Readonly<Record<string, string>>;
  },
): Promise<KubeletNode> {
  const ns = await createNetworkNamespace(options.prefix.slice(0, 6));
  t.teardown(() => ns.remove());
  const nodeName = options.nodeName ?? uniqueNamespace(options.prefix);
  const kubelet = await startKubeletServer({
    nodeName,
    provider: options.kubeletProvider?.(nodeName) ?? options.provider,
    reviewer: boundedReviewer(createAccessReviewer(host.kubeConfig()), { clock: systemClock }),
    clientCA: readFileSync(host.describe().caCertPath, 'utf8'),
    address: ns.hostAddress,
    port: 0,
  });
  t.teardown(() => kubelet.stop());
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: ns.hostAddress, kubeletPort: kubelet.port, provider: options.provider, ...definedOnly({ taints: options.taints, labels: options.labels }), ping: { intervalMs: 500, timeoutMs: 1_000, failureThreshold: 2, successThreshold: 1 } }],
  });
  options.podEvents?.bind(agent.eventsOf(nodeName));
  t.teardown(async () => {
    void options.provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  await waitFor('the node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  return { nodeName, kubelet, address: ns.hostAddress };
}
