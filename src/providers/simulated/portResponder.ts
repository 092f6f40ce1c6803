/**
 * What answers on a simulated container's declared port: a small HTTP server naming the pod,
 * container and port, so port-forward can be tried with an ordinary HTTP client. Node's own HTTP
 * server parses the forwarded bytes (an http.Server accepts any Duplex as a connection).
 * Backpressure both ways: the client's bytes are pulled from `connection.input` only when the
 * server reads (it stops reading while its answers are not taken: pipelined requests whose
 * answers a client never reads cost a bounded buffer), and each answer is written once the last
 * has been taken.
 */
import { createServer, type Server } from 'node:http';
import { Duplex } from 'node:stream';
import type { PortConnection } from '../provider.js';


export interface PortIdentity {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly port: number;
}

function responder(identity: PortIdentity): Server {
  return createServer((req, res) => {
    const body = `Hello from pod ${identity.namespace}/${identity.pod}, container ${identity.container}, port ${identity.port} ` +
      `(Tether simulated provider): ${req.method ?? 'GET'} ${req.url ?? '/'}\n`;
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}

/** Serves one forwarded connection until either side ends it or `signal` aborts. */
export async function servePortConnection(identity: PortIdentity, connection: PortConnection, signal?: AbortSignal): Promise<void> {
  const server = responder(identity);
  let pending = Promise.resolve();
  const input = connection.input[Symbol.asyncIterator]();
  let pulling = false;
  const socket = new Duplex({
    // Pulled: one chunk of the client's bytes each time the server asks for more.
    read() {
      if (pulling) return;
      pulling = true;
      input.next().then(({ value, done }) => {
        pulling = false;
        socket.push(done === true ? null : value);
      }, (error: unknown) => {
        pulling = false;
        socket.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    },
    write(chunk: Buffer, _encoding, callback) {
      pending = pending.then(() => connection.write(chunk));
      pending.then(() => callback(), (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
    final(callback) {
      pending.then(() => callback(), () => callback());
    },
  });
  const done = new Promise<void>((resolve) => {
    socket.once('close', resolve);
    socket.once('finish', resolve);
  });
  let aborted = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (aborted = resolve));
  const stop = (): void => {
    socket.destroy();
    aborted();
  };
  signal?.addEventListener('abort', stop, { once: true });
  server.emit('connection', socket);
  try {
    await done;
    // The last answers are written out, unless the caller has gone (a write it no longer takes would never settle).
    await Promise.race([pending.catch(() => undefined), stopped]);
  } finally {
    signal?.removeEventListener('abort', stop);
    server.close();
    void input.return?.().catch(() => undefined);
  }
}
