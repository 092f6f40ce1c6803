/**
 * The Kubernetes provider: offloads a virtual node's pods to a remote cluster, with the
 * ConfigMaps and Secrets they reference, and reflects remote status and Events back. See
 * kubernetesProvider.ts for how the pieces fit, and docs/kubernetes-provider.md.
 *
 *   const provider = new KubernetesProvider({
 *     nodeName: 'vk-remote-1', hostClusterId: 'home',
 *     remote: { kind: 'file', path: '/etc/tether/remote.kubeconfig' },
 *     host: { kind: 'inCluster' },
 *     onRemoteEvent: (pod, type, reason, note) =>
 *       events.record({ kind: 'Pod', apiVersion: 'v1', ...pod }, type, reason, note, 'Offload'),
 *   });
 *   provider.notifyPods(onNotification);   // starts the remote pod informer
 *   ...
 *   await provider.stop();
 */
export { KubernetesProvider } from './kubernetesProvider.js';
export { kubernetesRegistration } from './registration.js';
export { kubernetesProviderSchema, type KubernetesProviderConfig } from './configSchema.js';
export type { KubernetesProviderOptions } from './options.js';
export type { ClusterSource } from '../../adapters/kubernetes/clusterClient.js';
export type { NamespaceStrategy } from './namespaceMapping.js';
export type { OffloadingPatch } from './pods/podTranslation.js';
export type { RemoteEventCallback } from './pods/remoteEvents.js';
export type { HostIdentity } from './pods/hostView.js';
export { remoteNamespaceFor } from './namespaceMapping.js';
export { toRemotePod } from './pods/podTranslation.js';
export { toHostPod } from './pods/hostView.js';
export { referencedObjects } from './configReflection/references.js';
export { remoteCapacity } from './node/capacity.js';
export * from './marks.js';
