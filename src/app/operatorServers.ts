/**
 * The servers around a running agent: the operator's HTTP port (actor tree page, /actors, health,
 * /metrics) and each virtual node's kubelet API (HTTPS, where the API server proxies `kubectl
 * logs`). A server that cannot start (a port in use, say) is logged and left out: the agent's
 * real work, keeping nodes and pods true, does not depend on it. A kubelet API that did not start
 * fails `/readyz` (`node/<name>/kubelet-api`), though: `kubectl logs` and the API server's probes of
 * the node go through it, so the replica is not what an operator deployed until it runs.
 */
import type { IncomingMessage } from 'node:http';
import { accessReviewerOf } from '../adapters/kubernetes/accessReviewClient.js';
import type { ClusterClient } from '../adapters/kubernetes/clusterClient.js';
import { DEFAULT_KUBELET_PORT } from '../adapters/kubernetes/model.js';
import type { Logger } from '../adapters/logger.js';
import type { Clock } from '../lib/clock.js';
import { LifecycleControl, type Lifecycle } from '../lib/lifecycle.js';
import { systemClock } from '../adapters/clock.js';
import { errorMessage } from '../lib/errorMessage.js';
import type { LegacyPodProvider } from '../providers/provider.js';
import type { TetherConfig } from '../config/index.js';
import { boundedReviewer, decideAccess, startKubeletServer, watchCertificateFiles, type AccessReviewer, type KubeletServer } from '../kubelet/index.js';
import type { Check } from '../observability/health.js';
import { isLoopbackAddress, startIntrospectionServer, type GuardDecision, type IntrospectionServer } from '../observability/introspectionServer.js';
import type { TetherMetrics } from '../observability/metrics.js';
import { kubeletServerLimits } from '../kubelet/kubeletApiSettings.js';
import type { AgentView } from '../observability/agentView.js';
import { definedOnly } from '../lib/defaults.js';

export const DEFAULT_INTROSPECTION_PORT = 10256;

/** The servers, with the one lifecycle: ready once listening (those that could start); `stop()` closes them all. */
export interface OperatorServers extends Lifecycle {
  /** The actor tree page, when the introspection server runs. */
  readonly introspectionUrl: string | undefined;
}

export interface OperatorServerDeps {
  readonly agent: AgentView;
  readonly metrics: TetherMetrics;
  /**
   * The host connection the agent built (agentFromConfig.ts); the TokenReviews and
   * SubjectAccessReviews of the actor tree and the kubelet APIs go over it.
   */
  readonly hostClient: ClusterClient;
  readonly providers: readonly Pick<LegacyPodProvider, 'listPods' | 'getPod'>[];
  readonly logger: Logger;
  readonly clock?: Clock;
}

export async function startOperatorServers(config: TetherConfig, deps: OperatorServerDeps): Promise<OperatorServers> {
  const closers: Array<() => Promise<unknown>> = [];
  const attempt = async <T>(what: string, start: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await start();
    } catch (error) {
      deps.logger.error(`${what} did not start; Tether runs on without it`, { error: errorMessage(error) });
      return undefined;
    }
  };

  // One readiness check per node's kubelet API: failing until it listens, with the reason it did not.
  const kubeletApi = new Map<string, Check>();
  const kubeletApiOn = config.kubeletApi?.enabled !== false;
  if (kubeletApiOn) {
    for (const node of config.nodes) kubeletApi.set(node.name, { name: `node/${node.name}/kubelet-api`, ok: false, reason: 'starting' });
  }
  const extraReadiness = (): readonly Check[] => [...kubeletApi.values()];

  let introspectionUrl: string | undefined;
  const intro = config.ports?.introspection;
  const introHost = intro?.address ?? '127.0.0.1';
  if (intro?.port !== 0) {
    // Exposed beyond loopback, the actor tree asks what the kubelet API asks: a user the API server
    // authenticates, allowed `get nodes/proxy` on every virtual node this Tether serves.
    const guard = isLoopbackAddress(introHost) || intro?.anonymous === true ? undefined : actorTreeGuard(boundedReviewer(accessReviewerOf(deps.hostClient), { clock: systemClock }), config.nodes.map((n) => n.name));
    const server = await attempt('the introspection server', () =>
      startIntrospectionServer({
        agent: deps.agent, metrics: deps.metrics, host: introHost, port: intro?.port ?? DEFAULT_INTROSPECTION_PORT, logger: deps.logger, extraReadiness,
        ...definedOnly({ guard }),
      }));
    if (server) {
      introspectionUrl = server.url;
      closers.push(() => server.stop());
      deps.logger.info('introspection server listening', { url: server.url });
    }
  }
  const metricsPort = config.ports?.metrics;
  if (metricsPort && metricsPort.port > 0) {
    const server: IntrospectionServer | undefined = await attempt('the metrics server', () =>
      startIntrospectionServer({ agent: deps.agent, metrics: deps.metrics, host: metricsPort.address ?? '0.0.0.0', port: metricsPort.port, logger: deps.logger, extraReadiness, routes: 'probes' }));
    if (server) closers.push(() => server.stop());
  }

  if (kubeletApiOn) {
    const api = config.kubeletApi;
    const reviewer = boundedReviewer(accessReviewerOf(deps.hostClient), { clock: systemClock });
    // The certificate files, read again for rotations (certificateSource.ts); unusable at start, no kubelet API starts.
    const files = { certFile: api?.certFile, keyFile: api?.keyFile, clientCAFile: api?.clientCAFile };
    const anyFile = files.certFile ?? files.keyFile ?? files.clientCAFile;
    const certificates = anyFile === undefined ? undefined
      : await watchCertificateFiles(files, { logger: deps.logger, settingPrefix: 'kubeletApi.', ...definedOnly({ checkIntervalMs: api?.certificateCheckIntervalMs || undefined }) }).catch((error: unknown): undefined => {
        deps.logger.error(`${errorMessage(error)}; the kubelet APIs do not start and /readyz fails`);
        for (const [name, check] of kubeletApi) kubeletApi.set(name, { ...check, ok: false, reason: errorMessage(error) });
        return undefined;
      });
    if (certificates) closers.push(async () => certificates.stop());
    const filesOk = anyFile === undefined || certificates !== undefined;
    for (const [i, node] of filesOk ? config.nodes.entries() : []) {
      const provider = deps.providers[i];
      if (!provider) {
        kubeletApi.delete(node.name);
        continue;
      }
      const check = `node/${node.name}/kubelet-api`;
      const server: KubeletServer | undefined = await attempt(`the kubelet API of ${node.name}`, () =>
        startKubeletServer({
          nodeName: node.name,
          provider,
          reviewer,
          ...kubeletServerLimits(api),
          rejections: { onRejected: (reason) => deps.metrics.recordKubeletRejection(node.name, reason) },
          nodeFigures: () => deps.metrics.renderNode(node.name),
          port: node.kubeletPort ?? DEFAULT_KUBELET_PORT,
          address: api?.address ?? '0.0.0.0',
          advertisedAddresses: [node.internalIP],
          logger: deps.logger.child({ node: node.name }),
          ...definedOnly({ tls: certificates ? { source: certificates } : undefined }),
        }).catch((error: unknown) => {
          kubeletApi.set(node.name, { name: check, ok: false, reason: `did not start: ${errorMessage(error)}` });
          throw error;
        }));
      if (server) {
        kubeletApi.set(node.name, { name: check, ok: true });
        closers.push(() => server.stop());
      }
    }
  }

  const life = new LifecycleControl({
    clock: deps.clock ?? systemClock,
    release: async () => {
      await Promise.all(closers.map((close) => close().catch(() => undefined)));
    },
  });
  life.markReady();
  return { introspectionUrl, ready: life.ready, done: life.done, stop: (options) => life.stop(options) };
}

/** The actor tree's guard when exposed: the kubelet API's decision, for each virtual node in turn. */
export function actorTreeGuard(reviewer: AccessReviewer, nodeNames: readonly string[]) {
  return async (req: IncomingMessage): Promise<GuardDecision> => {
    if (nodeNames.length === 0) return { allowed: false, code: 403, message: 'Forbidden: no virtual node to authorize against' };
    for (const name of nodeNames) {
      const decision = await decideAccess(reviewer, name, req, '/actors');
      if (!decision.allowed) return decision;
    }
    return { allowed: true };
  };
}
