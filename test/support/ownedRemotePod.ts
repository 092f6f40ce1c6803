/**
 * A remote pod as Tether's Kubernetes provider leaves it: host cluster `home`, node `vk-1`, host
 * pod `shop/web-1` (uid `host-uid`) in remote namespace `shop-home`, Running. For mock remote API
 * servers in the provider's unit files.
 */
export function ownedRemotePod() {
  return {
    metadata: {
      name: 'web-1', namespace: 'shop-home', uid: 'remote-uid', resourceVersion: '7',
      labels: { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home', 'tether.dev/virtual-node': 'vk-1' },
      annotations: { 'tether.dev/host-namespace': 'shop', 'tether.dev/host-name': 'web-1', 'tether.dev/host-uid': 'host-uid' },
    },
    spec: { containers: [{ name: 'app', image: 'x' }] },
    status: { phase: 'Running' },
  };
}
