/**
 * The operator's HTTP port (plain HTTP, 127.0.0.1 by default: it is for port-forwards, probes and
 * a Prometheus scraper on the pod network, never for the outside):
 *   GET /          live page of the actor tree (actorTreePage.ts)
 *   GET /actors    the tree as JSON or NDJSON, selectable and paginated (actorsRoute.ts)
 *   GET /healthz   liveness;  GET /readyz  readiness (health.ts; `?verbose` lists the checks)
 *   GET /metrics   Prometheus text (metrics.ts)
 * Nothing here reads a pod spec, a Secret or a kubeconfig: what is served is the actors' state
 * summaries, which hold identities, phases and error messages only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../adapters/logger.js';
import { actorTreePage } from './actorTreePage.js';
import { BadRequest, serveActors } from './actorsRoute.js';
import type { AgentView } from './agentView.js';
import { livenessChecks, readinessChecks, renderChecks, type Check } from './health.js';
import type { TetherMetrics } from './metrics.js';

export interface IntrospectionOptions {
  readonly agent: AgentView;
  readonly metrics?: TetherMetrics;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 10256; 0 picks a free port. */
  readonly port?: number;
  readonly logger?: Logger;
  /** Readiness checks beyond the agent's own (the kubelet API servers, from app/operatorServers.ts). */
  readonly extraReadiness?: () => readonly Check[];
}

export interface IntrospectionServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The page needs nothing but itself and same-origin fetches.
  'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'",
  'x-content-type-options': 'nosniff',
};

function text(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

async function route(options: IntrospectionOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://introspection');
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'only GET\n');
  const verbose = url.searchParams.has('verbose');
  switch (url.pathname) {
    case '/': {
      res.writeHead(200, PAGE_HEADERS);
      res.end(actorTreePage());
      return;
    }
    case '/actors': {
      await serveActors(options.agent.system.registry, req, res, url);
      return;
    }
    case '/healthz':
    case '/livez': {
      const { code, body } = renderChecks(livenessChecks(options.agent), verbose);
      return text(res, code, body);
    }
    case '/readyz': {
      const { code, body } = renderChecks([...readinessChecks(options.agent), ...(options.extraReadiness?.() ?? [])], verbose);
      return text(res, code, body);
    }
    case '/metrics': {
      if (!options.metrics) return text(res, 404, 'metrics are not enabled\n');
      const { contentType, body } = await options.metrics.render();
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
      return;
    }
    default:
      return text(res, 404, `no such endpoint: ${url.pathname}\n`);
  }
}

export async function startIntrospectionServer(options: IntrospectionOptions): Promise<IntrospectionServer> {
  const server: Server = createServer((req, res) => {
    route(options, req, res).catch((error: unknown) => {
      const bad = error instanceof BadRequest || error instanceof RangeError;
      if (!bad) options.logger?.error('introspection request failed', { url: req.url, error: String(error) });
      if (res.headersSent) res.destroy();
      else text(res, bad ? 400 : 500, `${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 10256, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
