/**
 * The kubelet API's streaming endpoints, `/exec`, `/attach` and `/portForward`, served as
 * WebSocket upgrades (the `ExtendWebSocketsToKubelet` path of the API server: the virtual node
 * declares the feature, the API server proxies the client's WebSocket here unchanged). Every
 * request is authorized as the other kubelet paths are (access.ts: `nodes/proxy`), checked against
 * the provider's pod before the upgrade (so an unknown pod is a plain 404), and counted against
 * the node's cap on concurrent streams. exec and attach speak the `channel.k8s.io` protocols
 * (streamSession.ts); port-forward speaks SPDY tunnelled in the WebSocket, as kubectl sends it
 * (portForwardSession.ts). SPDY upgrades, which only an API server without the feature gates
 * would send, get a clear 400 instead of a hang.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Pod } from '../adapters/kubernetes/model.js';
import type { Logger } from '../adapters/logger.js';
import {
  answerWithTunnelProtocol, offersTunnelProtocol, PORT_FORWARD_TUNNEL_PROTOCOL, prepareTunnelRequest,
} from '../lib/spdy/tunnelProtocol.js';
import { classify, isClassified, notFound } from '../providers/errors.js';
import { isAttachProvider, isExecProvider, isPortForwardProvider, type LegacyPodProvider } from '../providers/provider.js';
import { decideAccess, type AccessReviewer } from './access.js';
import { CHANNEL_PROTOCOLS, selectChannelProtocol } from './channelProtocol.js';
import { InvalidStreamRequest, parseStreamOptions, streamTarget, type StreamTarget } from './streamRequest.js';
import { runPortForwardSession, type PortForwardSessionOptions } from './portForwardSession.js';
import { runStreamSession } from './streamSession.js';

export interface StreamRouteOptions {
  readonly nodeName: string;
  readonly provider: Pick<LegacyPodProvider, 'getPod'>;
  readonly reviewer: AccessReviewer;
  /** At most this many exec/attach/port-forward sessions at once on this node; default 64. */
  readonly maxConcurrentStreams?: number;
  /** A session with no traffic either way for this long is closed; default 4 hours. */
  readonly streamIdleTimeoutMs?: number;
  /** The largest message a client may send; larger ones close the session with 1009. Default 1 MiB. */
  readonly maxMessageBytes?: number;
  readonly logger?: Logger;
}

export interface StreamRoutes {
  /** The `upgrade` listener for the kubelet API's HTTPS server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Streams in progress or being set up (what the cap counts). */
  active(): number;
  /** Closes every session (1001, going away) and waits for them to end. */
  close(): Promise<void>;
}

/** The exact feature name the API server looks for in `status.declaredFeatures`. */
export const WEBSOCKET_FEATURE = 'ExtendWebSocketsToKubelet';

class HttpRefusal extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

function refuse(socket: Duplex, code: number, message: string): void {
  const body = `${message}\n`;
  if (!socket.writable) return void socket.destroy();
  socket.end(
    `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}\r\n` +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

function offeredProtocols(req: IncomingMessage): string[] {
  return (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
}

function hasContainer(pod: Pod, name: string): boolean {
  const spec = pod.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...(spec?.ephemeralContainers ?? [])].some((c) => c.name === name);
}

function providerRefusal(error: unknown): HttpRefusal {
  const message = error instanceof Error ? error.message : String(error);
  if (!isClassified(error)) return new HttpRefusal(500, message);
  const kind = classify(error);
  return new HttpRefusal(kind === 'not-found' ? 404 : kind === 'invalid-input' ? 400 : 503, message);
}

export function createStreamRoutes(options: StreamRouteOptions): StreamRoutes {
  const max = options.maxConcurrentStreams ?? 64;
  const sessions = new Set<Promise<void>>();
  let reserved = 0;
  const maxPayload = options.maxMessageBytes ?? 1024 * 1024;
  const channelWss = new WebSocketServer({
    noServer: true, maxPayload, perMessageDeflate: false,
    handleProtocols: (offered) => selectChannelProtocol(offered) ?? false,
  });
  const tunnelWss = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false });
  answerWithTunnelProtocol(tunnelWss);

  /** The pod the request names, refused as the kubelet refuses it; its UID is what a session is bound to. */
  async function checkPod(target: StreamTarget): Promise<string | undefined> {
    const where = `${target.namespace}/${target.pod}`;
    let pod: Pod | undefined;
    try {
      pod = await options.provider.getPod(target.namespace, target.pod);
    } catch (error) {
      throw providerRefusal(error);
    }
    if (!pod || (target.uid !== undefined && pod.metadata?.uid !== target.uid)) {
      throw new HttpRefusal(404, `pod ${where} does not exist on node ${options.nodeName}`);
    }
    if (target.container !== undefined && !hasContainer(pod, target.container)) {
      throw new HttpRefusal(400, `container ${target.container} is not valid for pod ${where}`);
    }
    return pod.metadata?.uid;
  }

  /** Hands the socket to `wss` and runs `session` on the WebSocket; the slot is freed when it ends. */
  function launch(wss: WebSocketServer, req: IncomingMessage, release: () => void, session: (ws: WebSocket) => Promise<void>) {
    return (socket: Duplex, head: Buffer): void => {
      let started = false;
      // ws answers a bad handshake itself without calling back: the slot is freed when the socket goes.
      socket.once('close', () => {
        if (!started) release();
      });
      wss.handleUpgrade(req, socket, head, (ws) => {
        started = true;
        const running = session(ws).catch((error: unknown) => options.logger?.warn('stream session failed', { error: String(error) }));
        sessions.add(running);
        void running.finally(() => {
          sessions.delete(running);
          release();
        });
      });
    };
  }

  async function preparePortForward(req: IncomingMessage, target: StreamTarget, release: () => void): Promise<(socket: Duplex, head: Buffer) => void> {
    if (!offersTunnelProtocol(req)) {
      throw new HttpRefusal(400, `Tether's kubelet API (node ${options.nodeName}) serves port-forward as SPDY tunnelled in a WebSocket ` +
        `(subprotocol ${PORT_FORWARD_TUNNEL_PROTOCOL}, what kubectl 1.31+ sends); offered: ${offeredProtocols(req).join(', ') || 'none'}`);
    }
    const provider = options.provider;
    if (!isPortForwardProvider(provider)) throw new HttpRefusal(501, `the provider of node ${options.nodeName} does not forward ports`);
    const uid = await checkPod(target);
    prepareTunnelRequest(req);
    const { namespace, pod } = target;
    // A session lives as long as kubectl keeps it (hours, for some); each connection is checked
    // against the pod it was opened for, so one re-created under the same name is never reached.
    const forward: PortForwardSessionOptions['forward'] = async (port, connection, signal) => {
      const now = (await provider.getPod(namespace, pod, signal))?.metadata?.uid;
      if (now !== uid) {
        throw notFound(now === undefined
          ? `pod ${namespace}/${pod} no longer exists on node ${options.nodeName}`
          : `pod ${namespace}/${pod} is no longer the pod this port-forward was opened for (uid ${uid ?? 'none'}, now ${now})`);
      }
      return provider.portForward(namespace, pod, port, connection, signal);
    };
    return launch(tunnelWss, req, release, (ws) => runPortForwardSession({
      socket: ws,
      pod: `${namespace}/${pod}${target.uid ? `, uid ${target.uid}` : ''}`,
      forward,
      ...(options.streamIdleTimeoutMs !== undefined ? { idleTimeoutMs: options.streamIdleTimeoutMs } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    }));
  }

  async function prepare(req: IncomingMessage, url: URL, release: () => void): Promise<(socket: Duplex, head: Buffer) => void> {
    const access = await decideAccess(options.reviewer, options.nodeName, req, url.pathname);
    if (!access.allowed) throw new HttpRefusal(access.code, access.message);
    const target = streamTarget(url.pathname);
    if (!target) throw new HttpRefusal(404, `no such streaming endpoint on Tether's kubelet API: ${url.pathname}`);
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      throw new HttpRefusal(400, `Tether's kubelet API (node ${options.nodeName}) serves ${target.kind} over WebSockets only ` +
        `(${target.kind === 'portForward' ? PORT_FORWARD_TUNNEL_PROTOCOL : CHANNEL_PROTOCOLS.join(', ')}), not ${req.headers.upgrade ?? 'a plain request'}; the API server needs the ` +
        `${WEBSOCKET_FEATURE} and NodeDeclaredFeatures feature gates (on by default since Kubernetes 1.36) and a WebSocket client (kubectl 1.31+)`);
    }
    if (target.kind === 'portForward') return preparePortForward(req, target, release);
    const provider = options.provider;
    const streamOptions = parseStreamOptions(target.kind, url.searchParams);
    const protocol = selectChannelProtocol(offeredProtocols(req));
    if (!protocol) throw new HttpRefusal(400, `none of the offered WebSocket subprotocols is supported; Tether speaks ${CHANNEL_PROTOCOLS.join(', ')}`);
    const container = target.container as string;
    const { namespace, pod } = target;
    const ref = { namespace, pod, container };
    let run: Parameters<typeof runStreamSession>[0]['run'];
    if (target.kind === 'exec') {
      if (!isExecProvider(provider)) throw new HttpRefusal(501, `the provider of node ${options.nodeName} does not run commands in containers`);
      run = (streams, signal) => provider.runInContainer(ref, streamOptions.command, streams, signal);
    } else {
      if (!isAttachProvider(provider)) throw new HttpRefusal(501, `the provider of node ${options.nodeName} does not attach to containers`);
      run = (streams, signal) => provider.attachToContainer(ref, streams, signal);
    }
    await checkPod(target);
    return launch(channelWss, req, release, (ws) => runStreamSession({
      socket: ws,
      protocol,
      options: streamOptions,
      run,
      ...(options.streamIdleTimeoutMs !== undefined ? { idleTimeoutMs: options.streamIdleTimeoutMs } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      description: `${target.kind} in ${namespace}/${pod}/${container}`,
    }));
  }

  return {
    handleUpgrade(req, socket, head) {
      const url = new URL(req.url ?? '/', 'https://kubelet');
      // The slot is taken before the asynchronous checks, so a burst cannot overshoot the cap.
      if (reserved >= max) return refuse(socket, 429, `too many concurrent streams on node ${options.nodeName} (at most ${max}); try again later`);
      reserved++;
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        reserved--;
      };
      socket.on('error', () => undefined);
      prepare(req, url, release)
        .then((upgrade) => upgrade(socket, head))
        .catch((error: unknown) => {
          const refusal = error instanceof HttpRefusal ? error
            : error instanceof InvalidStreamRequest ? new HttpRefusal(400, error.message)
            : providerRefusal(error);
          if (refusal.code >= 500) options.logger?.warn('kubelet API stream refused', { url: req.url, error: refusal.message });
          release();
          refuse(socket, refusal.code, refusal.message);
        });
    },
    active: () => reserved,
    async close() {
      for (const client of [...channelWss.clients, ...tunnelWss.clients]) {
        client.close(1001, 'Tether is shutting down');
        // A client that does not answer the close is cut off rather than waited for.
        setTimeout(() => client.terminate(), 1_000).unref();
      }
      await Promise.all([...sessions]);
      await Promise.all([channelWss, tunnelWss].map((wss) => new Promise<void>((resolve) => wss.close(() => resolve()))));
    },
  };
}
