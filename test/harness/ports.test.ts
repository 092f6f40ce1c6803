import t from 'tap';
import { createServer } from 'node:net';
import { freePort, freePorts } from '../../src/harness/ports.js';

const listen = (port: number): Promise<void> => new Promise((resolve, reject) => {
  const server = createServer();
  server.once('error', reject);
  server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve()));
});

void t.test('freePorts hands out distinct ports that can be bound on loopback', async (t) => {
  const ports = await freePorts(8);
  t.equal(new Set(ports).size, 8);
  for (const port of ports) {
    t.ok(port > 0 && port < 65536);
    await listen(port);
  }
});

void t.test('a port is never handed out twice by one process', async (t) => {
  const seen = new Set<number>();
  for (let i = 0; i < 50; i++) {
    const port = await freePort();
    t.notOk(seen.has(port));
    seen.add(port);
  }
});
