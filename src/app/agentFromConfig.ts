/**
 * From a validated config to a running agent, and back down: builds each node's provider, starts
 * one TetherAgent for all nodes, and stops both within a bound (the agent first: leases stop
 * renewing, watches stop, pending writes and Events go out; then the providers close their
 * connections).
 */
import { ClusterClient } from '../adapters/kubernetes/clusterClient.js';
import { loadKubeConfig } from '../adapters/kubernetes/kubeconfig.js';
import { systemClock } from '../adapters/clock.js';
import type { Logger } from '../adapters/logger.js';
import type { Clock } from '../lib/clock.js';
import { LifecycleControl, type Lifecycle } from '../lib/lifecycle.js';
import { definedOnly } from '../lib/defaults.js';
import { pinoLogger } from '../adapters/pinoLogger.js';
import { DEFAULT_LOG_LEVEL, DEFAULT_SHUTDOWN_TIMEOUT_MS, resolveRestartPolicies, type TetherConfig } from '../config/index.js';
import { hostKubeconfigSource } from '../config/hostKubeconfig.js';
import type { LeaderElectionOptions } from '../ha/index.js';
import { TetherMetrics } from '../observability/metrics.js';
import { withProviderMetrics } from '../observability/providerMetrics.js';
import { startOperatorServers } from './operatorServers.js';
import { PodEventForwarder } from './podEventForwarder.js';
import { createProvider, type ProviderHandle } from './providerFactory.js';
import { TetherAgent, type AgentNodeSpec } from './tetherAgent.js';

/**
 * Tether as `tether run` runs it, with the one lifecycle: ready once the agent is; `stop()`
 * closes the servers, stops the agent, then the providers, within the configured shutdown bound
 * (`clean`, or `timeout` when the bound ran out first).
 */
export interface RunningAgent extends Lifecycle {
  readonly agent: TetherAgent;
  readonly logger: Logger;
  /** The live actor tree page, when the introspection server runs. */
  readonly introspectionUrl: string | undefined;
}

export interface StartOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Default: a new registry; `tether run` passes its own, which also counts process-level errors. */
  readonly metrics?: TetherMetrics;
  /** The root supervisor gave up: the process cannot continue. */
  readonly onFatal?: (error: unknown) => void;
}

export async function startAgentFromConfig(config: TetherConfig, options: StartOptions = {}): Promise<RunningAgent> {
  const logger = options.logger ?? pinoLogger({ level: config.logLevel ?? DEFAULT_LOG_LEVEL });
  const clock = options.clock ?? systemClock;
  const host = hostKubeconfigSource(config.host, options.env ?? process.env);
  const policies = resolveRestartPolicies(config.restartPolicies);
  const handles: ProviderHandle[] = [];
  const podEvents = config.nodes.map((node) => new PodEventForwarder(node.name));
  const leaderElection = leaderElectionFromConfig(config, options.env ?? process.env);
  // Under leader election every node's writes are fenced from the start, its provider's too: a
  // standby writes nothing until it holds the node's lock (the agent opens them then).
  const fenced = leaderElection !== undefined;
  // One host connection per node, for the node's actors and its provider alike; stopped last.
  const hostKubeConfig = loadKubeConfig(host);
  const hostClients = config.nodes.map((node) => new ClusterClient(hostKubeConfig, {
    clock, ...definedOnly({ rateLimit: config.rateLimit, eventRateLimit: config.eventRateLimit, fenced: fenced ? `this replica does not hold the lock of node ${node.name}` : undefined }),
  }));
  // One host EventRecorder per node too, for the node's actors and its provider alike.
  const hostEvents = config.nodes.map((node, i) => hostClients[i]!.eventRecorder({ reportingInstance: node.name, clock, log: logger.child({ node: node.name }) }));
  const closeHostClients = async (): Promise<void> => void (await Promise.all(hostClients.map((c) => c.stop())));
  try {
    for (const [i, node] of config.nodes.entries()) {
      handles.push(await createProvider(node.provider, {
        nodeName: node.name, internalIP: node.internalIP, host, hostClient: hostClients[i]!, hostEvents: hostEvents[i]!, logger: logger.child({ node: node.name }), podEvents: podEvents[i]!, fenced,
      }));
    }
    const metrics = options.metrics ?? new TetherMetrics();
    // Providers are timed and counted per call; the agent and the servers see the same wrapper.
    const providers = handles.map((h, i) => withProviderMetrics(h.provider, metrics, config.nodes[i]!.name));
    // A provider's own gauges (MetricsProvider), if it has any.
    handles.forEach((h, i) => metrics.observeProvider(config.nodes[i]!.name, h.provider));
    const nodes = config.nodes.map((node, i): AgentNodeSpec => ({ ...nodeSpec(node, { ...handles[i]!, provider: providers[i]! }, policies), hostClient: hostClients[i]!, hostEvents: hostEvents[i]! }));
    const agent = TetherAgent.start({
      host,
      nodes,
      logger,
      rootPolicy: policies.root,
      clock,
      onStatusLatency: (node, seconds) => metrics.recordStatusLatency(node, seconds),
      ...definedOnly({ onFatal: options.onFatal, rateLimit: config.rateLimit, leaderElection }),
    });
    config.nodes.forEach((node, i) => podEvents[i]!.bind(agent.eventsOf(node.name)));
    metrics.observe(agent);
    // The reviews of the servers go over the first node's host connection (every node's reaches the
    // same host cluster; a config has at least one node): no kubeconfig is loaded for them again.
    const servers = await startOperatorServers(config, { agent, metrics, hostClient: hostClients[0]!, providers, logger, clock });
    const deadlineMs = config.shutdown?.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    const deleteNodes = config.shutdown?.deleteNodeOnShutdown ?? false;
    const life = new LifecycleControl({
      clock,
      defaultDeadlineMs: deadlineMs,
      release: async () => {
        // The servers go first (no new requests), but never hold up the agent's own stop.
        await servers.stop({ deadlineMs: 1_000 });
        await agent.stop({ deleteNodes, deadlineMs });
        await Promise.all(handles.map((h) => h.stop()));
        await closeHostClients();
      },
    });
    agent.ready.then(() => life.markReady(), (error: unknown) => life.fail(error));
    agent.done.catch((error: unknown) => life.fail(error));
    return { agent, logger, introspectionUrl: servers.introspectionUrl, ready: life.ready, done: life.done, stop: (o) => life.stop(o) };
  } catch (error) {
    await Promise.all(handles.map((h) => h.stop()));
    await closeHostClients();
    throw error;
  }
}

function nodeSpec(node: TetherConfig['nodes'][number], handle: ProviderHandle, policies: ReturnType<typeof resolveRestartPolicies>): AgentNodeSpec {
  // The file's node section is the node's settings; only the provider is swapped for the live one.
  return { ...node, provider: handle.provider, nodePolicy: policies.node, podPolicy: policies.pod };
}

/**
 * The `leaderElection:` section (the file, or the TETHER_LEADER_ELECTION_* variables the chart
 * sets, through the same overrides table as every other variable); the identity defaults to the
 * pod's name.
 */
function leaderElectionFromConfig(config: TetherConfig, env: NodeJS.ProcessEnv): LeaderElectionOptions | undefined {
  const section = config.leaderElection;
  if (!section) return undefined;
  const { namespace, identity, ...timing } = section;
  return { namespace, identity: identity ?? (env.POD_NAME || env.HOSTNAME || ''), ...definedOnly(timing) };
}
