/**
 * Two clusters of this test's own on one pod CIDR (as two kubeadm+flannel or two k3s clusters run
 * with their defaults): each controller manager hands its Nodes `spec.podCIDRs` out of
 * 10.244.0.0/16 (`clusterCidr`), so the Kubernetes node learns an overlap from the clusters
 * themselves, with no `networks` override, and refuses to start; `blankPodIPs` lets it start
 * (docs/kubernetes-provider.md, "Address safety"). The shared clusters expose no podCIDRs: their
 * file (addressSafety.test.ts) proves the refusal through the override.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ClusterClient } from '../../src/adapters/kubernetes/clusterClient.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { createProvider, ProviderSetupError } from '../../src/app/providerFactory.js';
import type { Cluster } from '../../src/harness/controlPlane.js';
import type { ProviderConfig } from '../../src/providers/registry.js';
import { startDedicatedCluster } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';

const POD_CIDR = '10.244.0.0/16';

/** A Node object (no kubelet behind it: the node IPAM controller allocates to any Node) and its allocated pod CIDR. */
async function nodeWithPodCidr(cluster: Cluster, name: string): Promise<string> {
  await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name } }) });
  let cidr = '';
  await waitFor(`${name} given a pod CIDR`, async () => {
    cidr = (await cluster.kubectl(['get', 'node', name, '-o', 'jsonpath={.spec.podCIDRs[0]}'])).trim();
    return cidr !== '';
  }, { timeoutMs: 30_000 });
  return cidr;
}

void t.test('clusters whose controller managers hand out one pod CIDR: the node learns the overlap and refuses; blankPodIPs starts it', async (t) => {
  const [host, remote] = await Promise.all([
    startDedicatedCluster(t, { name: 'overlap-host', clusterCidr: POD_CIDR }),
    startDedicatedCluster(t, { name: 'overlap-remote', clusterCidr: POD_CIDR }),
  ]);
  const [hostCidr, remoteCidr] = await Promise.all([nodeWithPodCidr(host, 'host-worker'), nodeWithPodCidr(remote, 'remote-worker')]);
  t.match(hostCidr, /^10\.244\./, 'the host\'s Node got a pod CIDR of the shared range');
  t.match(remoteCidr, /^10\.244\./, 'and so did the remote\'s');

  const dir = mkdtempSync(join(tmpdir(), 'tether-overlap-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const remoteKubeconfig = await remote.writeKubeconfig(join(dir, 'remote.kubeconfig'));
  const hostKubeconfig = await host.writeKubeconfig(join(dir, 'host.kubeconfig'));
  const hostClient = new ClusterClient({ kind: 'file', path: hostKubeconfig });
  t.teardown(() => hostClient.stop());
  const ctx = { nodeName: 'vk-overlap', internalIP: '127.0.0.1', host: { kind: 'file' as const, path: hostKubeconfig }, hostClient, logger: silentLogger };
  const create = (extra: Record<string, unknown>): Promise<unknown> =>
    createProvider({ type: 'kubernetes', remote: { kubeconfig: remoteKubeconfig }, hostClusterId: 'overlap', ...extra } as ProviderConfig, ctx).then((handle) => {
      t.teardown(() => handle.stop());
      return handle;
    });

  const refusal = await create({}).then(() => undefined, (e: unknown) => e);
  t.ok(refusal instanceof ProviderSetupError, 'refused as a setup error (tether run exits 2)');
  const cidr = (text: string): string => text.replace(/\./g, '\\.').replace('/', '\\/');
  t.match((refusal as Error).message, new RegExp(`^node vk-overlap: the remote pod CIDR ${cidr(remoteCidr)} \\(Node spec\\.podCIDRs\\) overlaps the host pod CIDR ${cidr(hostCidr)} \\(Node spec\\.podCIDRs\\)`), 'both CIDRs learnt from the Nodes');

  await create({ blankPodIPs: true });
  t.pass('with blankPodIPs the node starts');
});
