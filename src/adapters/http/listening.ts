import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../lib/clock.js';
import { LifecycleControl, type Lifecycle } from '../../lib/lifecycle.js';
import { systemClock } from '../clock.js';

/**
 * Starts `server` listening and gives it the one lifecycle: `listen` resolves once it is bound
 * (rejects if it cannot bind), `stop()` runs `beforeClose` (streams that end with a message of
 * their own), then closes every connection (long log follows and watches of the actor tree
 * included) and the listener. Shared by the kubelet API and the operator servers.
 */
export async function listening(
  server: Server,
  port: number,
  host: string,
  options: { readonly clock?: Clock; readonly beforeClose?: () => Promise<void> } = {},
): Promise<Lifecycle & { readonly port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const life = new LifecycleControl({
    clock: options.clock ?? systemClock,
    release: async () => {
      await options.beforeClose?.();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  });
  life.markReady();
  return { port: (server.address() as AddressInfo).port, ready: life.ready, done: life.done, stop: (options) => life.stop(options) };
}
