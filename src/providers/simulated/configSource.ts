/**
 * Where the simulated provider reads the ConfigMaps and Secrets its pods name (env, envFrom,
 * volumes): the API server of the cluster whose pods it runs, through an adapter the app supplies
 * (adapters/kubernetes/configSourceClient.ts), or a map in tests. Read at exec time, so a command
 * sees the object's current content, as a real kubelet's volume refresh eventually would.
 */
export interface ConfigSource {
  /** The ConfigMap's data (and binaryData, decoded as UTF-8), or undefined if it does not exist. */
  configMap(namespace: string, name: string, signal?: AbortSignal): Promise<Readonly<Record<string, string>> | undefined>;
  /** The Secret's data, base64-decoded, or undefined if it does not exist. */
  secret(namespace: string, name: string, signal?: AbortSignal): Promise<Readonly<Record<string, string>> | undefined>;
}

/** A ConfigSource over fixed maps ("namespace/name" → data), for tests and demos. */
export function staticConfigSource(objects: {
  configMaps?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  secrets?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}): ConfigSource {
  return {
    configMap: async (namespace, name) => objects.configMaps?.[`${namespace}/${name}`],
    secret: async (namespace, name) => objects.secrets?.[`${namespace}/${name}`],
  };
}

/** No ConfigMaps or Secrets at all: every reference is missing. */
export const emptyConfigSource: ConfigSource = staticConfigSource({});
