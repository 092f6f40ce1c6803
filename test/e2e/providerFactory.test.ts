/**
 * The Kubernetes provider's host cluster id: by default derived from the host cluster itself (the
 * UID of its kube-system namespace, as Liqo derives cluster ids), so two host clusters offloading
 * to one remote cluster never carry the same marks; a configured id wins.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ClusterClient } from '../../src/adapters/kubernetes/clusterClient.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { createProvider } from '../../src/app/providerFactory.js';
import type { KubernetesProvider } from '../../src/providers/kubernetes/index.js';
import { useSharedClusters } from '../harness/sharedClusters.js';

t.test('without hostClusterId the id is derived from the host cluster, with it the configured one is used', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  const dir = mkdtempSync(join(tmpdir(), 'tether-factory-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const remoteKubeconfig = await remote.writeKubeconfig(join(dir, 'remote.kubeconfig'));
  const hostKubeconfig = await host.writeKubeconfig(join(dir, 'host.kubeconfig'));
  const hostClient = new ClusterClient({ kind: 'file', path: hostKubeconfig });
  t.teardown(() => hostClient.stop());
  const ctx = { nodeName: 'vk-factory', internalIP: '10.0.0.1', host: { kind: 'file' as const, path: hostKubeconfig }, hostClient, logger: silentLogger };
  const kubeSystemUid = (await host.kubectl(['get', 'namespace', 'kube-system', '-o', 'jsonpath={.metadata.uid}'])).trim();

  const derived = await createProvider({ type: 'kubernetes', remote: { kubeconfig: remoteKubeconfig } }, ctx);
  t.teardown(() => derived.stop());
  const id = (derived.provider as KubernetesProvider).hostClusterId;
  t.not(id, 'tether', 'not a constant every host shares');
  t.equal(id, kubeSystemUid.replace(/-/g, '').slice(0, 12), 'the head of the kube-system namespace UID');
  t.match(id, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a DNS label');

  const configured = await createProvider({ type: 'kubernetes', remote: { kubeconfig: remoteKubeconfig }, hostClusterId: 'home' }, ctx);
  t.teardown(() => configured.stop());
  t.equal((configured.provider as KubernetesProvider).hostClusterId, 'home');
});
