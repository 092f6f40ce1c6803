/**
 * The kubelet API's streaming endpoints, `/exec`, `/attach` and `/portForward`, served as
 * WebSocket upgrades (the `ExtendWebSocketsToKubelet` path of the API server: the virtual node
 * declares the feature, the API server proxies the client's WebSocket here unchanged). exec and
 * attach speak the `channel.k8s.io` protocols (streamSession.ts); port-forward speaks SPDY
 * tunnelled in the WebSocket, as kubectl sends it (portForwardSession.ts).
 *
 * The `upgrade` listener is where a stranger's bytes arrive first, so, in order: the socket gets
 * an error listener (an upgraded socket has no other), the target is parsed without throwing
 * (requestTarget.ts), an upgrade that could never work is refused before any review
 * (upgradeRequest.ts), the node's slot is taken (streamAdmission.ts), and only then do the
 * checks run (streamPreparation.ts). The slot is released on every path: refused, the client
 * gone before, during or after the checks (its `close` is watched from the first moment), or the
 * session ended. A session ends at the latest after `maxSessionMs`, however busy.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { systemClock } from '../adapters/clock.js';
import type { Logger } from '../adapters/logger.js';
import type { Clock, Timer } from '../lib/clock.js';
import { answerWithTunnelProtocol } from '../adapters/spdy/tunnelProtocol.js';
import type { LegacyPodProvider } from '../providers/provider.js';
import type { AccessReviewer } from './access.js';
import { encodeFrame, ERROR, failureStatus, selectChannelProtocol } from './channelProtocol.js';
import { answerOnSocket } from './httpAnswers.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './readEndpoints.js';
import { Refusal, refusalOf, type RejectionReporter } from './rejections.js';
import { parseRequestTarget } from './requestTarget.js';
import { DEFAULT_STREAM_LIMITS, STREAM_RETRY_AFTER_SECONDS, StreamAdmission, type StreamTicket } from './streamAdmission.js';
import { prepareStream, type PreparedStream, type StreamCheckContext } from './streamPreparation.js';
import { upgradeProblem } from './upgradeRequest.js';
import { definedOnly } from '../lib/defaults.js';

export { WEBSOCKET_FEATURE } from './upgradeRequest.js';

/** The bounds of a node's streams (the config file's `kubeletApi.streams`). */
export interface StreamLimitOptions {
  /** At most this many exec/attach/port-forward sessions at once on this node; default 64. */
  readonly maxConcurrentStreams?: number;
  /** At most this many per user authenticated by token (client-certificate users: not counted per user); default 16. */
  readonly maxStreamsPerUser?: number;
  /** At most this many to one pod; default 16. */
  readonly maxStreamsPerPod?: number;
  /** A session with no traffic either way for this long is closed; default 4 hours. */
  readonly streamIdleTimeoutMs?: number;
  /** A session is closed this long after it opened, however busy; default 24 hours; 0: no limit. */
  readonly maxSessionMs?: number;
  /** The largest message a client may send; larger ones close the session with 1009. Default 1 MiB. */
  readonly maxMessageBytes?: number;
}

export interface StreamRouteOptions extends StreamLimitOptions {
  readonly nodeName: string;
  readonly provider: Pick<LegacyPodProvider, 'getPod'>;
  readonly reviewer: AccessReviewer;
  /** Where refusals are counted and logged (kubeletServer.ts makes one per server). */
  readonly report?: RejectionReporter;
  /** Deadline of the pod check before the upgrade; default 10 s. */
  readonly requestTimeoutMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export interface StreamRoutes {
  /** The `upgrade` listener for the kubelet API's HTTPS server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Streams in progress or being set up (what the node cap counts). */
  active(): number;
  /** Closes every session (1001, going away) and waits for them to end. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_SESSION_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;
/** A client that does not answer a close within this long is cut off. */
const CLOSE_GRACE_MS = 1_000;

const STREAMING = new Set(['exec', 'attach', 'portForward']);

interface Upgrade {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
}

export function createStreamRoutes(options: StreamRouteOptions): StreamRoutes {
  const clock = options.clock ?? systemClock;
  const admission = new StreamAdmission(options.nodeName, {
    maxPerNode: options.maxConcurrentStreams ?? DEFAULT_STREAM_LIMITS.maxPerNode,
    maxPerUser: options.maxStreamsPerUser ?? DEFAULT_STREAM_LIMITS.maxPerUser,
    maxPerPod: options.maxStreamsPerPod ?? DEFAULT_STREAM_LIMITS.maxPerPod,
  });
  const maxSessionMs = options.maxSessionMs ?? DEFAULT_MAX_SESSION_MS;
  const { nodeName, provider, reviewer } = options;
  const context: StreamCheckContext = {
    nodeName, provider, reviewer, clock,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...definedOnly({ idleTimeoutMs: options.streamIdleTimeoutMs, logger: options.logger, report: options.report }),
  };
  const sessions = new Set<Promise<void>>();
  const maxPayload = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const channelWss = new WebSocketServer({
    noServer: true, maxPayload, perMessageDeflate: false,
    handleProtocols: (offered) => selectChannelProtocol(offered) ?? false,
  });
  const tunnelWss = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false });
  answerWithTunnelProtocol(tunnelWss);

  const refuse = (req: IncomingMessage, socket: Duplex, refusal: Refusal): void => {
    options.report?.(refusal, { method: req.method, target: req.url, remote: (socket as { remoteAddress?: string }).remoteAddress });
    answerOnSocket(socket, refusal.code, refusal.message, refusal.headers);
  };

  /** Closes a session that reached `maxSessionMs`: exec and attach get a Failure Status saying so first. */
  const endAtLimit = (ws: WebSocket, prepared: PreparedStream): void => {
    if (ws.readyState !== ws.OPEN) return;
    const seconds = Math.round(maxSessionMs / 1000);
    const limit = seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds} s`;
    const message = `${prepared.description} reached the session limit of ${limit}, closed by Tether`;
    if (prepared.wire === 'channel') ws.send(encodeFrame(ERROR, JSON.stringify(failureStatus(message, 'Timeout'))), { binary: true });
    ws.close(1000, 'session limit');
    clock.setTimer(CLOSE_GRACE_MS, () => ws.terminate());
  };

  /** Hands the socket to its WebSocket server and runs the session; the ticket is released when it ends. */
  const launch = (upgrade: Upgrade, ticket: StreamTicket, prepared: PreparedStream, onStart: () => void): void => {
    const wss = prepared.wire === 'channel' ? channelWss : tunnelWss;
    wss.handleUpgrade(upgrade.req, upgrade.socket, upgrade.head, (ws) => {
      onStart();
      const limit: Timer | undefined = maxSessionMs > 0 ? clock.setTimer(maxSessionMs, () => endAtLimit(ws, prepared)) : undefined;
      const running = prepared.session(ws).catch((error: unknown) => options.logger?.warn('stream session failed', { stream: prepared.description, error: String(error) }));
      sessions.add(running);
      void running.finally(() => {
        limit?.cancel();
        sessions.delete(running);
        ticket.release();
      });
    });
  };

  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const target = parseRequestTarget(req.url);
    if (!target.ok) return refuse(req, socket, new Refusal(400, 'malformed-url', target.message));
    const first = target.segments[0] ?? '';
    const problem = upgradeProblem(req, options.nodeName, STREAMING.has(first) ? first : undefined);
    if (problem) return refuse(req, socket, problem);
    // A pending place while the checks run; the node's slot is claimed once they name the user and pod.
    const entry = admission.enter(req.socket.remoteAddress ?? 'unknown');
    if (!entry.admitted) return refuse(req, socket, new Refusal(429, 'stream-cap', entry.message, { 'Retry-After': String(STREAM_RETRY_AFTER_SECONDS) }));
    const { ticket } = entry;
    const gone = new AbortController();
    let started = false;
    // Watched from now: a client gone during the checks frees its slot at once and aborts them.
    socket.once('close', () => {
      gone.abort(new Error('the client went away'));
      if (!started) ticket.release();
    });
    prepareStream(context, req, target, ticket, gone.signal)
      .then((prepared) => {
        if (gone.signal.aborted) return ticket.release();
        launch({ req, socket, head }, ticket, prepared, () => (started = true));
        // ws answered the handshake itself without a session (it found the socket unusable): nothing to hold.
        if (!started) ticket.release();
      })
      .catch((error: unknown) => {
        ticket.release();
        if (!gone.signal.aborted) refuse(req, socket, refusalOf(error));
      });
  };

  return {
    handleUpgrade(req, socket, head) {
      // First of all: an upgraded socket has no other error listener, and an unheard 'error' ends the process.
      socket.on('error', () => undefined);
      try {
        accept(req, socket, head);
      } catch (error) {
        // Not expected (every step above is guarded); if it happens, it costs this connection only.
        options.logger?.error('kubelet API upgrade handler threw', { error: String(error) });
        refuse(req, socket, new Refusal(500, 'internal', 'Internal Server Error'));
      }
    },
    active: () => admission.active,
    async close() {
      for (const client of [...channelWss.clients, ...tunnelWss.clients]) {
        client.close(1001, 'Tether is shutting down');
        // A client that does not answer the close is cut off rather than waited for.
        setTimeout(() => client.terminate(), CLOSE_GRACE_MS).unref();
      }
      await Promise.all([...sessions]);
      await Promise.all([channelWss, tunnelWss].map((wss) => new Promise<void>((resolve) => wss.close(() => resolve()))));
    },
  };
}
