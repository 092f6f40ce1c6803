/**
 * One forwarded connection to a remote pod's port, through the remote API server, spoken as
 * kubectl speaks it: SPDY tunnelled in a WebSocket (`SPDY/3.1+portforward.k8s.io`,
 * adapters/spdy/connection.ts), an error stream and a data stream for the port. Any API server with
 * PortForwardWebsockets (on since 1.31) takes it: one whose node declares
 * ExtendWebSocketsToKubelet (a remote Tether) hands the tunnel through, any other unwraps it to
 * SPDY for its kubelet. client-node's PortForward speaks
 * the older `v4.channel.k8s.io` port-forward, which a 1.36 API server only hands through to the
 * node, where a Tether node would have to speak it too; hence this relay on the one protocol.
 * Backpressure both ways: the host side's bytes are taken one chunk at a time, each once the last
 * has left for the remote (SpdyStream.write waits for each frame's send callback), and the pod's
 * answer is read from the remote only as the host takes it (the SPDY connection stops reading the
 * socket once 256 KiB wait for a stream's reader). A message on the remote's error stream rejects
 * with the remote's words, of which the first MAX_ERROR_STREAM_BYTES are kept. Deadlines: 30 s for
 * the handshake and for each stream's reply; 10 s for the error stream once the pod side has closed.
 * A caller that leaves while the tunnel is being opened settles the relay at once (connectRemote).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { onAbort } from '../../../lib/abortFanOut.js';
import { SpdyConnection, type SpdyStream } from '../../../adapters/spdy/connection.js';
import { openTunnelSocket as openTunnel, PORT_FORWARD_TUNNEL_PROTOCOL } from '../../../adapters/spdy/tunnelProtocol.js';
import { invalidInput, transient } from '../../errors.js';
import type { PortConnection } from '../../provider.js';
import { connectRemote } from './remoteStreams.js';

/** How long the remote's error stream may take to end once the pod side has closed. */
const ERROR_STREAM_GRACE_MS = 10_000;
/** The most of the remote's error stream kept for the message; the rest is read and dropped. */
export const MAX_ERROR_STREAM_BYTES = 16 * 1024;

/** The stream's bytes up to `max`; read to its end all the same, so it never holds the connection up. */
async function readBounded(stream: SpdyStream, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  for await (const chunk of stream.input) {
    if (kept >= max) continue;
    const part = chunk.subarray(0, max - kept);
    chunks.push(part);
    kept += part.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

type PortTarget = { readonly namespace: string; readonly pod: string; readonly port: number };

/** One forwarded connection relayed to the remote pod's port. */
export type RemotePortForwardRelay = (
  kubeConfig: KubeConfig, target: PortTarget, connection: PortConnection, operation: string, signal?: AbortSignal,
) => Promise<void>;

/** The relay, opening its tunnels with `openTunnelSocket` (tests watch the socket Tether opens). */
export const remotePortForwardRelay = (openTunnelSocket: typeof openTunnel = openTunnel): RemotePortForwardRelay => async (
  kubeConfig, target, connection, operation, signal,
) => {
  let accepted = (): boolean => false;
  const path = `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/portforward`;
  const socket = await connectRemote(kubeConfig, path, operation, (url, options) => {
    const opened = openTunnelSocket(url, options);
    accepted = opened.accepted;
    return opened.socket;
  }, signal);
  const spdy = new SpdyConnection({ socket, role: 'client' });
  let stopped = (): void => undefined;
  const gone = new Promise<false>((resolve) => (stopped = () => resolve(false)));
  const stop = (): void => {
    spdy.close();
    stopped();
  };
  // Subscribed at once if the caller left between the socket's opening and here.
  const unsubscribe = signal ? onAbort(signal, stop) : (): void => undefined;
  try {
    if (!accepted()) throw invalidInput(`${operation}: the remote API server did not take ${PORT_FORWARD_TUNNEL_PROTOCOL}`);
    const headers = (type: string): Array<[string, string]> => [['streamType', type], ['port', String(target.port)], ['requestID', '0']];
    const error = await spdy.openStream(headers('error'));
    void error.end();
    const message = readBounded(error, MAX_ERROR_STREAM_BYTES);
    const data = await spdy.openStream(headers('data'));
    void (async () => {
      for await (const chunk of connection.input) await data.write(chunk);
      await data.end();
    })().catch(() => data.reset());
    for await (const chunk of data.input) {
      // A host side that takes no more must not hold the relay once the caller has gone.
      if (!(await Promise.race([connection.write(chunk).then(() => true), gone]))) break;
    }
    const lost = data.aborted;
    // As kubectl does: the answer is read to its end, so the data stream goes and the error stream tells why.
    data.reset();
    let graceTimer: NodeJS.Timeout | undefined;
    const grace = new Promise<string>((resolve) => (graceTimer = setTimeout(() => resolve(''), ERROR_STREAM_GRACE_MS)));
    const remoteError = await Promise.race([message, grace]).finally(() => clearTimeout(graceTimer));
    if (remoteError !== '') throw invalidInput(`${operation}: ${remoteError}`);
    if (lost && !signal?.aborted) throw transient(`${operation}: the remote closed the connection before the pod's side ended`);
  } finally {
    unsubscribe();
    spdy.close();
    await spdy.closed;
  }
};

export const relayRemotePortForward: RemotePortForwardRelay = remotePortForwardRelay();
