/**
 * For the backpressure tests of the stream paths: an endless input that counts what has been
 * pulled from it, and a kubeconfig pointing at a fake remote API server on loopback.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

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
