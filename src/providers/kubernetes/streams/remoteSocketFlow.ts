/**
 * Flow control on a WebSocket to the remote API server, both ways, so a remote that stops
 * reading, or a host client that stops reading what the remote sends, stalls the source instead
 * of growing Tether's memory:
 *
 * - sending: a sender waits while Tether's send buffer for the socket (ws `bufferedAmount`) is
 *   over REMOTE_SEND_HIGH_WATER_BYTES, until its message has left for the kernel (the send
 *   callback); so at most that bound plus one message is held per socket;
 * - receiving: messages are handed on one at a time, in order; while more than
 *   REMOTE_RECEIVE_HIGH_WATER_BYTES wait, the socket is not read, and it is read again once all
 *   have been handed on (ws still delivers what one read of the socket held, ≤ 64 KiB).
 *
 * Every remote socket Tether opens also refuses messages over REMOTE_MAX_PAYLOAD_BYTES (ws
 * closes it with 1009).
 */
import { WebSocket, type RawData } from 'ws';

export const REMOTE_SEND_HIGH_WATER_BYTES = 256 * 1024;
export const REMOTE_RECEIVE_HIGH_WATER_BYTES = 64 * 1024;
/** The largest message taken from the remote: a SPDY frame of the largest size accepted (1 MiB) with room to spare. */
export const REMOTE_MAX_PAYLOAD_BYTES = 2 * 1024 * 1024;

export class RemoteSocketClosedError extends Error {
  override readonly name = 'RemoteSocketClosedError';
}

export function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/**
 * Sends `data` as one binary message. Resolves at once while the send buffer is at or under
 * `highWater`, else once this message has been written out; rejects if the socket is not open
 * or fails before then.
 */
export function sendPaced(socket: WebSocket, data: Buffer, highWater = REMOTE_SEND_HIGH_WATER_BYTES): Promise<void> {
  if (socket.readyState !== WebSocket.OPEN) return Promise.reject(new RemoteSocketClosedError('the remote stream is closed'));
  return new Promise((resolve, reject) => {
    socket.send(data, { binary: true }, (error) => (error ? reject(new RemoteSocketClosedError(error.message)) : resolve()));
    if (socket.bufferedAmount <= highWater) resolve();
  });
}

/**
 * Hands each message of `socket` to `handle`, one at a time and in order, reading the socket
 * only while at most `highWater` bytes wait. A `handle` that rejects stops the hand-over (later
 * messages are dropped) and is reported to `onError` once. `settled()` resolves once every
 * message received so far has been handled.
 */
export function receivePaced(
  socket: WebSocket,
  handle: (message: Buffer) => Promise<void> | void,
  onError: (error: unknown) => void,
  highWater = REMOTE_RECEIVE_HIGH_WATER_BYTES,
): { settled: () => Promise<void> } {
  let waiting = 0;
  let failed = false;
  let chain: Promise<void> = Promise.resolve();
  socket.on('message', (data) => {
    if (failed) return;
    const message = toBuffer(data);
    waiting += message.length;
    if (waiting > highWater) socket.pause();
    chain = chain
      .then(() => (failed ? undefined : handle(message)))
      .catch((error: unknown) => {
        if (failed) return;
        failed = true;
        onError(error);
      })
      .finally(() => {
        waiting -= message.length;
        if (waiting === 0 && socket.isPaused) socket.resume();
      });
  });
  return { settled: () => chain };
}
