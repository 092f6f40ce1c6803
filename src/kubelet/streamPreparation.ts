/**
 * The checks an exec, attach or port-forward upgrade passes before its WebSocket opens, in the
 * kubelet's order: access (access.ts, `nodes/proxy`), the path (404), the query (400), the
 * provider's capability (501), then the caps of the user and the pod (streamAdmission.ts, 429),
 * then the pod itself (404 unknown, 400 unknown container), read with a deadline (503) and
 * aborted when the client goes away. The result is the session to run on the WebSocket.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { WebSocket } from 'ws';
import type { Pod } from '../adapters/kubernetes/model.js';
import type { Logger } from '../adapters/logger.js';
import type { Clock } from '../lib/clock.js';
import { callWithDeadline } from '../lib/callWithDeadline.js';
import { offersTunnelProtocol, PORT_FORWARD_TUNNEL_PROTOCOL, prepareTunnelRequest } from '../adapters/spdy/tunnelProtocol.js';
import { notFound } from '../providers/errors.js';
import { isAttachProvider, isExecProvider, isPortForwardProvider, type LegacyPodProvider } from '../providers/provider.js';
import { certificateUser, decideAccess, type AccessReviewer } from './access.js';
import { CHANNEL_PROTOCOLS, selectChannelProtocol } from './channelProtocol.js';
import { runPortForwardSession, type PortForwardSessionOptions } from './portForwardSession.js';
import { Refusal, reasonOfCode, refusalOf, type RejectionReporter } from './rejections.js';
import type { RequestTarget } from './requestTarget.js';
import { STREAM_RETRY_AFTER_SECONDS, type StreamTicket } from './streamAdmission.js';
import { parseStreamOptions, streamTarget, type StreamTarget } from './streamRequest.js';
import { runStreamSession } from './streamSession.js';
import { definedOnly } from '../lib/defaults.js';

export interface StreamCheckContext {
  readonly nodeName: string;
  readonly provider: Pick<LegacyPodProvider, 'getPod'>;
  readonly reviewer: AccessReviewer;
  readonly clock: Clock;
  /** Deadline of the pod check. */
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs?: number;
  readonly logger?: Logger;
  /** Where a session closed for a protocol reason is counted (reason `protocol-error`). */
  readonly report?: RejectionReporter;
}

export interface PreparedStream {
  /** Which WebSocket server takes the socket: channel.k8s.io subprotocols, or the SPDY tunnel. */
  readonly wire: 'channel' | 'tunnel';
  /** "exec in shop/web/app", for messages. */
  readonly description: string;
  readonly session: (ws: WebSocket) => Promise<void>;
}

function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headers['sec-websocket-protocol'];
  return (Array.isArray(raw) ? raw.join(',') : raw ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
}

function hasContainer(pod: Pod, name: string): boolean {
  const spec = pod.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...(spec?.ephemeralContainers ?? [])].some((c) => c.name === name);
}

/** The pod the request names, refused as the kubelet refuses it; its UID is what a session is bound to. */
async function checkPod(context: StreamCheckContext, target: StreamTarget, gone: AbortSignal): Promise<string | undefined> {
  const where = `${target.namespace}/${target.pod}`;
  const seconds = context.requestTimeoutMs / 1000;
  const pod = await callWithDeadline(context.clock, context.requestTimeoutMs, gone,
    (signal) => context.provider.getPod(target.namespace, target.pod, signal).catch((error: unknown) => Promise.reject(refusalOf(error))),
    () => new Refusal(503, 'unavailable', `the provider of node ${context.nodeName} did not answer for pod ${where} within ${seconds} s; try again later`));
  if (!pod || (target.uid !== undefined && pod.metadata?.uid !== target.uid)) {
    throw new Refusal(404, 'not-found', `pod ${where} does not exist on node ${context.nodeName}`);
  }
  if (target.container !== undefined && !hasContainer(pod, target.container)) {
    throw new Refusal(400, 'bad-request', `container ${target.container} is not valid for pod ${where}`);
  }
  return pod.metadata?.uid;
}

async function preparePortForward(context: StreamCheckContext, req: IncomingMessage, target: StreamTarget, gone: AbortSignal): Promise<PreparedStream> {
  const { nodeName } = context;
  if (!offersTunnelProtocol(req)) {
    throw new Refusal(400, 'unsupported-upgrade', `Tether's kubelet API (node ${nodeName}) serves port-forward as SPDY tunnelled in a WebSocket ` +
      `(subprotocol ${PORT_FORWARD_TUNNEL_PROTOCOL}, what kubectl 1.31+ sends); offered: ${offeredProtocols(req).join(', ').slice(0, 200) || 'none'}`);
  }
  const provider = context.provider;
  if (!isPortForwardProvider(provider)) throw new Refusal(501, 'not-implemented', `the provider of node ${nodeName} does not forward ports`);
  const uid = await checkPod(context, target, gone);
  prepareTunnelRequest(req);
  const { namespace, pod } = target;
  // A session lives as long as kubectl keeps it (hours, for some); each connection is checked
  // against the pod it was opened for, so one re-created under the same name is never reached.
  const forward: PortForwardSessionOptions['forward'] = async (port, connection, signal) => {
    const now = (await provider.getPod(namespace, pod, signal))?.metadata?.uid;
    if (now !== uid) {
      throw notFound(now === undefined
        ? `pod ${namespace}/${pod} no longer exists on node ${nodeName}`
        : `pod ${namespace}/${pod} is no longer the pod this port-forward was opened for (uid ${uid ?? 'none'}, now ${now})`);
    }
    return provider.portForward(namespace, pod, port, connection, signal);
  };
  return {
    wire: 'tunnel',
    description: `port-forward to ${namespace}/${pod}`,
    session: (ws) => runPortForwardSession({
      socket: ws,
      pod: `${namespace}/${pod}${target.uid ? `, uid ${target.uid}` : ''}`,
      forward,
      ...definedOnly({ idleTimeoutMs: context.idleTimeoutMs, logger: context.logger }),
      onProtocolError: (reason) => context.report?.({ code: reason === 'spdy-internal-error' ? 500 : 400, reason: 'protocol-error', message: reason },
        { method: req.method, target: req.url, remote: req.socket.remoteAddress }),
    }),
  };
}

async function prepareChannel(context: StreamCheckContext, req: IncomingMessage, target: StreamTarget & { kind: 'exec' | 'attach' }, query: URLSearchParams, gone: AbortSignal): Promise<PreparedStream> {
  const provider = context.provider;
  const streamOptions = parseStreamOptions(target.kind, query);
  const protocol = selectChannelProtocol(offeredProtocols(req));
  if (!protocol) throw new Refusal(400, 'bad-request', `none of the offered WebSocket subprotocols is supported; Tether speaks ${CHANNEL_PROTOCOLS.join(', ')}`);
  const { namespace, pod } = target;
  const ref = { namespace, pod, container: target.container ?? '' };
  let run: Parameters<typeof runStreamSession>[0]['run'];
  if (target.kind === 'exec') {
    if (!isExecProvider(provider)) throw new Refusal(501, 'not-implemented', `the provider of node ${context.nodeName} does not run commands in containers`);
    run = (streams, signal) => provider.runInContainer(ref, streamOptions.command, streams, signal);
  } else {
    if (!isAttachProvider(provider)) throw new Refusal(501, 'not-implemented', `the provider of node ${context.nodeName} does not attach to containers`);
    run = (streams, signal) => provider.attachToContainer(ref, streams, signal);
  }
  await checkPod(context, target, gone);
  const description = `${target.kind} in ${namespace}/${pod}/${ref.container}`;
  return {
    wire: 'channel',
    description,
    session: (ws) => runStreamSession({
      socket: ws,
      protocol,
      options: streamOptions,
      run,
      ...definedOnly({ idleTimeoutMs: context.idleTimeoutMs, logger: context.logger }),
      description,
    }),
  };
}

/**
 * Runs the checks; `ticket` gets the user's and the pod's claims. The user of a client
 * certificate is not counted per user: that is the API server, which carries every user's
 * streams (they are told apart by its own authorization, and here by the pod cap).
 */
export async function prepareStream(
  context: StreamCheckContext, req: IncomingMessage, target: Extract<RequestTarget, { ok: true }>, ticket: StreamTicket, gone: AbortSignal,
): Promise<PreparedStream> {
  const access = await decideAccess(context.reviewer, context.nodeName, req, target.pathname);
  if (!access.allowed) throw new Refusal(access.code, reasonOfCode(access.code), access.message);
  const stream = streamTarget(target.segments);
  if (!stream) throw new Refusal(404, 'not-found', `no such streaming endpoint on Tether's kubelet API: ${target.pathname}`);
  const user = certificateUser(req.socket as TLSSocket) === undefined ? access.user.username : undefined;
  const claim = ticket.claim(user, `${stream.namespace}/${stream.pod}`);
  if (!claim.admitted) throw new Refusal(429, 'stream-cap', claim.message, { 'Retry-After': String(STREAM_RETRY_AFTER_SECONDS) });
  if (stream.kind === 'portForward') return preparePortForward(context, req, stream, gone);
  return prepareChannel(context, req, { ...stream, kind: stream.kind }, target.query, gone);
}
