/**
 * The KubeConfig every API client of Tether's is made from: client-node's, except that the clients
 * it makes send through {@link nodeHttpLibrary} rather than node-fetch (httpLibrary.ts says why).
 * Authentication is client-node's own, per request, unchanged.
 */
import type { ApiConstructor, ApiType, HttpLibrary } from '@kubernetes/client-node';
import { createConfiguration, KubeConfig, ServerConfiguration } from '@kubernetes/client-node';
import { nodeHttpLibrary } from './httpLibrary.js';

export class ClientKubeConfig extends KubeConfig {
  override makeApiClient<T extends ApiType>(apiClientType: ApiConstructor<T>): T {
    return apiClientOn(this, apiClientType, nodeHttpLibrary);
  }
}

/** An API client of `kc`'s current cluster, authenticated by `kc`, sending through `httpApi`. */
export function apiClientOn<T extends ApiType>(kc: KubeConfig, apiClientType: ApiConstructor<T>, httpApi: HttpLibrary): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('No active cluster!');
  return new apiClientType(createConfiguration({ baseServer: new ServerConfiguration(cluster.server, {}), authMethods: { default: kc }, httpApi }));
}

/** `kc` itself if it makes its clients so, else a copy of it that does (same clusters, users, contexts). */
export function asClientKubeConfig(kc: KubeConfig): ClientKubeConfig {
  return kc instanceof ClientKubeConfig ? kc : copyInto(new ClientKubeConfig(), kc);
}

/** Loads `from`'s clusters, users, contexts and current context into `into`. */
export function copyInto<T extends KubeConfig>(into: T, from: KubeConfig): T {
  into.loadFromOptions({ clusters: from.getClusters(), contexts: from.getContexts(), users: from.getUsers(), currentContext: from.getCurrentContext() });
  return into;
}
