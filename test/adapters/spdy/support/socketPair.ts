/**
 * What the SPDY connection tests share: a real `ws` pair on loopback, a raw peer's view of the
 * frames the other side sends, a wait on a condition, and a socket whose sends never complete
 * (a peer that does not read, without filling the kernel's buffers first).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import WebSocket, { WebSocketServer } from 'ws';
import type { SpdyStream } from '../../../../src/adapters/spdy/connection.js';
import { FrameReader, type Frame } from '../../../../src/adapters/spdy/frames.js';

export interface Pair {
  readonly client: WebSocket;
  readonly server: WebSocket;
}

export async function socketPair(t: Test): Promise<Pair> {
  const http: Server = createServer();
  const wss = new WebSocketServer({ server: http, maxPayload: 1024 * 1024 });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const server = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(http.address() as AddressInfo).port}`);
  await new Promise((resolve) => client.once('open', resolve));
  t.teardown(async () => {
    client.terminate();
    wss.close();
    await new Promise((resolve) => http.close(resolve));
  });
  return { client, server: await server };
}

export async function readAll(stream: SpdyStream): Promise<string> {
  let text = '';
  for await (const chunk of stream.input) text += (chunk as Buffer).toString('utf8');
  return text;
}

/** A raw peer's view: every frame the other side sends. */
export function framesFrom(socket: WebSocket): Frame[] {
  const reader = new FrameReader();
  const frames: Frame[] = [];
  socket.on('message', (data: Buffer) => frames.push(...reader.push(data).frames));
  return frames;
}

// Waits by time, not by a count of event-loop turns: a count runs out early on a busy machine.
export { until } from '../../../support/until.js';

export interface HeldSends {
  /** Frames handed to the socket, in order (sent or held). */
  readonly frames: Buffer[];
  /** Sends whose completion is held back. */
  readonly held: Array<() => void>;
  /** Completes every held send, as a peer that reads again would. */
  release(): void;
}

/** Makes `socket`'s sends hang, as behind a peer that stopped reading; `release()` lets them go. */
export function holdSends(socket: WebSocket): HeldSends {
  const frames: Buffer[] = [];
  const held: Array<() => void> = [];
  const send = socket.send.bind(socket);
  let holding = true;
  socket.send = ((data: Buffer, options: { binary: boolean }, cb?: (error?: Error) => void) => {
    frames.push(data);
    if (!holding) return send(data, options, cb);
    held.push(() => send(data, options, cb));
  }) as typeof socket.send;
  return {
    frames, held,
    release: () => {
      holding = false;
      for (const go of held.splice(0)) go();
    },
  };
}
