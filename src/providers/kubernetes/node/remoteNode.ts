/**
 * The virtual node's health and size, read from the remote cluster: `ping` asks the remote API
 * server's `/readyz` (with a timeout), `capacity` sums its usable nodes (capacity.ts), `nodeInfo`
 * describes one of them.
 */
import { forEachPage } from '../../../adapters/kubernetes/pagedList.js';
import { Health } from '@kubernetes/client-node';
import type { Node, Pod } from '../../../adapters/kubernetes/model.js';
import type { NodeResources, ProviderNodeInfo, ResourceList } from '../../provider.js';
import { transient } from '../../errors.js';
import { inPool, isUsableNode, remoteCapacity } from './capacity.js';
import { definedOnly } from '../../../lib/defaults.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { asProviderCall, untilAborted } from '../remoteErrors.js';
import { operation } from '../../../adapters/kubernetes/operation.js';

export interface RemoteNodeOptions {
  readonly remote: ClusterClient;
  /** How long `/readyz` may take (default 5 s). */
  readonly pingTimeoutMs?: number;
  readonly quota?: ResourceList;
  readonly countVirtualNodes?: boolean;
  /** The scheduling patch's nodeSelector: capacity and nodeInfo from those remote nodes only. */
  readonly pool?: Readonly<Record<string, string>>;
  readonly isOwnPod: (pod: Pod) => boolean;
  readonly defaultNodeInfo?: Partial<ProviderNodeInfo>;
}

const NON_TERMINAL = 'status.phase!=Succeeded,status.phase!=Failed';

export class RemoteNode {
  private readonly health: Health;

  constructor(private readonly o: RemoteNodeOptions) {
    this.health = new Health(o.remote.kubeConfig);
  }

  async ping(signal?: AbortSignal): Promise<void> {
    const timeoutMs = this.o.pingTimeoutMs ?? 5_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const where = `remote API server ${this.o.remote.server}`;
    let ready: boolean;
    try {
      ready = await this.health.readyz({ signal: combined } as Parameters<Health['readyz']>[0]);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const why = timeout.aborted ? `did not answer /readyz within ${timeoutMs} ms` : 'is unreachable';
      throw transient(`${where} ${why}`, { cause: err });
    }
    if (!ready) throw transient(`${where} is not ready (/readyz did not answer 200)`);
  }

  async capacity(signal?: AbortSignal): Promise<NodeResources> {
    if (this.o.quota) return remoteCapacity({ nodes: [], pods: [], quota: this.o.quota });
    const [nodes, pods] = await untilAborted(Promise.all([this.nodes(), this.nonTerminalPods()]), signal);
    return remoteCapacity({ nodes, pods, isOwnPod: this.o.isOwnPod, countVirtualNodes: this.o.countVirtualNodes ?? false, ...definedOnly({ pool: this.o.pool }) });
  }

  async nodeInfo(signal?: AbortSignal): Promise<ProviderNodeInfo> {
    const nodes = (await untilAborted(this.nodes(), signal)).filter((n) => inPool(n, this.o.pool));
    const info = (nodes.find((n) => isUsableNode(n, this.o.countVirtualNodes)) ?? nodes[0])?.status?.nodeInfo;
    const d = this.o.defaultNodeInfo ?? {};
    return {
      operatingSystem: info?.operatingSystem ?? d.operatingSystem ?? 'linux',
      architecture: info?.architecture ?? d.architecture ?? 'amd64',
      kernelVersion: info?.kernelVersion ?? d.kernelVersion ?? '',
      osImage: info?.osImage ?? d.osImage ?? '',
      containerRuntimeVersion: info?.containerRuntimeVersion ?? d.containerRuntimeVersion ?? '',
    };
  }

  private async nodes(): Promise<Node[]> {
    const list = await asProviderCall('list remote nodes', () => this.o.remote.call('other', operation('list', 'remote nodes'), (core, options) => core.listNode({}, options)));
    return list.items;
  }

  /**
   * Every non-terminal pod in the remote cluster but this node's own (a cost paid once per
   * capacity poll), read page by page and kept only if it counts: at 10,000 offloaded pods one
   * unpaged list was ~40 MB at once, all of it this node's own pods, which capacity leaves out.
   */
  private async nonTerminalPods(): Promise<Pod[]> {
    const others: Pod[] = [];
    await asProviderCall('list remote pods', () => forEachPage(
      (page) => this.o.remote.call('other', operation('list', 'remote pods'), (core, options) =>
        core.listPodForAllNamespaces({ fieldSelector: NON_TERMINAL, ...page }, options), { deadline: 'list' }),
      ({ items }) => {
        for (const pod of items) if (!this.o.isOwnPod(pod)) others.push(pod);
      },
    ));
    return others;
  }
}
