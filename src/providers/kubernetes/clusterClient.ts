/**
 * The provider reaches each cluster through the adapters' one connection type: the remote
 * cluster (where pods run) through a ClusterClient of its own, the host cluster (ConfigMaps,
 * Secrets, Services, EndpointSlices to reflect; Events) through the node's host ClusterClient,
 * the one the agent calls through, injected (options.ts `host`).
 */
export { ClusterClient, type ClusterClientOptions, type ClusterSource } from '../../adapters/kubernetes/clusterClient.js';
