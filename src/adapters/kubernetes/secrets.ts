import { CoreV1Api } from '@kubernetes/client-node';
import { boundedRead, type BoundedReadOptions } from './boundedRead.js';
import { loadKubeConfig, type KubeconfigSource } from './kubeconfig.js';

/**
 * Reads one Secret's data (base64 values, as the API returns them) from the cluster `source`
 * points at: how a remote kubeconfig held in a host Secret is fetched at start-up. The read has
 * a deadline (default 10 s) that abandons the request itself.
 */
export async function readSecretData(
  source: KubeconfigSource, namespace: string, name: string, options: BoundedReadOptions = {},
): Promise<Record<string, string> | undefined> {
  const core = loadKubeConfig(source).makeApiClient(CoreV1Api);
  const secret = await boundedRead(`get secret ${namespace}/${name}`, options, (request) => core.readNamespacedSecret({ namespace, name }, request));
  return secret.data;
}
