/**
 * Providers from the config file: `simulated` and `kubernetes`. Each handle has the provider's
 * lifecycle; it is stopped after the agent (a Kubernetes provider closes its remote watches; its
 * remote pods keep running). A remote kubeconfig held in a Secret is read from the host cluster here.
 */
import type { ClusterClient } from '../adapters/kubernetes/clusterClient.js';
import { readClusterUid } from '../adapters/kubernetes/clusterUid.js';
import { createConfigObjectReader } from '../adapters/kubernetes/configObjects.js';
import { loadKubeConfig, type KubeconfigSource } from '../adapters/kubernetes/kubeconfig.js';
import { readSecretData } from '../adapters/kubernetes/secrets.js';
import type { Logger } from '../adapters/logger.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { PodEventForwarder } from './podEventForwarder.js';
import { refusedCredentials } from '../config/remoteKubeconfigPolicy.js';
import { hostClusterIdFromUid, KubernetesProvider } from '../providers/kubernetes/index.js';
import type { ClusterSource } from '../providers/kubernetes/index.js';
import type { NodeResources, Provider } from '../providers/provider.js';
import { DEFAULT_RESOURCES, SimulatedProvider } from '../providers/simulated/simulatedProvider.js';
import {
  DEFAULT_REMOTE_SECRET_KEY, type KubernetesProviderConfig, type ProviderConfig, type SimulatedProviderConfig,
} from '../config/index.js';

export interface ProviderHandle extends Lifecycle {
  readonly provider: Provider;
}

export interface ProviderContext {
  readonly nodeName: string;
  /** The node's address: the simulated provider reports it as its pods' hostIP. */
  readonly internalIP: string;
  readonly host: KubeconfigSource;
  /** The node's one host connection, shared with the agent: a provider calls the host cluster through it, and never stops it. */
  readonly hostClient: ClusterClient;
  readonly logger: Logger;
  /** Where a provider's Events about the node's pods go (the node's host EventRecorder). */
  readonly podEvents?: PodEventForwarder;
}

/** A configuration the process cannot act on (a Secret that is missing, say): exit code 2. */
export class ProviderSetupError extends Error {
  override readonly name = 'ProviderSetupError';
}

export async function createProvider(config: ProviderConfig, ctx: ProviderContext): Promise<ProviderHandle> {
  switch (config.type) {
    case 'simulated':
      return simulated(config, ctx);
    case 'kubernetes':
      return kubernetes(config, ctx);
  }
}

export function simulatedResources(resources: SimulatedProviderConfig['resources']): NodeResources {
  const list = { ...DEFAULT_RESOURCES.capacity, ...Object.fromEntries(Object.entries(resources ?? {}).filter(([, v]) => v !== undefined)) };
  return { capacity: list, allocatable: { ...list } };
}

function simulated(config: SimulatedProviderConfig, ctx: ProviderContext): ProviderHandle {
  const exitAfter = config.exitAfterMs;
  const provider = new SimulatedProvider({
    hostIP: config.hostIP ?? ctx.internalIP,
    resources: simulatedResources(config.resources),
    ...(config.startLatencyMs !== undefined ? { startLatencyMs: config.startLatencyMs } : {}),
    ...(config.stopLatencyMs !== undefined ? { stopLatencyMs: config.stopLatencyMs } : {}),
    ...(exitAfter !== undefined ? { exitAfterMs: () => exitAfter } : {}),
    ...(config.logIntervalMs !== undefined ? { logIntervalMs: config.logIntervalMs } : {}),
    ...(config.podCIDR !== undefined ? { podCIDR: config.podCIDR } : {}),
    ...(config.faults ? { faults: { ...config.faults } } : {}),
    // exec sees the ConfigMaps and Secrets of the cluster whose pods this node runs.
    configSource: createConfigObjectReader(loadKubeConfig(ctx.host)),
  });
  return handleOf(provider, provider);
}

async function kubernetes(config: KubernetesProviderConfig, ctx: ProviderContext): Promise<ProviderHandle> {
  const remote = await remoteSource(config.remote, ctx);
  const hostClusterId = config.hostClusterId ?? (await derivedHostClusterId(ctx));
  ctx.logger.info('kubernetes provider host cluster id', {
    hostClusterId, source: config.hostClusterId === undefined ? 'derived from the UID of the host kube-system namespace' : 'configured',
  });
  const provider = new KubernetesProvider({
    nodeName: ctx.nodeName,
    hostClusterId,
    remote,
    host: ctx.hostClient,
    log: ctx.logger.child({ provider: 'kubernetes' }),
    ...(config.namespaceStrategy ? { namespaceStrategy: config.namespaceStrategy } : {}),
    ...(config.podPolicy ? { podPolicy: Object.fromEntries(Object.entries(config.podPolicy).filter(([, v]) => v !== undefined)) } : {}),
    ...(config.offloadingPatch ? { offloadingPatch: config.offloadingPatch } : {}),
    ...(config.blankPodIPs !== undefined ? { blankPodIPs: config.blankPodIPs } : {}),
    ...(config.quota ? { quota: config.quota } : {}),
    ...(config.countVirtualNodes !== undefined ? { countVirtualNodes: config.countVirtualNodes } : {}),
    ...(config.pingTimeoutMs !== undefined ? { pingTimeoutMs: config.pingTimeoutMs } : {}),
    ...(config.rateLimit ? { rateLimit: config.rateLimit } : {}),
    ...(config.reflection ? { reflection: config.reflection } : {}),
    ...(ctx.podEvents ? { onRemoteEvent: ctx.podEvents.record } : {}),
    ...(config.reflectedKinds !== undefined ? { reflectedKinds: config.reflectedKinds === 'none' ? [] : [...new Set(config.reflectedKinds)] } : {}),
  });
  return handleOf(provider, provider);
}

function handleOf(provider: Provider, life: Lifecycle): ProviderHandle {
  return { provider, ready: life.ready, done: life.done, stop: (options) => life.stop(options) };
}

/** The default host cluster id: from the host cluster itself, so two hosts never share one. */
async function derivedHostClusterId(ctx: ProviderContext): Promise<string> {
  try {
    return hostClusterIdFromUid(await readClusterUid(ctx.host));
  } catch (error) {
    throw new ProviderSetupError(`node ${ctx.nodeName}: cannot derive hostClusterId from the host cluster (reading namespace kube-system: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}); set provider.hostClusterId`);
  }
}

async function remoteSource(remote: KubernetesProviderConfig['remote'], ctx: ProviderContext): Promise<ClusterSource> {
  const context = remote.context !== undefined ? { context: remote.context } : {};
  if ('kubeconfig' in remote) return { kind: 'file', path: remote.kubeconfig, ...context };
  const { namespace, name } = remote.secret;
  const key = remote.secret.key ?? DEFAULT_REMOTE_SECRET_KEY;
  const where = `secret ${namespace}/${name}`;
  let data: Record<string, string> | undefined;
  try {
    data = await readSecretData(ctx.host, namespace, name);
  } catch (error) {
    throw new ProviderSetupError(`node ${ctx.nodeName}: cannot read the remote kubeconfig from ${where}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const encoded = data?.[key];
  if (encoded === undefined) throw new ProviderSetupError(`node ${ctx.nodeName}: ${where} has no key '${key}' (keys: ${Object.keys(data ?? {}).join(', ') || 'none'})`);
  const yaml = Buffer.from(encoded, 'base64').toString('utf8');
  const refused = refusedCredentials(yaml, remote.secret.allow ?? [], `node ${ctx.nodeName}: ${where} key ${key}`);
  if (refused.length > 0) throw new ProviderSetupError(refused.join('\n'));
  return { kind: 'string', yaml, label: `kubeconfig from ${where} key ${key}`, ...context };
}
