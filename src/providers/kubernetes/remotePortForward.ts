/**
 * One forwarded connection to a remote pod's port, through the remote API server, spoken as
 * kubectl speaks it: SPDY tunnelled in a WebSocket (`SPDY/3.1+portforward.k8s.io`,
 * lib/spdy/connection.ts), an error stream and a data stream for the port. Any API server with
 * PortForwardWebsockets (on since 1.31) takes it: one whose node declares
 * ExtendWebSocketsToKubelet (a remote Tether) hands the tunnel through, any other unwraps it to
 * SPDY for its kubelet. client-node's PortForward speaks
 * the older `v4.channel.k8s.io` port-forward, which a 1.36 API server only hands through to the
 * node, where a Tether node would have to speak it too; hence this relay on the one protocol.
 * The host side's bytes go on the data stream, the pod's answer comes back with backpressure;
 * a message on the remote's error stream rejects with the remote's words. Deadlines: 30 s for the
 * handshake and for each stream's reply.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { SpdyConnection, type SpdyStream } from '../../lib/spdy/connection.js';
import { openTunnelSocket, PORT_FORWARD_TUNNEL_PROTOCOL } from '../../lib/spdy/tunnelProtocol.js';
import { invalidInput, transient } from '../errors.js';
import type { PortConnection } from '../provider.js';
import { connectRemote } from './remoteStreams.js';

/** How long the remote's error stream may take to end once the pod side has closed. */
const ERROR_STREAM_GRACE_MS = 10_000;

async function readAll(stream: SpdyStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream.input) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function relayRemotePortForward(
  kubeConfig: KubeConfig,
  target: { readonly namespace: string; readonly pod: string; readonly port: number },
  connection: PortConnection,
  operation: string,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  let accepted = (): boolean => false;
  const path = `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/portforward`;
  const socket = await connectRemote(kubeConfig, path, operation, (url, options) => {
    const opened = openTunnelSocket(url, options);
    accepted = opened.accepted;
    return opened.socket;
  });
  const spdy = new SpdyConnection({ socket, role: 'client' });
  const stop = (): void => spdy.close();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    if (!accepted()) throw invalidInput(`${operation}: the remote API server did not take ${PORT_FORWARD_TUNNEL_PROTOCOL}`);
    const headers = (type: string): Array<[string, string]> => [['streamType', type], ['port', String(target.port)], ['requestID', '0']];
    const error = await spdy.openStream(headers('error'));
    void error.end();
    const message = readAll(error);
    const data = await spdy.openStream(headers('data'));
    void (async () => {
      for await (const chunk of connection.input) await data.write(chunk);
      await data.end();
    })().catch(() => data.reset());
    for await (const chunk of data.input) await connection.write(chunk as Buffer);
    const lost = data.aborted;
    // As kubectl does: the answer is read to its end, so the data stream goes and the error stream tells why.
    data.reset();
    const grace = new Promise<string>((resolve) => setTimeout(() => resolve(''), ERROR_STREAM_GRACE_MS).unref());
    const remoteError = await Promise.race([message, grace]);
    if (remoteError !== '') throw invalidInput(`${operation}: ${remoteError}`);
    if (lost && !signal?.aborted) throw transient(`${operation}: the remote closed the connection before the pod's side ended`);
  } finally {
    signal?.removeEventListener('abort', stop);
    spdy.close();
    await spdy.closed;
  }
}
