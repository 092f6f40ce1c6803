/**
 * The kubelet API of one virtual node: HTTPS on the port the Node advertises
 * (`status.daemonEndpoints.kubeletEndpoint`), where the API server proxies `kubectl logs`, exec,
 * attach and port-forward.
 *   GET /containerLogs, /pods, /runningpods/, /stats/summary, /metrics/resource, /healthz
 *                                                      readEndpoints.ts
 *   /exec, /attach, /portForward (WebSocket upgrades)  streamRoutes.ts; a plain request gets 400
 *   /run, /cri                                         501: not supported
 * Every request is authenticated and authorized first (access.ts): anonymous callers get 401.
 * Hostile input costs its own request or connection, never the process: every listener of the
 * server is guarded (connectionGuards.ts for what never becomes a request), the target is parsed
 * without throwing (requestTarget.ts), and every refusal is counted by reason (rejections.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import { systemClock } from '../adapters/clock.js';
import { DEFAULT_KUBELET_PORT } from '../adapters/kubernetes/model.js';
import { listening } from '../adapters/http/listening.js';
import type { Logger } from '../adapters/logger.js';
import type { Clock } from '../lib/clock.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { LegacyPodProvider } from '../providers/provider.js';
import type { AccessReviewer } from './access.js';
import { guardConnections, guardServerErrors } from './connectionGuards.js';
import { writeText } from './httpAnswers.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, serveRead, type ReadEndpointContext } from './readEndpoints.js';
import { Refusal, refusalOf, rejectionReporter, type RejectionReporter, type RejectionSink } from './rejections.js';
import { parseRequestTarget } from './requestTarget.js';
import type { ServingCertificate } from './servingCertificate.js';
import { startServingTls, type ServingTlsOptions } from './servingTls.js';
import { createStreamRoutes, type StreamLimitOptions } from './streamRoutes.js';
import { definedOnly } from '../lib/defaults.js';

export interface KubeletServerOptions {
  readonly nodeName: string;
  /**
   * The node's provider: logs, exec, attach, port-forward if it has them (`isLogsProvider`,
   * `isExecProvider`, `isAttachProvider`, `isPortForwardProvider`), `listPods` for /pods and
   * `getPod` to check a stream's target.
   */
  readonly provider: Pick<LegacyPodProvider, 'listPods' | 'getPod'>;
  /** Bounds of the streaming endpoints (streamRoutes.ts). */
  readonly streams?: StreamLimitOptions;
  /** Deadline of the provider calls behind /pods, /runningpods/, stats and log opens; default 10 s (then 503). */
  readonly requestTimeoutMs?: number;
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
  /** Where refusals are counted (the app: `tether_kubelet_rejected_requests_total`). */
  readonly rejections?: RejectionSink;
  readonly clock?: Clock;
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

/** The client left: its request's work is aborted and nothing is answered. */
function clientGone(req: IncomingMessage, res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the client went away'));
  });
  return gone.signal;
}

function handleRequest(context: ReadEndpointContext, report: RejectionReporter, req: IncomingMessage, res: ServerResponse): void {
  const refuse = (refusal: Refusal): void => {
    if (res.destroyed) return;
    report(refusal, { method: req.method, target: req.url, remote: req.socket.remoteAddress });
    writeText(res, refusal.code, refusal.message, refusal.headers);
  };
  const target = parseRequestTarget(req.url);
  if (!target.ok) return refuse(new Refusal(400, 'malformed-url', target.message));
  const gone = clientGone(req, res);
  serveRead(context, req, res, target, gone).catch((error: unknown) => {
    if (gone.aborted) {
      res.destroy();
      return;
    }
    refuse(refusalOf(error));
  });
}

export async function startKubeletServer(options: KubeletServerOptions): Promise<KubeletServer> {
  const address = options.address ?? '0.0.0.0';
  const clock = options.clock ?? systemClock;
  const tls = await startServingTls({ ...options, addresses: [...(options.advertisedAddresses ?? []), ...(address === '0.0.0.0' ? [] : [address])] });
  const report = rejectionReporter({ clock, ...definedOnly({ logger: options.logger, sink: options.rejections }) });
  const context: ReadEndpointContext = {
    nodeName: options.nodeName,
    provider: options.provider,
    reviewer: options.reviewer,
    clock,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
  // Its TLS context swapped on each certificate change, until the server closes (servingTls.ts).
  const server: Server = tls.createServer((req, res) => {
    try {
      handleRequest(context, report, req, res);
    } catch (error) {
      // Not expected (every step above is guarded); if it happens, it costs this request only.
      options.logger?.error('kubelet API request handler threw', { error: String(error) });
      res.destroy();
    }
  });
  guardConnections(server, report);
  // The same node, provider, reviewer, clock and deadline as the plain requests.
  const streams = createStreamRoutes({
    ...context,
    report,
    ...options.streams,
    ...definedOnly({ logger: options.logger }),
  });
  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => streams.handleUpgrade(req, socket, head));
  // Streams end first (each with a Status its client understands), then the listener.
  const life = await listening(server, options.port ?? DEFAULT_KUBELET_PORT, address, { beforeClose: () => streams.close() });
  guardServerErrors(server, options.logger);
  return { ...life, address, get certificate() { return tls.certificate(); }, activeStreams: () => streams.active() };
}
