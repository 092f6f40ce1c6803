/**
 * What a virtual node refuses to send to its remote cluster (podPolicy.ts): host paths, privileged
 * containers and host ports by default under the baseline level, nothing extra under privileged,
 * each overridable; the remote's system namespaces never a same-name target.
 */
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { namespaceRefusal, podSecurityLabels, policyViolations } from '../../../../src/providers/kubernetes/pods/podPolicy.js';

const risky: Pod = {
  metadata: { name: 'p', namespace: 'shop' },
  spec: {
    volumes: [{ name: 'root', hostPath: { path: '/' } }, { name: 'data', emptyDir: {} }],
    initContainers: [{ name: 'init', image: 'i', securityContext: { privileged: true } }],
    containers: [{ name: 'web', image: 'w', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81 }] }],
  },
};
const plain: Pod = { metadata: { name: 'q', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'w', ports: [{ containerPort: 80 }], securityContext: { privileged: false } }] } };

void t.test('by default (baseline) host paths, privileged containers and host ports are refused, each named', async (t) => {
  t.same(policyViolations(risky, {}), [
    'spec.volumes[root].hostPath (/): host paths are refused',
    'spec.initContainers[init].securityContext.privileged: privileged containers are refused',
    'spec.containers[web].ports[80].hostPort (8080): host ports are refused',
  ]);
  t.same(policyViolations(plain, {}), [], 'an ordinary pod passes');
  t.equal(policyViolations(risky, { podSecurityLevel: 'restricted' }).length, 3);
});

void t.test('under the privileged level nothing is refused unless asked; each check can be set either way', async (t) => {
  t.same(policyViolations(risky, { podSecurityLevel: 'privileged' }), []);
  t.same(policyViolations(risky, { podSecurityLevel: 'privileged', refuseHostPath: true }), ['spec.volumes[root].hostPath (/): host paths are refused']);
  t.same(policyViolations(risky, { refuseHostPath: false, refusePrivileged: false }), ['spec.containers[web].ports[80].hostPort (8080): host ports are refused']);
});

void t.test('namespaces Tether creates carry the Pod Security level, baseline by default', async (t) => {
  t.same(podSecurityLabels(), { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'latest' });
  t.equal(podSecurityLabels('restricted')['pod-security.kubernetes.io/enforce'], 'restricted');
});

void t.test('same-name never maps onto the remote\'s system namespaces, nor default unless allowed', async (t) => {
  for (const ns of ['kube-system', 'kube-public', 'kube-node-lease']) {
    t.match(namespaceRefusal(ns, 'same-name', {}), /system namespace/, ns);
    t.match(namespaceRefusal(ns, 'same-name', { allowDefaultNamespace: true }), /system namespace/, `${ns}, whatever is allowed`);
  }
  t.match(namespaceRefusal('default', 'same-name', {}), /allowDefaultNamespace/);
  t.equal(namespaceRefusal('default', 'same-name', { allowDefaultNamespace: true }), undefined);
  t.equal(namespaceRefusal('shop', 'same-name', {}), undefined);
  t.equal(namespaceRefusal('kube-system', 'suffix', {}), undefined, 'suffix never lands on them (kube-system-<id>)');
});
