/**
 * Reads ConfigMaps and Secrets from a cluster, as the data a pod's env and volumes see: what the
 * simulated provider's exec resolves against (providers/simulated/configSource.ts has the
 * interface this satisfies). Each read has a deadline; a missing object is undefined, any other
 * failure rejects (KubeApiError).
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { systemClock } from '../clock.js';
import { callWithDeadline } from '../../lib/callWithDeadline.js';
import { isApiErrorKind, translateErrors } from './errors.js';

type Data = Readonly<Record<string, string>>;

export interface ConfigObjectReader {
  configMap(namespace: string, name: string, signal?: AbortSignal): Promise<Data | undefined>;
  secret(namespace: string, name: string, signal?: AbortSignal): Promise<Data | undefined>;
}

function decoded(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

export function createConfigObjectReader(kubeConfig: KubeConfig, timeoutMs = 10_000): ConfigObjectReader {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const read = async <T>(what: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await callWithDeadline(systemClock, timeoutMs, signal, () => translateErrors(what, fn));
    } catch (error) {
      if (isApiErrorKind(error, 'notFound')) return undefined;
      throw error;
    }
  };
  return {
    async configMap(namespace, name, signal) {
      const cm = await read(`read configmap ${namespace}/${name}`, signal, () => core.readNamespacedConfigMap({ namespace, name }));
      return cm === undefined ? undefined : { ...decoded(cm.binaryData), ...cm.data };
    },
    async secret(namespace, name, signal) {
      const secret = await read(`read secret ${namespace}/${name}`, signal, () => core.readNamespacedSecret({ namespace, name }));
      return secret === undefined ? undefined : { ...decoded(secret.data), ...secret.stringData };
    },
  };
}
