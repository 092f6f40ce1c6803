/**
 * A process in a network namespace reaches the API server at the namespace's host-side address,
 * authenticates with a node token, loses it when the link goes down, and gets it back when it
 * comes up. Skipped, with the reason, where namespaces are unavailable (not root, no iproute2).
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createNetworkNamespace, networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { startDedicatedCluster } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';

const run = promisify(execFile);
const support = await networkNamespaceSupport();

void t.test('a node in a network namespace reaches its API server, and a downed link partitions it',
  { skip: support.available ? false : support.reason }, async (t) => {
    const ns = await createNetworkNamespace('e2e');
    t.teardown(() => ns.remove());
    const cluster = await startDedicatedCluster(t, { name: 'netns', extraSans: [ns.hostAddress], apiserverBindAddress: '0.0.0.0' });
    const port = new URL(cluster.server).port;
    const node = cluster.describe().tokens.find((x) => x.user === 'system:node:tether-node-0');
    if (!node) throw new Error('the cluster has no token for system:node:tether-node-0');
    const kubeconfig = await cluster.writeKubeconfig(join(cluster.dir, 'node-in-netns.kubeconfig'),
      { server: `https://${ns.hostAddress}:${port}`, token: node.token });
    const kubectlInNamespace = async (...args: string[]): Promise<string> => {
      const { command, args: wrapped } = ns.wrap(cluster.describe().kubectlPath, [`--kubeconfig=${kubeconfig}`, '--request-timeout=3s', ...args]);
      return (await run(command, wrapped, { timeout: 10_000 })).stdout;
    };

    const routes = (await run('ip', ['netns', 'exec', ns.name, 'ip', '-4', 'route'])).stdout;
    t.notMatch(routes, /default/, 'the namespace has no default route: it reaches the host-side address only');
    const whoami = JSON.parse(await kubectlInNamespace('auth', 'whoami', '-o', 'json')) as { status: { userInfo: { username: string; groups: string[] } } };
    t.equal(whoami.status.userInfo.username, 'system:node:tether-node-0');
    t.ok(whoami.status.userInfo.groups.includes('system:nodes'));

    await ns.linkDown();
    await waitFor('the partitioned node to lose the API server', async () => {
      try {
        await kubectlInNamespace('get', '--raw', '/readyz');
        return false;
      } catch {
        return true;
      }
    }, { timeoutMs: 20_000 });
    t.equal(await cluster.kubectl(['get', '--raw', '/readyz']), 'ok', 'loopback clients are unaffected by the partition');

    await ns.linkUp();
    const readyz = await waitFor('the node to reach the API server again', () => kubectlInNamespace('get', '--raw', '/readyz'), { timeoutMs: 20_000 });
    t.equal(readyz, 'ok');
  });
