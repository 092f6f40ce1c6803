/**
 * From a validated config to a running agent, and back down: builds each node's provider, starts
 * one TetherAgent for all nodes, and stops both within a bound (the agent first: leases stop
 * renewing, watches stop, pending writes and Events go out; then the providers close their
 * connections).
 */
import type { Logger } from '../adapters/logger.js';
import { pinoLogger } from '../adapters/pinoLogger.js';
import { defaultPodActorConfig } from '../actors/pod/protocol.js';
import { DEFAULT_LOG_LEVEL, DEFAULT_SHUTDOWN_TIMEOUT_MS, resolveRestartPolicies, type TetherConfig } from '../config/index.js';
import { hostKubeconfigSource } from './hostKubeconfig.js';
import { leaderElectionFromEnv, type LeaderElectionOptions } from './leaderElection.js';
import { TetherMetrics } from '../observability/metrics.js';
import { withProviderMetrics } from '../observability/providerMetrics.js';
import { startOperatorServers } from './operatorServers.js';
import { createProvider, type ProviderHandle } from './providerFactory.js';
import { TetherAgent, type AgentNodeSpec } from './tetherAgent.js';

export interface RunningAgent {
  readonly agent: TetherAgent;
  readonly logger: Logger;
  /** The live actor tree page, when the introspection server runs. */
  readonly introspectionUrl: string | undefined;
  /** Resolves 'clean' when everything stopped in time, 'timeout' when the bound ran out first. */
  stop(): Promise<'clean' | 'timeout'>;
}

export interface StartOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  /** The root supervisor gave up: the process cannot continue. */
  readonly onFatal?: (error: unknown) => void;
}

export async function startAgentFromConfig(config: TetherConfig, options: StartOptions = {}): Promise<RunningAgent> {
  const logger = options.logger ?? pinoLogger({ level: config.logLevel ?? DEFAULT_LOG_LEVEL });
  const host = hostKubeconfigSource(config.host, options.env ?? process.env);
  const policies = resolveRestartPolicies(config.restartPolicies);
  const handles: ProviderHandle[] = [];
  try {
    for (const node of config.nodes) {
      handles.push(await createProvider(node.provider, { nodeName: node.name, internalIP: node.internalIP, host, logger: logger.child({ node: node.name }) }));
    }
    const metrics = new TetherMetrics();
    // Providers are timed and counted per call; the agent and the servers see the same wrapper.
    const providers = handles.map((h, i) => withProviderMetrics(h.provider, metrics, config.nodes[i]!.name));
    const nodes = config.nodes.map((node, i): AgentNodeSpec => nodeSpec(node, { ...handles[i]!, provider: providers[i]! }, policies));
    const leaderElection = leaderElectionFromEnv(options.env ?? process.env) ?? leaderElectionFromConfig(config, options.env ?? process.env);
    const agent = TetherAgent.start({
      host,
      nodes,
      logger,
      rootPolicy: policies.root,
      onStatusLatency: (node, seconds) => metrics.recordStatusLatency(node, seconds),
      ...(options.onFatal ? { onFatal: options.onFatal } : {}),
      ...(config.rateLimit ? { rateLimit: config.rateLimit } : {}),
      ...(leaderElection ? { leaderElection } : {}),
    });
    metrics.observe(agent);
    const servers = await startOperatorServers(config, { agent, metrics, host, providers, logger });
    const timeoutMs = config.shutdown?.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    const deleteNodes = config.shutdown?.deleteNodeOnShutdown ?? false;
    return {
      agent,
      logger,
      introspectionUrl: servers.introspectionUrl,
      stop: async () => {
        // The servers go first (no new requests), but never hold up the agent's own shutdown.
        await Promise.race([servers.close(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
        return stopWithin(agent, handles, { timeoutMs, deleteNodes });
      },
    };
  } catch (error) {
    await Promise.all(handles.map((h) => h.stop().catch(() => undefined)));
    throw error;
  }
}

function nodeSpec(node: TetherConfig['nodes'][number], handle: ProviderHandle, policies: ReturnType<typeof resolveRestartPolicies>): AgentNodeSpec {
  const defined = <T extends object>(v: T | undefined): Partial<T> | undefined =>
    v === undefined ? undefined : (Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) as Partial<T>);
  const podRetry = defined(node.pod?.retry);
  const pod = node.pod ? { ...defined({ graceMarginMs: node.pod.graceMarginMs, createDeadlineMs: node.pod.createDeadlineMs, refetchMs: node.pod.refetchMs }), ...(podRetry ? { retry: { ...defaultPodRetry, ...podRetry } } : {}) } : undefined;
  const lease = node.lease ? { ...defined({ namespace: node.lease.namespace, durationSeconds: node.lease.durationSeconds, renewIntervalMs: node.lease.renewIntervalMs }), ...(node.lease.retry ? { retry: defined(node.lease.retry) } : {}) } : undefined;
  return {
    name: node.name,
    internalIP: node.internalIP,
    provider: handle.provider,
    nodePolicy: policies.node,
    podPolicy: policies.pod,
    ...(node.kubeletPort !== undefined ? { kubeletPort: node.kubeletPort } : {}),
    ...(node.labels ? { labels: node.labels } : {}),
    ...(node.taints ? { taints: node.taints } : {}),
    ...(node.ping ? { ping: defined(node.ping) } : {}),
    ...(node.statusIntervalMs !== undefined ? { statusIntervalMs: node.statusIntervalMs } : {}),
    ...(lease ? { lease } : {}),
    ...(pod ? { pod } : {}),
    ...(node.sweepIntervalMs !== undefined ? { sweepIntervalMs: node.sweepIntervalMs } : {}),
    ...(node.shards !== undefined ? { shards: node.shards } : {}),
  };
}

const defaultPodRetry = defaultPodActorConfig('').retry;

async function stopWithin(
  agent: TetherAgent,
  handles: readonly ProviderHandle[],
  options: { timeoutMs: number; deleteNodes: boolean },
): Promise<'clean' | 'timeout'> {
  // The agent waits up to graceMs for node deletion and again for its connections: a third each.
  const graceMs = Math.max(100, Math.min(2_000, Math.floor(options.timeoutMs / 3)));
  const work = (async (): Promise<'clean'> => {
    await agent.shutdown({ deleteNodes: options.deleteNodes, graceMs });
    await Promise.all(handles.map((h) => h.stop().catch(() => undefined)));
    return 'clean';
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The config file's `leaderElection:` section; the identity defaults to the pod's name. */
function leaderElectionFromConfig(config: TetherConfig, env: NodeJS.ProcessEnv): LeaderElectionOptions | undefined {
  const section = config.leaderElection;
  if (!section) return undefined;
  const { namespace, identity, ...timing } = section;
  const defined = Object.fromEntries(Object.entries(timing).filter(([, v]) => v !== undefined));
  return { namespace, identity: identity ?? env.POD_NAME ?? env.HOSTNAME ?? '', ...defined };
}
