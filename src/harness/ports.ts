/**
 * Free loopback ports: bind port 0, read what the kernel chose, close. Another process can take
 * the port between close and use, so each component start retries on "address already in use";
 * within this process, ports handed out are remembered so two clusters starting together never
 * get the same one.
 */
import { createServer } from 'node:net';

const handedOut = new Set<number>();

export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await bindAndRelease(host);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port found on ${host} after 20 attempts`);
}

export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePort(host));
  return ports;
}

function bindAndRelease(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error(`could not read the port bound on ${host}`))));
    });
  });
}
