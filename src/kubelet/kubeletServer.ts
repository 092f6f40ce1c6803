/**
 * The kubelet API of one virtual node: HTTPS on the port the Node advertises
 * (`status.daemonEndpoints.kubeletEndpoint`), where the API server proxies `kubectl logs`, exec,
 * attach and port-forward.
 *   GET /containerLogs/{namespace}/{pod}/{container}   streamed from the provider (logQuery.ts)
 *   GET /pods, /runningpods/                           this node's pods in host terms (podListing.ts)
 *   GET /stats/summary, /metrics/resource              usage, if the provider has stats (resourceMetrics.ts)
 *   GET /healthz                                       "ok"
 *   /exec, /attach, /portForward (WebSocket upgrades)  streamRoutes.ts; a plain request gets 400
 *   /run, /cri                                         501: not supported
 * Every request is authenticated and authorized first (access.ts): anonymous callers get 401.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import { DEFAULT_KUBELET_PORT } from '../adapters/kubernetes/model.js';
import { listening } from '../adapters/http/listening.js';
import type { Logger } from '../adapters/logger.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import { classify, isClassified } from '../providers/errors.js';
import { isLogsProvider, isStatsProvider, type LegacyPodProvider } from '../providers/provider.js';
import { nodePods, runningPods } from './podListing.js';
import { resourceMetricsText, summaryForNode } from './resourceMetrics.js';
import { decideAccess, type AccessReviewer } from './access.js';
import { containerLogTarget, InvalidLogQuery, parseLogOptions } from './logQuery.js';
import type { ServingCertificate } from './servingCertificate.js';
import { startServingTls, type ServingTlsOptions } from './servingTls.js';
import { createStreamRoutes, type StreamRouteOptions } from './streamRoutes.js';
import { writeChunk } from '../adapters/http/writeChunk.js';

export interface KubeletServerOptions {
  readonly nodeName: string;
  /**
   * The node's provider: logs, exec, attach, port-forward if it has them (`isLogsProvider`,
   * `isExecProvider`, `isAttachProvider`, `isPortForwardProvider`), `listPods` for /pods and
   * `getPod` to check a stream's target.
   */
  readonly provider: Pick<LegacyPodProvider, 'listPods' | 'getPod'>;
  /** Bounds of the streaming endpoints (streamRoutes.ts). */
  readonly streams?: Pick<StreamRouteOptions, 'maxConcurrentStreams' | 'streamIdleTimeoutMs' | 'maxMessageBytes'>;
  readonly reviewer: AccessReviewer;
  /** PEM of the CA whose client certificates are accepted (the API server's kubelet client cert). */
  readonly clientCA?: string;
  /** Default: self-signed for the node's name and `address`/`advertisedAddresses`. */
  readonly certificate?: ServingCertificate;
  /** Where to listen; default 0.0.0.0. */
  readonly address?: string;
  /** Default 10250; 0 picks a free port. */
  readonly port?: number;
  /** Extra SANs for the self-signed certificate (the Node's InternalIP). */
  readonly advertisedAddresses?: readonly string[];
  /** Certificates that change while it runs: watched files, the self-signed one's renewal (servingTls.ts). */
  readonly tls?: ServingTlsOptions;
  readonly logger?: Logger;
}

export interface KubeletServer extends Lifecycle {
  readonly port: number;
  readonly address: string;
  /** PEM of the serving certificate, for clients that want to verify it. */
  readonly certificate: string;
  /** exec/attach/port-forward streams in progress or being set up. */
  activeStreams(): number;
}

const NOT_SUPPORTED = new Set(['run', 'cri']);
const STREAMING = new Set(['exec', 'attach', 'portForward']);

function text(res: ServerResponse, code: number, body: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body.endsWith('\n') ? body : `${body}\n`);
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function providerErrorCode(error: unknown): number {
  if (!isClassified(error)) return 500;
  const kind = classify(error);
  return kind === 'not-found' ? 404 : kind === 'invalid-input' ? 400 : 503;
}


async function serveLogs(options: KubeletServerOptions, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const target = containerLogTarget(url.pathname);
  if (!target) return text(res, 404, `expected /containerLogs/{namespace}/{pod}/{container}, got ${url.pathname}`);
  const provider = options.provider;
  if (!isLogsProvider(provider)) return text(res, 501, `the provider of node ${options.nodeName} does not serve container logs`);
  const logOptions = parseLogOptions(url.searchParams);
  const abort = new AbortController();
  res.on('close', () => abort.abort(new Error('client went away')));
  const stream = await provider.getContainerLogs(target.namespace, target.pod, target.container, logOptions, abort.signal);
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.flushHeaders();
  for await (const chunk of stream) {
    if (res.destroyed) break;
    await writeChunk(res, chunk);
  }
  res.end();
}

async function route(options: KubeletServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://kubelet');
  const access = await decideAccess(options.reviewer, options.nodeName, req, url.pathname);
  if (!access.allowed) return text(res, access.code, access.message);
  const first = url.pathname.split('/')[1] ?? '';
  if (NOT_SUPPORTED.has(first)) {
    return text(res, 501, `${first} is not supported by Tether (virtual node ${options.nodeName})`);
  }
  if (STREAMING.has(first)) return text(res, 400, `${first} needs a WebSocket upgrade request (Upgrade: websocket, subprotocol v5.channel.k8s.io)`);
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, `${req.method ?? ''} is not allowed on ${url.pathname}`);
  if (url.pathname === '/healthz') return text(res, 200, 'ok');
  if (url.pathname === '/pods' || url.pathname === '/pods/') return json(res, nodePods(await options.provider.listPods(), options.nodeName));
  if (url.pathname === '/runningpods' || url.pathname === '/runningpods/') return json(res, runningPods(await options.provider.listPods()));
  if (url.pathname === '/stats/summary' || url.pathname === '/metrics/resource') {
    const provider = options.provider;
    if (!isStatsProvider(provider)) return text(res, 501, `the provider of node ${options.nodeName} reports no usage statistics`);
    const summary = await provider.getStatsSummary();
    if (url.pathname === '/stats/summary') return json(res, summaryForNode(summary, options.nodeName));
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(resourceMetricsText(summary));
    return;
  }
  if (first === 'containerLogs') return serveLogs(options, req, res, url);
  return text(res, 404, `no such endpoint on Tether's kubelet API: ${url.pathname}`);
}

export async function startKubeletServer(options: KubeletServerOptions): Promise<KubeletServer> {
  const address = options.address ?? '0.0.0.0';
  const tls = await startServingTls({ ...options, addresses: [...(options.advertisedAddresses ?? []), ...(address === '0.0.0.0' ? [] : [address])] });
  // Its TLS context swapped on each certificate change, until the server closes (servingTls.ts).
  const server: Server = tls.createServer((req, res) => {
    route(options, req, res).catch((error: unknown) => {
      const code = error instanceof InvalidLogQuery ? 400 : providerErrorCode(error);
      if (code >= 500) options.logger?.warn('kubelet API request failed', { url: req.url, error: String(error) });
      text(res, code, error instanceof Error ? error.message : String(error));
    });
  });
  const streams = createStreamRoutes({
    nodeName: options.nodeName,
    provider: options.provider,
    reviewer: options.reviewer,
    ...options.streams,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => streams.handleUpgrade(req, socket, head));
  // Streams end first (each with a Status its client understands), then the listener.
  const life = await listening(server, options.port ?? DEFAULT_KUBELET_PORT, address, { beforeClose: () => streams.close() });
  return { ...life, address, get certificate() { return tls.certificate(); }, activeStreams: () => streams.active() };
}
