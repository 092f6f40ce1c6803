/**
 * The ownership rule: a remote pod is Tether's only if it carries managed-by, this host cluster's
 * id and this virtual node, and lives in the namespace the mapping gives for its host namespace.
 * Marks anyone can copy are not enough.
 */
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { remoteNamespaceFor } from '../../../../src/providers/kubernetes/namespaceMapping.js';
import { ownershipOf, type OwnershipRule } from '../../../../src/providers/kubernetes/pods/ownership.js';
import { toRemotePod } from '../../../../src/providers/kubernetes/pods/podTranslation.js';

const host: Pod = { metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };

for (const strategy of ['suffix', 'same-name'] as const) {
  const rule = (hostClusterId: string, nodeName = 'vk-1'): OwnershipRule => ({ hostClusterId, nodeName, remoteNamespaceOf: (ns) => remoteNamespaceFor(ns, strategy, hostClusterId) });
  const made = toRemotePod(host, { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: remoteNamespaceFor('shop', strategy, 'home') });

  t.test(`${strategy}: a pod Tether made for this host and node is Tether's, with the host identity`, async (t) => {
    t.match(ownershipOf(made, rule('home')), { owned: true, identity: { namespace: 'shop', name: 'web-1', uid: 'uid-1' } });
  });

  t.test(`${strategy}: the same marks copied into another remote namespace are not Tether's`, async (t) => {
    const forged = { ...made, metadata: { ...made.metadata, namespace: 'intruder' } };
    t.match(ownershipOf(forged, rule('home')), { owned: false, why: /namespace intruder/ });
  });

  t.test(`${strategy}: another host cluster's pod, with the same node name, is not this host's`, async (t) => {
    t.match(ownershipOf(made, rule('away')), { owned: false });
  });

  t.test(`${strategy}: another virtual node's pod is not this node's`, async (t) => {
    t.match(ownershipOf(made, rule('home', 'vk-2')), { owned: false });
  });

  t.test(`${strategy}: without managed-by, or with a remote name that is not the host name, it is not Tether's`, async (t) => {
    const labels = { ...made.metadata?.labels };
    delete labels['tether.dev/managed-by'];
    t.match(ownershipOf({ ...made, metadata: { ...made.metadata, labels } }, rule('home')), { owned: false });
    t.match(ownershipOf({ ...made, metadata: { ...made.metadata, name: 'web-2' } }, rule('home')), { owned: false });
    const annotations = { ...made.metadata?.annotations };
    delete annotations['tether.dev/host-uid'];
    t.match(ownershipOf({ ...made, metadata: { ...made.metadata, annotations } }, rule('home')), { owned: false });
  });
}
