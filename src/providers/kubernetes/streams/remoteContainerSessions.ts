/**
 * The provider's container sessions, relayed to the remote API server: logs, exec, attach and
 * port-forward. Each first checks that the host pod is offloaded by this node (`notFound`
 * otherwise), then addresses its remote copy in the remote namespace.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { invalidInput, notFound } from '../../errors.js';
import type { ContainerLogOptions, ContainerRef, ContainerStreams, PortConnection } from '../../provider.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import { streamRemoteLogs } from './remoteLogs.js';
import { relayRemotePortForward } from './remotePortForward.js';
import { relayRemoteStream } from './remoteStreams.js';

export interface RemoteContainerSessionsDeps {
  readonly remote: ClusterClient;
  readonly nodeName: string;
  /** The host pod as the provider reports it, if this node offloads it. */
  readonly getPod: (namespace: string, name: string, signal?: AbortSignal) => Promise<Pod | undefined>;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
}

export class RemoteContainerSessions {
  private readonly remote: ClusterClient;

  constructor(private readonly deps: RemoteContainerSessionsDeps) {
    this.remote = deps.remote;
  }

  private getPod(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined> {
    return this.deps.getPod(namespace, name, signal);
  }

  private remoteNamespaceOf(hostNamespace: string): string {
    return this.deps.remoteNamespaceOf(hostNamespace);
  }

  async getContainerLogs(
    namespace: string, podName: string, containerName: string, options: ContainerLogOptions, signal?: AbortSignal,
  ): Promise<AsyncIterable<string>> {
    const pod = await this.getPod(namespace, podName, signal);
    if (!pod) throw notFound(`pod ${namespace}/${podName} is not offloaded by virtual node ${this.deps.nodeName}`);
    const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
    if (!containers.some((c) => c.name === containerName)) {
      throw invalidInput(`pod ${namespace}/${podName} has no container ${containerName}`);
    }
    const target = { namespace: this.remoteNamespaceOf(namespace), pod: podName, container: containerName };
    return streamRemoteLogs(this.remote, target, options, signal);
  }

  /** exec in the remote pod through the remote API server; its output, exit code and errors come back unchanged. */
  async runInContainer(target: ContainerRef, command: readonly string[], streams: ContainerStreams, signal?: AbortSignal): Promise<number> {
    const path = await this.remoteStreamPath(target, 'exec', streams, command.map((c) => ['command', c] as const), signal);
    const code = await relayRemoteStream(this.remote.kubeConfig, path, streams, `exec in remote pod of ${target.namespace}/${target.pod}`, signal);
    return code ?? 0;
  }

  /** attach to the remote pod's container through the remote API server. */
  async attachToContainer(target: ContainerRef, streams: ContainerStreams, signal?: AbortSignal): Promise<number | undefined> {
    const path = await this.remoteStreamPath(target, 'attach', streams, [], signal);
    return relayRemoteStream(this.remote.kubeConfig, path, streams, `attach to remote pod of ${target.namespace}/${target.pod}`, signal);
  }

  /** One forwarded connection to the remote pod's port through the remote API server. */
  async portForward(namespace: string, podName: string, port: number, connection: PortConnection, signal?: AbortSignal): Promise<void> {
    const pod = await this.getPod(namespace, podName, signal);
    if (!pod) throw notFound(`pod ${namespace}/${podName} is not offloaded by virtual node ${this.deps.nodeName}`);
    const target = { namespace: this.remoteNamespaceOf(namespace), pod: podName, port };
    await relayRemotePortForward(this.remote.kubeConfig, target, connection, `port-forward to remote pod of ${namespace}/${podName}`, signal);
  }

  private async remoteStreamPath(
    target: ContainerRef, kind: 'exec' | 'attach', streams: ContainerStreams, extra: ReadonlyArray<readonly [string, string]>, signal?: AbortSignal,
  ): Promise<string> {
    const pod = await this.getPod(target.namespace, target.pod, signal);
    if (!pod) throw notFound(`pod ${target.namespace}/${target.pod} is not offloaded by virtual node ${this.deps.nodeName}`);
    const query = new URLSearchParams({ container: target.container });
    for (const [k, v] of extra) query.append(k, v);
    for (const name of ['stdin', 'stdout', 'stderr'] as const) if (streams[name]) query.append(name, 'true');
    if (streams.tty) query.append('tty', 'true');
    const namespace = encodeURIComponent(this.remoteNamespaceOf(target.namespace));
    return `/api/v1/namespaces/${namespace}/pods/${encodeURIComponent(target.pod)}/${kind}?${query.toString()}`;
  }
}
