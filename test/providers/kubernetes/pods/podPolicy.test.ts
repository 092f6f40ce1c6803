/**
 * What a virtual node refuses to send to its remote cluster (podPolicy.ts): host paths, privileged
 * containers and host ports by default under the baseline level, nothing extra under privileged,
 * each overridable; the remote's system namespaces never a same-name target.
 */
import fc from 'fast-check';
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { formatProblem, type FieldPath } from '../../../../src/lib/fieldProblem.js';
import { namespaceRefusal, podSecurityLabels, policyViolations as problemsOf, type PodPolicy } from '../../../../src/providers/kubernetes/pods/podPolicy.js';

/** The problems as the refusal shows them. */
const policyViolations = (pod: Pod, policy: PodPolicy): string[] => problemsOf(pod, policy).map(formatProblem);

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

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const container = fc.record({
  name, image: fc.constant('i'),
  securityContext: fc.record({ privileged: fc.boolean() }),
  ports: fc.array(fc.record({ containerPort: fc.integer({ min: 1, max: 65535 }), hostPort: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }) }), { maxLength: 3 }),
});
const anyPod = fc.record({
  volumes: fc.array(fc.record({ name, hostPath: fc.option(fc.record({ path: fc.string({ maxLength: 10 }) }), { nil: undefined }) }), { maxLength: 3 }),
  initContainers: fc.array(container, { maxLength: 2 }),
  containers: fc.array(container, { minLength: 1, maxLength: 3 }),
}).map((spec): Pod => ({ metadata: { name: 'p', namespace: 'shop' }, spec }));

void t.test('every refusal names a field under spec that holds a refused value (property)', async () => {
  const at = (pod: Pod, path: FieldPath): unknown => {
    let here: unknown = pod;
    for (const step of path) {
      if (typeof step !== 'object') here = (here as Record<string | number, unknown>)[step];
      else here = (here as Array<{ name?: string; containerPort?: number }>).find((e) => (e.name ?? String(e.containerPort)) === step.key);
    }
    return here;
  };
  fc.assert(fc.property(anyPod, (pod) => {
    const refused = problemsOf(pod, {});
    const expected = (pod.spec?.volumes ?? []).filter((v) => v.hostPath).length
      + [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].reduce((n, c) => n + (c.securityContext?.privileged ? 1 : 0) + (c.ports ?? []).filter((p) => p.hostPort).length, 0);
    return refused.length === expected && refused.every((p) => {
      const value = at(pod, p.path);
      return p.path[0] === 'spec' && formatProblem(p).startsWith('spec.') && value !== undefined && value !== false && value !== 0;
    });
  }));
});
