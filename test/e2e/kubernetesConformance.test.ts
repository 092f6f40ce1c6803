/**
 * The Kubernetes provider runs the provider conformance suite against the shared "host" and
 * "remote" clusters: each case gets a fresh host namespace and host cluster id, so its remote
 * namespace is its own. There is no kubelet in the remote cluster: pods stay Pending until
 * deleted, which the suite allows (it asks for order, not progress).
 */
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import t from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { KubernetesProvider } from '../../src/providers/kubernetes/index.js';
import { providerConformance } from '../providers/conformance/providerConformance.js';
import { reportLogsOnFailure, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';

const shared = await useSharedClusters(t);
reportLogsOnFailure(t, [shared.host, shared.remote]);

providerConformance('the Kubernetes provider', async (t: Test) => {
  const namespace = await testNamespace(t, shared.host, 'conform');
  const hostClusterId = `c${randomBytes(3).toString('hex')}`;
  const nodeName = `vk-${hostClusterId}`;
  const provider = new KubernetesProvider({
    nodeName,
    hostClusterId,
    host: { kind: 'file', path: shared.host.kubeconfigPath },
    remote: { kind: 'file', path: shared.remote.kubeconfigPath },
    reflection: { sweepDelayMs: 50, minAgeMs: 0 },
  });
  const remoteNamespace = provider.remoteNamespaceOf(namespace);
  return {
    provider,
    nodeName,
    namespace,
    // The default pod policy (baseline) refuses host paths before anything is sent.
    invalidPod: (pod: Pod): Pod => ({
      ...pod,
      spec: { ...pod.spec!, volumes: [{ name: 'host', hostPath: { path: '/etc' } }] },
    }),
    patienceMs: 60_000,
    stop: async () => {
      await provider.stop();
      await shared.remote.kubectl(['delete', 'namespace', remoteNamespace, '--wait=false', '--ignore-not-found']).catch(() => undefined);
    },
  };
});
