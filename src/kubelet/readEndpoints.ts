/**
 * The kubelet API's plain (non-upgrade) requests, after the target has parsed: access first, then
 *   GET /healthz                          "ok"
 *   GET /metrics, /metrics/probes         nodeMetrics.ts (the kubelet's families, Tether's per-node figures)
 *   GET /configz                          kubeletConfigz.ts
 *   GET /pods, /runningpods/              podListing.ts
 *   GET /stats/summary, /metrics/resource resourceMetrics.ts
 *   GET /containerLogs/{ns}/{pod}/{c}     streamed from the provider (logQuery.ts)
 *   /exec, /attach, /portForward          400: they need an upgrade (streamRoutes.ts)
 *   /run, /cri                            501
 * Every provider call has a deadline (`requestTimeoutMs`, 503 past it, with the call's signal
 * aborted) and is aborted when the client goes away (`gone`); for a log, the deadline is on the
 * opening, the stream then lasts as long as the client reads. Refusals are thrown as `Refusal`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeChunk } from '../adapters/http/writeChunk.js';
import type { Clock } from '../lib/clock.js';
import { callWithDeadline } from '../lib/callWithDeadline.js';
import { isLogsProvider, isStatsProvider, type LegacyPodProvider } from '../providers/provider.js';
import { decideAccess, type AccessReviewer } from './access.js';
import { writeJson, writeText } from './httpAnswers.js';
import { containerLogTarget, parseLogOptions } from './logQuery.js';
import { nodePods, runningPods } from './podListing.js';
import { Refusal, reasonOfCode } from './rejections.js';
import type { RequestTarget } from './requestTarget.js';
import { resourceMetricsText, summaryForNode } from './resourceMetrics.js';
import { kubeletConfigz, type ConfigzInputs } from './kubeletConfigz.js';
import { kubeletMetricsText, probeMetricsText, PROMETHEUS_TEXT } from './nodeMetrics.js';

/** Ten seconds: long enough for a provider behind a remote API server, short of the API server's own proxy timeouts. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

export interface ReadEndpointContext {
  readonly nodeName: string;
  readonly provider: Pick<LegacyPodProvider, 'listPods' | 'getPod'>;
  readonly reviewer: AccessReviewer;
  readonly clock: Clock;
  readonly requestTimeoutMs: number;
  /** What /configz reports. */
  readonly configz: ConfigzInputs;
  /** Tether's own figures for this node, as Prometheus text, appended to /metrics. */
  readonly nodeFigures?: () => Promise<string>;
}

export type OkTarget = Extract<RequestTarget, { ok: true }>;

const NOT_SUPPORTED = new Set(['run', 'cri']);
const STREAMING = new Set(['exec', 'attach', 'portForward']);

/** `call` within the request's deadline and aborted with the client; `what` names it in the 503. */
function withinDeadline<T>(context: ReadEndpointContext, gone: AbortSignal, what: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const seconds = context.requestTimeoutMs / 1000;
  return callWithDeadline(context.clock, context.requestTimeoutMs, gone, call, () =>
    new Refusal(503, 'unavailable', `the provider of node ${context.nodeName} did not answer ${what} within ${seconds} s; try again later`));
}

async function serveLogs(context: ReadEndpointContext, res: ServerResponse, target: OkTarget, gone: AbortSignal): Promise<void> {
  const where = containerLogTarget(target.segments);
  if (!where) throw new Refusal(404, 'not-found', `expected /containerLogs/{namespace}/{pod}/{container}, got ${target.pathname}`);
  const provider = context.provider;
  if (!isLogsProvider(provider)) throw new Refusal(501, 'not-implemented', `the provider of node ${context.nodeName} does not serve container logs`);
  const logOptions = parseLogOptions(target.query);
  // The deadline bounds the opening; the stream itself follows the client (its signal stays tied to `gone`).
  const stream = await withinDeadline(context, gone, `the log of ${where.namespace}/${where.pod}/${where.container}`, (signal) =>
    provider.getContainerLogs(where.namespace, where.pod, where.container, logOptions, AbortSignal.any([signal, gone])));
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.flushHeaders();
  for await (const chunk of stream) {
    if (res.destroyed) break;
    await writeChunk(res, chunk);
  }
  res.end();
}

function writeMetrics(res: ServerResponse, text: string): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(200, { 'content-type': PROMETHEUS_TEXT, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function serveRead(context: ReadEndpointContext, req: IncomingMessage, res: ServerResponse, target: OkTarget, gone: AbortSignal): Promise<void> {
  const { pathname } = target;
  const access = await decideAccess(context.reviewer, context.nodeName, req, pathname);
  if (!access.allowed) throw new Refusal(access.code, reasonOfCode(access.code), access.message);
  const first = target.segments[0] ?? '';
  if (NOT_SUPPORTED.has(first)) throw new Refusal(501, 'not-implemented', `${first} is not supported by Tether (virtual node ${context.nodeName})`);
  if (STREAMING.has(first)) {
    throw new Refusal(400, 'unsupported-upgrade', `${first} needs a WebSocket upgrade request (Upgrade: websocket, subprotocol v5.channel.k8s.io)`);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new Refusal(405, 'method-not-allowed', `${req.method ?? ''} is not allowed on ${pathname}`);
  if (pathname === '/healthz') return writeText(res, 200, 'ok');
  if (pathname === '/configz') return writeJson(res, kubeletConfigz(context.configz));
  if (pathname === '/metrics') {
    const pods = await withinDeadline(context, gone, '/metrics', (signal) => context.provider.listPods(signal));
    return writeMetrics(res, await kubeletMetricsText(context.nodeName, pods, await context.nodeFigures?.() ?? ''));
  }
  if (pathname === '/metrics/probes') return writeMetrics(res, await probeMetricsText());
  if (pathname === '/pods' || pathname === '/pods/') {
    return writeJson(res, nodePods(await withinDeadline(context, gone, '/pods', (signal) => context.provider.listPods(signal)), context.nodeName));
  }
  if (pathname === '/runningpods' || pathname === '/runningpods/') {
    return writeJson(res, runningPods(await withinDeadline(context, gone, '/runningpods/', (signal) => context.provider.listPods(signal))));
  }
  if (pathname === '/stats/summary' || pathname === '/metrics/resource') {
    const provider = context.provider;
    if (!isStatsProvider(provider)) throw new Refusal(501, 'not-implemented', `the provider of node ${context.nodeName} reports no usage statistics`);
    const summary = await withinDeadline(context, gone, pathname, (signal) => provider.getStatsSummary(signal));
    if (pathname === '/stats/summary') return writeJson(res, summaryForNode(summary, context.nodeName));
    return writeMetrics(res, resourceMetricsText(summary));
  }
  if (first === 'containerLogs') return serveLogs(context, res, target, gone);
  throw new Refusal(404, 'not-found', `no such endpoint on Tether's kubelet API: ${pathname}`);
}
