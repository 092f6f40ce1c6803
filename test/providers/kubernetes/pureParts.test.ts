/**
 * The small pure parts of the Kubernetes provider: namespace mapping, label values, references
 * to ConfigMaps and Secrets, the reference index, reflected copies and quantities.
 */
import t from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { labelValue } from '../../../src/providers/kubernetes/marks.js';
import { fitDnsLabel, remoteNamespaceFor } from '../../../src/providers/kubernetes/namespaceMapping.js';
import { formatQuantity, parseQuantity } from '../../../src/lib/quantity.js';
import { contentDigest, isServiceAccountToken, remoteCopy } from '../../../src/providers/kubernetes/configReflection/reflectedObject.js';
import { ReferenceIndex } from '../../../src/providers/kubernetes/configReflection/referenceIndex.js';
import { referencedObjects } from '../../../src/providers/kubernetes/configReflection/references.js';

t.test('namespace mapping', async (t) => {
  t.equal(remoteNamespaceFor('shop', 'suffix', 'home'), 'shop-home');
  t.equal(remoteNamespaceFor('shop', 'same-name', 'home'), 'shop');
  const long = remoteNamespaceFor('a'.repeat(60), 'suffix', 'home-cluster');
  t.ok(long.length <= 63, 'fits a DNS label');
  t.not(long, remoteNamespaceFor('a'.repeat(61), 'suffix', 'home-cluster'), 'distinct names stay distinct');
  t.match(fitDnsLabel('Shop_Home'), /^shop-home-[0-9a-f]{8}$/, 'invalid characters are replaced, with a hash');
});

t.test('label values: valid ones as they are, long ones shortened stably', async (t) => {
  t.equal(labelValue('vk-1'), 'vk-1');
  const long = 'node.'.repeat(20) + 'x';
  t.ok(labelValue(long).length <= 63);
  t.equal(labelValue(long), labelValue(long));
});

function podReferencing(): Pod {
  return {
    metadata: { name: 'p', namespace: 'shop' },
    spec: {
      volumes: [
        { name: 'cfg', configMap: { name: 'app-config' } },
        { name: 'creds', secret: { secretName: 'db', optional: true } },
        { name: 'mixed', projected: { sources: [{ configMap: { name: 'projected-cm' } }, { secret: { name: 'projected-secret', optional: true } }] } },
        { name: 'kube-api-access-x', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }] } },
      ],
      initContainers: [{ name: 'init', image: 'i', envFrom: [{ secretRef: { name: 'init-env' } }] }],
      containers: [{
        name: 'app', image: 'a',
        env: [
          { name: 'DB', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
          { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'flags', key: 'mode', optional: true } } },
          { name: 'PLAIN', value: 'x' },
        ],
        envFrom: [{ configMapRef: { name: 'app-config' } }],
      }],
    },
  };
}

t.test('references: volumes, projected sources, env and envFrom; optional only if optional everywhere', async (t) => {
  t.same(referencedObjects(podReferencing()), [
    { kind: 'ConfigMap', name: 'app-config', optional: false, where: 'volume "cfg"' },
    { kind: 'Secret', name: 'db', optional: false, where: 'env "DB" of container "app"' },
    { kind: 'ConfigMap', name: 'projected-cm', optional: false, where: 'projected volume "mixed"' },
    { kind: 'Secret', name: 'projected-secret', optional: true, where: 'projected volume "mixed"' },
    { kind: 'Secret', name: 'init-env', optional: false, where: 'envFrom of container "init"' },
    { kind: 'ConfigMap', name: 'flags', optional: true, where: 'env "MODE" of container "app"' },
  ]);
  t.same(referencedObjects({ spec: { containers: [{ name: 'c' }] } }), [], 'none');
});

t.test('reference index: counts per pod, releases exactly what a pod held', async (t) => {
  const index = new ReferenceIndex();
  index.set('shop/a', 'shop', ['ConfigMap/x', 'Secret/y']);
  index.set('shop/b', 'shop', ['ConfigMap/x']);
  t.ok(index.isReferenced('shop', 'ConfigMap/x'));
  index.remove('shop/a');
  t.ok(index.isReferenced('shop', 'ConfigMap/x'), 'still held by b');
  t.notOk(index.isReferenced('shop', 'Secret/y'));
  t.same(index.namespaces(), ['shop']);
  index.remove('shop/b');
  t.same(index.namespaces(), []);
  index.remove('shop/b');
  t.same(index.keysIn('shop'), [], 'removing twice is harmless');
});

t.test('reflected copies: data kept, marks added, immutability and Tether keys dropped', async (t) => {
  const cm = remoteCopy('ConfigMap', {
    metadata: {
      name: 'app-config', namespace: 'shop', uid: 'u', resourceVersion: '9',
      labels: { app: 'web' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'me' },
    },
    data: { a: '1' }, binaryData: { b: 'AA==' }, immutable: true,
  }, 'shop-home', 'home');
  const { 'tether.dev/content-digest': mark, ...annotations } = cm.metadata?.annotations ?? {};
  t.same({ ...cm, metadata: { ...cm.metadata, annotations } }, {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: {
      name: 'app-config', namespace: 'shop-home',
      labels: { app: 'web', 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home' },
      annotations: { keep: 'me', 'tether.dev/host-namespace': 'shop' },
    },
    data: { a: '1' }, binaryData: { b: 'AA==' },
  });
  t.equal(mark, contentDigest({ ...cm, metadata: { ...cm.metadata, annotations } }), 'the content mark: the digest of the copy without it');
  const token = { metadata: { name: 's', namespace: 'shop' }, type: 'kubernetes.io/service-account-token', data: { t: 'eA==' } };
  t.ok(isServiceAccountToken('Secret', token), 'a ServiceAccount token is recognised');
  t.throws(() => remoteCopy('Secret', token, 'shop-home', 'home'), /ServiceAccount token: never copied/, 'and never copied');
  const tls = remoteCopy('Secret', { metadata: { name: 't', namespace: 'shop' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==' } }, 'shop-home', 'home');
  t.equal((tls as { type?: string }).type, 'kubernetes.io/tls', 'other types are kept');
  t.equal(contentDigest(cm), contentDigest(structuredClone(cm)), 'digest is stable');
  t.not(contentDigest(cm), contentDigest({ ...cm, data: { a: '2' } }), 'digest follows the data');
});

t.test('quantities', async (t) => {
  const table: [string, number | undefined][] = [
    ['250m', 0.25], ['2', 2], ['1.5', 1.5], ['128Mi', 128 * 2 ** 20], ['1Gi', 2 ** 30], ['1k', 1000], ['1e3', 1000],
    ['100n', 1e-7], ['abc', undefined], ['', undefined],
  ];
  for (const [text, value] of table) {
    const parsed = parseQuantity(text);
    if (value === undefined) t.equal(parsed, undefined, text);
    else t.ok(Math.abs((parsed ?? NaN) - value) < 1e-12, `${text} = ${value}`);
  }
  t.equal(formatQuantity(4), '4');
  t.equal(formatQuantity(3.75), '3750m');
  t.equal(formatQuantity(0.1 + 0.2), '300m', 'floating-point noise is rounded away');
  t.equal(formatQuantity(-1), '0');
  t.equal(formatQuantity(2 ** 40), String(2 ** 40));
});
