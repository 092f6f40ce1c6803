/**
 * For the backpressure tests of the stream paths: an endless input that counts what has been
 * pulled from it, a kubeconfig pointing at a fake remote API server on loopback, and a remote
 * that never answers an upgrade.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { Test } from 'tap';

export interface CountedSource {
  readonly input: AsyncGenerator<Buffer>;
  /** Bytes pulled so far. */
  pulled(): number;
  /** Ends the input at its next pull. */
  stop(): void;
}

/**
 * `chunk` again and again, letting the event loop turn after each; ends at `cap` bytes so that a
 * reader without backpressure fails its test rather than the machine.
 */
export function countedSource(chunk: Buffer, cap = 64 * 1024 * 1024): CountedSource {
  let pulled = 0;
  let stopped = false;
  const input = (async function* (): AsyncGenerator<Buffer> {
    while (!stopped && pulled < cap) {
      pulled += chunk.length;
      yield chunk;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  return { input, pulled: () => pulled, stop: () => void (stopped = true) };
}

/** A kubeconfig for the plain-HTTP server `server` listens as, with a bearer token. */
export function loopbackKubeConfig(server: Server): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'remote', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'tether', token: 'remote-token' }],
    contexts: [{ name: 'remote', cluster: 'remote', user: 'tether' }],
    currentContext: 'remote',
  });
  return kubeConfig;
}

export interface SilentRemote {
  readonly kubeConfig: KubeConfig;
  /** The remote's side of each upgrade request it holds. */
  readonly held: Socket[];
  /** Whether the remote has seen Tether's side of its `index`th connection go. */
  readonly gone: (index: number) => boolean;
}

/** A remote API server that takes each upgrade request and never answers it. */
export async function silentRemote(t: Test): Promise<SilentRemote> {
  const server = http.createServer();
  const held: Socket[] = [];
  const gone = new Set<number>();
  server.on('upgrade', (_req, socket: Socket) => {
    const index = held.push(socket) - 1;
    // The HTTP server's sockets are half-open: the end of Tether's side is an 'end'.
    socket.once('end', () => void gone.add(index));
    socket.once('close', () => void gone.add(index));
    socket.resume(); // read, so that Tether's side going is seen
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of held) socket.destroy();
    server.close();
  });
  return { kubeConfig: loopbackKubeConfig(server), held, gone: (index) => gone.has(index) };
}
