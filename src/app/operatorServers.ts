/**
 * The servers around a running agent: the operator's HTTP port (actor tree page, /actors, health,
 * /metrics) and each virtual node's kubelet API (HTTPS, where the API server proxies `kubectl
 * logs`). A server that cannot start (a port in use, say) is logged and left out: the agent's
 * real work, keeping nodes and pods true, does not depend on it.
 */
import { readFile } from 'node:fs/promises';
import { createAccessReviewer } from '../adapters/kubernetes/accessReviewClient.js';
import { loadKubeConfig, type KubeconfigSource } from '../adapters/kubernetes/kubeconfig.js';
import type { Logger } from '../adapters/logger.js';
import type { LegacyPodProvider } from '../providers/provider.js';
import type { TetherConfig } from '../config/index.js';
import { servingCertificateFiles, startKubeletServer, type KubeletServer } from '../kubelet/index.js';
import { startIntrospectionServer, type IntrospectionServer } from '../observability/introspectionServer.js';
import type { TetherMetrics } from '../observability/metrics.js';
import type { TetherAgent } from './tetherAgent.js';

export const DEFAULT_INTROSPECTION_PORT = 10256;
export const DEFAULT_KUBELET_PORT = 10250;

export interface OperatorServers {
  /** The actor tree page, when the introspection server runs. */
  readonly introspectionUrl: string | undefined;
  close(): Promise<void>;
}

export interface OperatorServerDeps {
  readonly agent: TetherAgent;
  readonly metrics: TetherMetrics;
  readonly host: KubeconfigSource;
  readonly providers: readonly Pick<LegacyPodProvider, 'listPods' | 'getPod'>[];
  readonly logger: Logger;
}

export async function startOperatorServers(config: TetherConfig, deps: OperatorServerDeps): Promise<OperatorServers> {
  const closers: Array<() => Promise<void>> = [];
  const attempt = async <T>(what: string, start: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await start();
    } catch (error) {
      deps.logger.error(`${what} did not start; Tether runs on without it`, { error: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  };

  let introspectionUrl: string | undefined;
  const intro = config.ports?.introspection;
  if (intro?.port !== 0) {
    const server = await attempt('the introspection server', () =>
      startIntrospectionServer({ agent: deps.agent, metrics: deps.metrics, host: intro?.address ?? '127.0.0.1', port: intro?.port ?? DEFAULT_INTROSPECTION_PORT, logger: deps.logger }));
    if (server) {
      introspectionUrl = server.url;
      closers.push(() => server.close());
      deps.logger.info('introspection server listening', { url: server.url });
    }
  }
  const metricsPort = config.ports?.metrics;
  if (metricsPort && metricsPort.port > 0) {
    const server: IntrospectionServer | undefined = await attempt('the metrics server', () =>
      startIntrospectionServer({ agent: deps.agent, metrics: deps.metrics, host: metricsPort.address ?? '0.0.0.0', port: metricsPort.port, logger: deps.logger }));
    if (server) closers.push(() => server.close());
  }

  if (config.kubeletApi?.enabled !== false) {
    const api = config.kubeletApi;
    const reviewer = createAccessReviewer(loadKubeConfig(deps.host));
    const clientCA = api?.clientCAFile ? await readFile(api.clientCAFile, 'utf8') : undefined;
    const certificate = api?.certFile && api.keyFile ? await servingCertificateFiles(api.certFile, api.keyFile) : undefined;
    for (const [i, node] of config.nodes.entries()) {
      const provider = deps.providers[i];
      if (!provider) continue;
      const server: KubeletServer | undefined = await attempt(`the kubelet API of ${node.name}`, () =>
        startKubeletServer({
          nodeName: node.name,
          provider,
          reviewer,
          port: node.kubeletPort ?? DEFAULT_KUBELET_PORT,
          address: api?.address ?? '0.0.0.0',
          advertisedAddresses: [node.internalIP],
          logger: deps.logger.child({ node: node.name }),
          ...(clientCA ? { clientCA } : {}),
          ...(certificate ? { certificate } : {}),
        }));
      if (server) closers.push(() => server.close());
    }
  }

  return {
    introspectionUrl,
    close: async () => {
      await Promise.all(closers.map((close) => close().catch(() => undefined)));
    },
  };
}
