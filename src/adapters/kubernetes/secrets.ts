import { CoreV1Api } from '@kubernetes/client-node';
import { loadKubeConfig, type KubeconfigSource } from './kubeconfig.js';

/**
 * Reads one Secret's data (base64 values, as the API returns them) from the cluster `source`
 * points at: how a remote kubeconfig held in a host Secret is fetched at start-up.
 */
export async function readSecretData(source: KubeconfigSource, namespace: string, name: string): Promise<Record<string, string> | undefined> {
  const secret = await loadKubeConfig(source).makeApiClient(CoreV1Api).readNamespacedSecret({ namespace, name });
  return secret.data;
}
