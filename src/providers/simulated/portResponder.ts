/**
 * What answers on a simulated container's declared port: a small HTTP server naming the pod,
 * container and port, so port-forward can be tried with an ordinary HTTP client. Node's own HTTP
 * server parses the forwarded bytes (an http.Server accepts any Duplex as a connection).
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
  const socket = new Duplex({
    read() {
      // Fed from `connection.input` below.
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
  const stop = (): void => void socket.destroy();
  signal?.addEventListener('abort', stop, { once: true });
  server.emit('connection', socket);
  void (async () => {
    for await (const chunk of connection.input) socket.push(chunk);
    socket.push(null);
  })().catch(stop);
  try {
    await done;
    await pending.catch(() => undefined);
  } finally {
    signal?.removeEventListener('abort', stop);
    server.close();
  }
}
