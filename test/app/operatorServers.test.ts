/**
 * The servers around an agent, as startAgentFromConfig starts them: a kubelet API that cannot
 * start (its port taken, its certificate unreadable) leaves Tether running but not ready, with the
 * reason in `/readyz?verbose`; once every kubelet API listens, /readyz passes.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { startOperatorServers } from '../../src/app/operatorServers.js';
import type { TetherConfig } from '../../src/config/index.js';
import { freePort } from '../../src/harness/ports.js';
import { TetherMetrics } from '../../src/observability/metrics.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { FakeTree } from '../observability/fakeTree.js';
import { unusedHost } from '../support/unusedHost.js';

async function occupy(t: Test): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

async function start(t: Test, kubeletPort: number, kubeletApi: TetherConfig['kubeletApi'] = {}) {
  const tree = new FakeTree();
  tree.addNode('vk-ready');
  const provider = new SimulatedProvider({ startLatencyMs: 0 });
  t.teardown(() => provider.stop());
  const config = {
    nodes: [{ name: 'vk-ready', internalIP: '127.0.0.1', kubeletPort, provider: { type: 'simulated' } }],
    ports: { introspection: { port: await freePort(), address: '127.0.0.1' } },
    kubeletApi: { address: '127.0.0.1', ...kubeletApi },
  } as unknown as TetherConfig;
  const servers = await startOperatorServers(config, { agent: tree.agent(), metrics: new TetherMetrics({ processMetrics: false }), hostClient: unusedHost(t), providers: [provider], logger: silentLogger });
  t.teardown(() => servers.stop());
  return servers.introspectionUrl!;
}

void t.test('a kubelet API whose port is taken fails /readyz, naming the node and why', async (t) => {
  const url = await start(t, await occupy(t));
  const res = await fetch(`${url}/readyz?verbose`);
  t.equal(res.status, 503);
  t.match(await res.text(), /\[-\]node\/vk-ready\/kubelet-api failed: did not start: .*EADDRINUSE/);
  t.equal((await fetch(`${url}/healthz`)).status, 200, 'alive all the same');
});

void t.test('an unreadable serving certificate fails /readyz, naming the setting', async (t) => {
  const url = await start(t, await freePort(), { certFile: '/nonexistent/tls.crt', keyFile: '/nonexistent/tls.key' });
  const res = await fetch(`${url}/readyz?verbose`);
  t.equal(res.status, 503);
  t.match(await res.text(), /\[-\]node\/vk-ready\/kubelet-api failed: kubeletApi.certFile\/keyFile .*ENOENT/);
});

void t.test('once the kubelet API listens, /readyz passes', async (t) => {
  const url = await start(t, await freePort());
  const res = await fetch(`${url}/readyz?verbose`);
  t.match(await res.text(), /\[\+\]node\/vk-ready\/kubelet-api ok/);
  t.equal(res.status, 200);
});

void t.test('a kubelet API refusal is counted on /metrics by node and reason', async (t) => {
  const port = await freePort();
  const url = await start(t, port);
  const { connect } = await import('node:tls');
  await new Promise<void>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => socket.end('GET /%zz HTTP/1.1\r\nHost: k\r\n\r\n'));
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
  t.match(await (await fetch(`${url}/metrics`)).text(), /tether_kubelet_rejected_requests_total\{node="vk-ready",reason="malformed-url"\} 1\n/);
});

void t.test('the actor tree bound beyond loopback asks for a reviewed identity; the probes do not', async (t) => {
  const tree = new FakeTree();
  tree.addNode('vk-ready');
  const port = await freePort('0.0.0.0');
  const config = {
    nodes: [{ name: 'vk-ready', internalIP: '127.0.0.1', provider: { type: 'simulated' } }],
    ports: { introspection: { port, address: '0.0.0.0' } },
    kubeletApi: { enabled: false },
  } as unknown as TetherConfig;
  const servers = await startOperatorServers(config, { agent: tree.agent(), metrics: new TetherMetrics({ processMetrics: false }), hostClient: unusedHost(t), providers: [], logger: silentLogger });
  t.teardown(() => servers.stop());
  const url = `http://127.0.0.1:${port}`;
  t.equal((await fetch(`${url}/actors`)).status, 401, 'anonymous: no tree');
  t.equal((await fetch(`${url}/`)).status, 401, 'anonymous: no page');
  t.equal((await fetch(`${url}/healthz`)).status, 200, 'probes stay open');

  const openPort = await freePort('0.0.0.0');
  const open = await startOperatorServers({ ...config, ports: { introspection: { port: openPort, address: '0.0.0.0', anonymous: true } } } as TetherConfig,
    { agent: tree.agent(), metrics: new TetherMetrics({ processMetrics: false }), hostClient: unusedHost(t), providers: [], logger: silentLogger });
  t.teardown(() => open.stop());
  t.equal((await fetch(`http://127.0.0.1:${openPort}/actors`)).status, 200, 'anonymous: true (the sandbox) serves it without a token');
});
