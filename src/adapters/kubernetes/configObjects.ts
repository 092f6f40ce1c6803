/**
 * Reads ConfigMaps and Secrets from a cluster, as the data a pod's env and volumes see: what the
 * simulated provider's exec resolves against (providers/simulated/configSource.ts has the
 * interface this satisfies). Each read has a deadline that abandons the request itself, as the
 * caller's signal does; a missing object is undefined, any other failure rejects (KubeApiError).
 */
import { CoreV1Api, type ConfigurationOptions, type KubeConfig } from '@kubernetes/client-node';
import { boundedRead } from './boundedRead.js';
import { isKind } from '../../lib/errorKind.js';
import { definedOnly } from '../../lib/defaults.js';

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
  const read = async <T>(what: string, signal: AbortSignal | undefined, fn: (request: ConfigurationOptions) => Promise<T>): Promise<T | undefined> => {
    try {
      return await boundedRead(what, { timeoutMs, ...definedOnly({ signal }) }, fn);
    } catch (error) {
      if (isKind(error, 'not-found')) return undefined;
      throw error;
    }
  };
  return {
    async configMap(namespace, name, signal) {
      const cm = await read(`read configmap ${namespace}/${name}`, signal, (request) => core.readNamespacedConfigMap({ namespace, name }, request));
      return cm === undefined ? undefined : { ...decoded(cm.binaryData), ...cm.data };
    },
    async secret(namespace, name, signal) {
      const secret = await read(`read secret ${namespace}/${name}`, signal, (request) => core.readNamespacedSecret({ namespace, name }, request));
      return secret === undefined ? undefined : { ...decoded(secret.data), ...secret.stringData };
    },
  };
}
