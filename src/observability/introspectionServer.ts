/**
 * The operator's HTTP ports (plain HTTP). With `routes: 'all'` (the introspection port, 127.0.0.1
 * by default: reach it with kubectl port-forward):
 *   GET /          live page of the actor tree (actorTreePage.ts)
 *   GET /actors    the tree as JSON or NDJSON, selectable, filtered and paginated (actorsRoute.ts)
 *   GET /actors/summary   the same selection counted node → role → state (actorSummary.ts)
 *   GET /actors/events    the tree's changes as Server-Sent Events, coalesced, with backpressure (actorEvents.ts)
 *   GET /actors/<path>    one actor in depth: history, budgets, last messages, kubectl (actorDetail.ts)
 * and on every port, including `routes: 'probes'` (the metrics port, for the kubelet's probes and a
 * Prometheus scraper on the pod network):
 *   GET /healthz   liveness;  GET /readyz  readiness (health.ts; `?verbose` lists the checks)
 *   GET /metrics   Prometheus text (metrics.ts)
 * Nothing here reads a pod spec, a Secret or a kubeconfig: what is served is the actors' state
 * summaries, which hold identities, phases and error messages only.
 *
 * Against DNS rebinding (a web page whose name resolves to 127.0.0.1 reading a workstation's
 * port), a server bound to loopback answers only requests whose Host is a loopback name or
 * address, or one listed in `allowedHosts`. A server exposed beyond loopback with the actor tree
 * takes a `guard` (app/operatorServers.ts: the kubelet API's TokenReview and SubjectAccessReview).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listening } from '../adapters/http/listening.js';
import { isIP } from 'node:net';
import type { Logger } from '../adapters/logger.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import { actorTreePage } from './actorTreePage.js';
import { BadRequest, serveActors } from './actorsRoute.js';
import { serveSummary } from './actorSummary.js';
import { serveActorDetail } from './actorDetail.js';
import { ActorEventHub, type ActorEventOptions, type ActorEventStats } from './actorEvents.js';
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
  /** 'all' (default): the actor tree, probes and metrics; 'probes': /healthz, /readyz, /metrics only. */
  readonly routes?: 'all' | 'probes';
  /** Host names (without port) accepted besides loopback ones when bound to loopback. */
  readonly allowedHosts?: readonly string[];
  /** Decides each request to the actor tree (/ and /actors) before it is served. */
  readonly guard?: (req: IncomingMessage) => Promise<GuardDecision>;
  /** The event stream's interval and bounds (tests make them small). */
  readonly events?: ActorEventOptions;
}

export type GuardDecision = { readonly allowed: true } | { readonly allowed: false; readonly code: number; readonly message: string };

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

export function isLoopbackAddress(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || (isIP(host) === 4 && host.startsWith('127.')) || host === '::ffff:127.0.0.1';
}

/** The host part of a Host header: `name:port`, `[v6]:port`, or bare. */
export function hostOf(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') === -1 ? undefined : value.indexOf(']'));
  if (isIP(value) === 6) return value;
  const colon = value.lastIndexOf(':');
  return (colon === -1 ? value : value.slice(0, colon)).replace(/\.$/, '');
}

/** Whether a loopback-bound server may answer a request with this Host header. */
export function hostAllowed(header: string | undefined, allowed: readonly string[] = []): boolean {
  if (header === undefined || header === '') return false;
  const host = hostOf(header);
  return isLoopbackAddress(host) || host.endsWith('.localhost') || allowed.map((h) => h.toLowerCase()).includes(host);
}

export interface IntrospectionServer extends Lifecycle {
  readonly url: string;
  readonly port: number;
  /** The event stream's clients and what backpressure did to them. */
  eventStats(): ActorEventStats;
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

const PROBE_ROUTES = new Set(['/healthz', '/livez', '/readyz', '/metrics']);

async function route(options: IntrospectionOptions, hub: ActorEventHub, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://introspection');
  if (isLoopbackAddress(options.host ?? '127.0.0.1') && !hostAllowed(req.headers.host, options.allowedHosts)) {
    return text(res, 421, 'this server answers only requests addressed to localhost\n');
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'only GET\n');
  const verbose = url.searchParams.has('verbose');
  if (!PROBE_ROUTES.has(url.pathname)) {
    if (options.routes === 'probes') return text(res, 404, `this port serves /metrics, /healthz and /readyz only, not ${url.pathname}\n`);
    if (options.guard) {
      const decision = await options.guard(req);
      if (!decision.allowed) return text(res, decision.code, `${decision.message}\n`);
    }
  }
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
    case '/actors/events': {
      hub.serve(req, res, url);
      return;
    }
    case '/actors/summary': {
      await serveSummary(options.agent.system.registry, req, res, url);
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
      if (url.pathname.startsWith('/actors/')) return serveActorDetail(options.agent.system.registry, res, decodeURIComponent(url.pathname.slice('/actors/'.length)));
      return text(res, 404, `no such endpoint: ${url.pathname}\n`);
  }
}

export async function startIntrospectionServer(options: IntrospectionOptions): Promise<IntrospectionServer> {
  const hub = new ActorEventHub(options.agent.system.registry, options.events);
  const server: Server = createServer((req, res) => {
    route(options, hub, req, res).catch((error: unknown) => {
      const bad = error instanceof BadRequest || error instanceof RangeError;
      if (!bad) options.logger?.error('introspection request failed', { url: req.url, error: String(error) });
      if (res.headersSent) res.destroy();
      else text(res, bad ? 400 : 500, `${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  const host = options.host ?? '127.0.0.1';
  const life = await listening(server, options.port ?? 10256, host, { beforeClose: async () => hub.stop() });
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { ...life, url: `http://${urlHost}:${life.port}`, eventStats: () => hub.stats() };
}
