import { CoreV1Api } from '@kubernetes/client-node';
import { loadKubeConfig, type KubeconfigSource } from './kubeconfig.js';

/**
 * The UID of the cluster's `kube-system` namespace: created once with the cluster and never
 * re-created, so it names the cluster (Liqo derives its cluster ids the same way).
 */
export async function readClusterUid(source: KubeconfigSource): Promise<string> {
  const namespace = await loadKubeConfig(source).makeApiClient(CoreV1Api).readNamespace({ name: 'kube-system' });
  const uid = namespace.metadata?.uid;
  if (!uid) throw new Error('namespace kube-system has no uid');
  return uid;
}
