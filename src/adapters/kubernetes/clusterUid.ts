import { CoreV1Api } from '@kubernetes/client-node';
import { boundedRead, type BoundedReadOptions } from './boundedRead.js';
import { loadKubeConfig, type KubeconfigSource } from './kubeconfig.js';

/**
 * The UID of the cluster's `kube-system` namespace: created once with the cluster and never
 * re-created, so it names the cluster (Liqo derives its cluster ids the same way). The read has
 * a deadline (default 10 s) that abandons the request itself.
 */
export async function readClusterUid(source: KubeconfigSource, options: BoundedReadOptions = {}): Promise<string> {
  const core = loadKubeConfig(source).makeApiClient(CoreV1Api);
  const namespace = await boundedRead('get namespace kube-system', options, (request) => core.readNamespace({ name: 'kube-system' }, request));
  const uid = namespace.metadata?.uid;
  if (!uid) throw new Error('namespace kube-system has no uid');
  return uid;
}
