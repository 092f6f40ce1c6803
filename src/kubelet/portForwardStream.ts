/**
 * What one SPDY stream of a port-forward connection is, read from its headers as the kubelet reads
 * them (k8s.io/cri-streaming portforward, httpStreamReceived and requestID): `streamType` is
 * `data` or `error`, `port` a TCP port 1..65535, `requestID` the key that pairs a data stream with
 * its error stream (kubectl sends one per forwarded connection). A stream without `requestID`
 * comes from a client older than Kubernetes 1.6; the kubelet pairs those by stream id (the error
 * stream first, the data stream two ids later), and so does Tether.
 */
import { headerValue, type Headers } from '../adapters/spdy/headerBlock.js';

export type PortForwardStreamType = 'data' | 'error';

export type PortForwardStream =
  | { readonly ok: true; readonly streamType: PortForwardStreamType; readonly port: number; readonly requestId: string }
  | { readonly ok: false; readonly reason: string };

export function readPortForwardStream(headers: Headers, streamId: number): PortForwardStream {
  const portText = headerValue(headers, 'port');
  if (portText === undefined || portText === '') return { ok: false, reason: '"port" header is required' };
  if (!/^\d{1,5}$/.test(portText)) return { ok: false, reason: `unable to parse ${JSON.stringify(portText)} as a port` };
  const port = Number(portText);
  if (port < 1 || port > 65535) return { ok: false, reason: `port ${JSON.stringify(portText)} must be between 1 and 65535` };
  const streamType = headerValue(headers, 'streamType');
  if (streamType !== 'data' && streamType !== 'error') {
    return { ok: false, reason: `invalid stream type ${JSON.stringify(streamType ?? '')}: must be data or error` };
  }
  const given = headerValue(headers, 'requestID');
  const requestId = given !== undefined && given !== '' ? given : String(streamType === 'data' ? streamId - 2 : streamId);
  return { ok: true, streamType, port, requestId };
}
