/**
 * The kubelet API's certificate files as the config names them (`kubeletApi.certFile`, `keyFile`,
 * `clientCAFile`), wired by startOperatorServers: a rotation of the Secret volume is served to new
 * connections without a restart (seen by the directory watch, read a second later), and a broken
 * one leaves the kubelet API serving and ready.
 */
import { join } from 'node:path';
import { connect } from 'node:tls';
import t from 'tap';
import { jsonLogger } from '../../src/adapters/logger.js';
import { startOperatorServers } from '../../src/app/operatorServers.js';
import type { TetherConfig } from '../../src/config/index.js';
import { freePort } from '../../src/harness/ports.js';
import { TetherMetrics } from '../../src/observability/metrics.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { FakeTree } from '../observability/fakeTree.js';
import { certificateKit, fingerprint, SecretVolume } from '../support/rotatingCertificates.js';
import { waitFor } from '../harness/waitFor.js';
import { unusedHost } from '../support/unusedHost.js';

/** The fingerprint of the certificate a new TLS connection to `port` is served. */
function served(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

void t.test('a rotation of the configured files is served to new connections without a restart; a broken one changes nothing', async (t) => {
  const dir = t.testdir();
  const kit = await certificateKit(join(dir, 'kit'));
  const volume = new SecretVolume(join(dir, 'tls'));
  await volume.write({ 'tls.crt': kit.servingA.cert, 'tls.key': kit.servingA.key, 'ca.crt': kit.caA });
  const [kubeletPort, introspection] = [await freePort(), await freePort()];
  const tree = new FakeTree();
  tree.addNode('vk-1');
  const provider = new SimulatedProvider({ startLatencyMs: 0 });
  t.teardown(() => provider.stop());
  const errors: string[] = [];
  const config = {
    nodes: [{ name: 'vk-1', internalIP: '127.0.0.1', kubeletPort, provider: { type: 'simulated' } }],
    ports: { introspection: { port: introspection, address: '127.0.0.1' } },
    kubeletApi: { address: '127.0.0.1', certFile: volume.path('tls.crt'), keyFile: volume.path('tls.key'), clientCAFile: volume.path('ca.crt') },
  } as unknown as TetherConfig;
  const servers = await startOperatorServers(config, {
    agent: tree.agent(), metrics: new TetherMetrics({ processMetrics: false }), hostClient: unusedHost(t), providers: [provider],
    logger: jsonLogger('error', (line) => errors.push((JSON.parse(line) as { msg: string }).msg)),
  });
  t.teardown(() => servers.stop());
  t.equal(await served(kubeletPort), fingerprint(kit.servingA.cert));

  await volume.write({ 'tls.crt': kit.servingB.cert, 'tls.key': kit.servingA.key, 'ca.crt': kit.caA });
  await waitFor('the broken rotation logged', () => errors.length > 0, { timeoutMs: 10_000, intervalMs: 50 });
  t.match(errors[0], /^kubeletApi\.certFile\/keyFile .*tls\.crt, .*tls\.key cannot be used: the key in .*tls\.key is not the key of the certificate/);
  t.equal(await served(kubeletPort), fingerprint(kit.servingA.cert), 'the certificate in use stays');
  t.equal((await fetch(`${servers.introspectionUrl ?? ''}/readyz`)).status, 200, 'and the kubelet API stays ready');

  await volume.write({ 'tls.crt': kit.servingB.cert, 'tls.key': kit.servingB.key, 'ca.crt': kit.caA });
  await waitFor('the rotation served', async () => (await served(kubeletPort)) === fingerprint(kit.servingB.cert), { timeoutMs: 10_000, intervalMs: 50 });
  t.equal(errors.length, 1, 'one error, for the broken rotation only');
});
