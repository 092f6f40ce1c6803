/**
 * What a virtual node refuses to send to its remote cluster (podPolicy.ts): the whole Pod Security
 * level, check by check against pod-security-admission v0.36.3's definitions (`policy/check_*.go`),
 * allowed and forbidden values, in init, regular and ephemeral containers, with upstream's wording;
 * the three overrides; the remote's system namespaces never a same-name target; and a property:
 * the policy never throws, whatever shape the pod has.
 */
import fc from 'fast-check';
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { adoptableNamespaces, namespaceRefusal, podSecurityLabels, policyViolations, type PodPolicy } from '../../../../src/providers/kubernetes/pods/podPolicy.js';
import { formatViolation } from '../../../../src/providers/kubernetes/pods/podSecurityChecks.js';
import { formatPath } from '../../../../src/lib/fieldProblem.js';

/** The refusals as the host pod shows them. */
const refusals = (pod: Pod, policy: PodPolicy = {}): string[] => policyViolations(pod, policy).map(formatViolation);
const fieldsOf = (pod: Pod, policy: PodPolicy = {}): string[] => policyViolations(pod, policy).flatMap((v) => v.fields.map(formatPath));

type Spec = NonNullable<Pod['spec']>;
type SC = NonNullable<Spec['containers'][number]['securityContext']>;
const pod = (spec: Partial<Spec>, annotations?: Record<string, string>): Pod => ({ metadata: { name: 'p', namespace: 'shop', ...(annotations ? { annotations } : {}) }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } });
const withSC = (sc: SC): Pod => pod({ containers: [{ name: 'c', image: 'i', securityContext: sc }] });
/** A restricted-clean container, to vary one field at a time. */
const clean: SC = { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } };
const restricted: PodPolicy = { podSecurityLevel: 'restricted' };

interface Row { readonly name: string; readonly pod: Pod; readonly policy?: PodPolicy; readonly refused: readonly string[] }

function table(title: string, rows: readonly Row[]): void {
  void t.test(title, async (t) => {
    for (const row of rows) t.same(refusals(row.pod, row.policy), row.refused, row.name);
  });
}

table('baseline: windowsOptions.hostProcess', [
  { name: 'unset', pod: withSC({}), refused: [] },
  { name: 'false', pod: withSC({ windowsOptions: { hostProcess: false } }), refused: [] },
  { name: 'container true', pod: withSC({ windowsOptions: { hostProcess: true } }), refused: ['hostProcess (container "c" must not set securityContext.windowsOptions.hostProcess=true)'] },
  { name: 'pod true', pod: pod({ securityContext: { windowsOptions: { hostProcess: true } } }), refused: ['hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)'] },
]);

table('baseline: host namespaces', [
  { name: 'false', pod: pod({ hostNetwork: false, hostPID: false }), refused: [] },
  { name: 'all three', pod: pod({ hostNetwork: true, hostPID: true, hostIPC: true }), refused: ['host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)'] },
]);

table('baseline: privileged', [
  { name: 'false', pod: withSC({ privileged: false }), refused: [] },
  { name: 'true in an init container', pod: pod({ initContainers: [{ name: 'init', image: 'i', securityContext: { privileged: true } }] }), refused: ['privileged (container "init" must not set securityContext.privileged=true)'] },
  { name: 'allowed under baseline with refusePrivileged: false', pod: withSC({ privileged: true }), policy: { refusePrivileged: false }, refused: [] },
]);

table('baseline: capabilities (only the default set may be added)', [
  { name: 'the default set', pod: withSC({ capabilities: { add: ['CHOWN', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'KILL'] } }), refused: [] },
  { name: 'drop anything', pod: withSC({ capabilities: { drop: ['ALL'] } }), refused: [] },
  { name: 'SYS_ADMIN', pod: withSC({ capabilities: { add: ['SYS_ADMIN'] } }), refused: ['non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)'] },
  { name: 'NET_RAW and SYS_ADMIN in two containers, an ephemeral one too', pod: pod({
    containers: [{ name: 'a', image: 'i', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }],
    ephemeralContainers: [{ name: 'debug', image: 'i', securityContext: { capabilities: { add: ['NET_RAW'] } } }],
  }), refused: ['non-default capabilities (containers "a", "debug" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)'] },
]);

table('baseline: hostPath volumes', [
  { name: 'emptyDir', pod: pod({ volumes: [{ name: 'd', emptyDir: {} }] }), refused: [] },
  { name: 'hostPath', pod: pod({ volumes: [{ name: 'root', hostPath: { path: '/' } }] }), refused: ['hostPath volumes (volume "root")'] },
  { name: 'refuseHostPath: false', pod: pod({ volumes: [{ name: 'root', hostPath: { path: '/' } }] }), policy: { refuseHostPath: false }, refused: [] },
]);

table('baseline: host ports', [
  { name: 'none or 0', pod: pod({ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 0 }] }] }), refused: [] },
  { name: '8080', pod: pod({ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, hostPort: 8080 }] }] }), refused: ['hostPort (container "c" uses hostPort 8080)'] },
  { name: 'refuseHostPorts: false', pod: pod({ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, hostPort: 8080 }] }] }), policy: { refuseHostPorts: false }, refused: [] },
]);

table('baseline: AppArmor', [
  { name: 'RuntimeDefault and Localhost', pod: pod({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'c', image: 'i', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'x' } } }] }), refused: [] },
  { name: 'Unconfined on the pod', pod: pod({ securityContext: { appArmorProfile: { type: 'Unconfined' } } }), refused: ['forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")'] },
  { name: 'allowed annotations', pod: pod({}, { 'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default', 'container.apparmor.security.beta.kubernetes.io/d': 'localhost/p' }), refused: [] },
  { name: 'unconfined annotation', pod: pod({}, { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' }), refused: ['forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/c=\\"unconfined\\"")'] },
]);

table('baseline: SELinux', [
  { name: 'allowed types, level', pod: withSC({ seLinuxOptions: { type: 'container_engine_t', level: 's0:c1' } }), refused: [] },
  { name: 'spc_t, a user and a role', pod: pod({ securityContext: { seLinuxOptions: { type: 'spc_t', user: 'u', role: 'r' } } }), refused: ['seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)'] },
]);

table('baseline: /proc mount type', [
  { name: 'Default', pod: withSC({ procMount: 'Default' }), refused: [] },
  { name: 'Unmasked', pod: withSC({ procMount: 'Unmasked' }), refused: ['procMount (container "c" must not set securityContext.procMount to "Unmasked")'] },
  { name: 'Unmasked in a user namespace', pod: pod({ hostUsers: false, containers: [{ name: 'c', image: 'i', securityContext: { procMount: 'Unmasked' } }] }), refused: [] },
]);

table('baseline: seccomp', [
  { name: 'RuntimeDefault, Localhost, unset', pod: pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'c', image: 'i', securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p' } } }, { name: 'd', image: 'i' }] }), refused: [] },
  { name: 'Unconfined', pod: withSC({ seccompProfile: { type: 'Unconfined' } }), refused: ['seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")'] },
]);

table('baseline: sysctls (the safe list only)', [
  { name: 'safe ones', pod: pod({ securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '4096' }, { name: 'kernel.shm_rmid_forced', value: '1' }] } }), refused: [] },
  { name: 'kernel.msgmax', pod: pod({ securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } }), refused: ['forbidden sysctls (kernel.msgmax)'] },
]);

table('baseline: probe and lifecycle hosts', [
  { name: 'no host', pod: pod({ containers: [{ name: 'c', image: 'i', livenessProbe: { httpGet: { port: 80 } } }] }), refused: [] },
  { name: 'a host', pod: pod({ containers: [{ name: 'c', image: 'i', readinessProbe: { tcpSocket: { port: 80, host: '10.0.0.1' } } }] }), refused: ['probe or lifecycle host (container "c" uses probe or lifecycle host "10.0.0.1")'] },
]);

table('restricted: volume types', [
  { name: 'allowed sources', pod: withSCVolumes([{ name: 'a', configMap: { name: 'x' } }, { name: 'b', projected: { sources: [] } }, { name: 'c', persistentVolumeClaim: { claimName: 'x' } }]), policy: restricted, refused: [] },
  { name: 'nfs and hostPath', pod: withSCVolumes([{ name: 'n', nfs: { server: 's', path: '/' } }, { name: 'h', hostPath: { path: '/' } }]), policy: restricted, refused: ['restricted volume types (volumes "n", "h" use restricted volume types "hostPath", "nfs")'] },
]);

table('restricted: privilege escalation, runAsNonRoot, runAsUser', [
  { name: 'the clean container', pod: withSC(clean), policy: restricted, refused: [] },
  { name: 'allowPrivilegeEscalation unset', pod: withSC({ ...clean, allowPrivilegeEscalation: undefined }), policy: restricted, refused: ['allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)'] },
  { name: 'runAsNonRoot unset', pod: withSC({ ...clean, runAsNonRoot: undefined }), policy: restricted, refused: ['runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true)'] },
  { name: 'runAsNonRoot false', pod: withSC({ ...clean, runAsNonRoot: false }), policy: restricted, refused: ['runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false)'] },
  { name: 'runAsUser 0', pod: withSC({ ...clean, runAsUser: 0 }), policy: restricted, refused: ['runAsUser=0 (container "c" must not set runAsUser=0)'] },
  { name: 'runAsUser 0 in a user namespace', pod: pod({ hostUsers: false, containers: [{ name: 'c', image: 'i', securityContext: { ...clean, runAsUser: 0, runAsNonRoot: false } }] }), policy: restricted, refused: [] },
]);

table('restricted: seccomp required, capabilities drop ALL, add only NET_BIND_SERVICE', [
  { name: 'seccomp unset', pod: withSC({ ...clean, seccompProfile: undefined }), policy: restricted, refused: ['seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'] },
  { name: 'seccomp on the pod', pod: pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'c', image: 'i', securityContext: { ...clean, seccompProfile: undefined } }] }), policy: restricted, refused: [] },
  { name: 'NET_BIND_SERVICE', pod: withSC({ ...clean, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } }), policy: restricted, refused: [] },
  { name: 'no drop, CHOWN added', pod: withSC({ ...clean, capabilities: { add: ['CHOWN'] } }), policy: restricted, refused: ['unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]; container "c" must not include "CHOWN" in securityContext.capabilities.add)'] },
  { name: 'windows pods are exempt from the Linux-only checks', pod: pod({ os: { name: 'windows' }, containers: [{ name: 'c', image: 'i', securityContext: { runAsNonRoot: true } }] }), policy: restricted, refused: [] },
]);

function withSCVolumes(volumes: Spec['volumes']): Pod {
  return pod({ volumes, containers: [{ name: 'c', image: 'i', securityContext: clean }] });
}

void t.test('under privileged nothing is refused unless asked; the overrides turn one check on', async (t) => {
  const risky = pod({ volumes: [{ name: 'root', hostPath: { path: '/' } }], containers: [{ name: 'c', image: 'i', securityContext: { privileged: true, capabilities: { add: ['SYS_ADMIN'] } } }] });
  t.same(refusals(risky, { podSecurityLevel: 'privileged' }), []);
  t.same(refusals(risky, { podSecurityLevel: 'privileged', refuseHostPath: true }), ['hostPath volumes (volume "root")']);
  t.equal(refusals(risky).length, 3, 'baseline: privileged, capabilities, hostPath');
});

void t.test('each violation names its fields', async (t) => {
  t.same(fieldsOf(withSC({ capabilities: { add: ['SYS_ADMIN'] }, seccompProfile: { type: 'Unconfined' } })), [
    'spec.containers[c].securityContext.capabilities.add',
    'spec.containers[c].securityContext.seccompProfile.type',
  ]);
  t.same(fieldsOf(pod({ hostPID: true, volumes: [{ name: 'root', hostPath: { path: '/' } }] })), ['spec.hostPID', 'spec.volumes[root].hostPath']);
});

void t.test('namespaces Tether creates carry the Pod Security level, baseline by default; allowDefaultNamespace adopts default', async (t) => {
  t.same(podSecurityLabels(), { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'latest' });
  t.equal(podSecurityLabels('restricted')['pod-security.kubernetes.io/enforce'], 'restricted');
  t.same([...adoptableNamespaces({ adoptNamespaces: ['team-a'], allowDefaultNamespace: true })], ['team-a', 'default']);
  t.same([...adoptableNamespaces({})], []);
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

/** Any JSON-ish value where a field is expected: the policy must judge it, never throw. */
const anything = fc.oneof(fc.anything(), fc.constant(undefined), fc.constant(null));
const field = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof(valid, anything);
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/);
const container = fc.record({
  name: field(name), image: fc.constant('i'),
  ports: field(fc.array(fc.record({ containerPort: field(fc.integer()), hostPort: field(fc.integer()) }))),
  livenessProbe: field(fc.record({ httpGet: field(fc.record({ host: field(fc.string()) })) })),
  lifecycle: field(fc.record({ preStop: field(fc.record({ tcpSocket: field(fc.record({ host: field(fc.string()) })) })) })),
  securityContext: field(fc.record({
    privileged: field(fc.boolean()), procMount: field(fc.string()), runAsUser: field(fc.integer()), runAsNonRoot: field(fc.boolean()),
    allowPrivilegeEscalation: field(fc.boolean()), capabilities: field(fc.record({ add: field(fc.array(field(fc.string()))), drop: field(fc.array(field(fc.string()))) })),
    seccompProfile: field(fc.record({ type: field(fc.string()) })), appArmorProfile: field(fc.record({ type: field(fc.string()) })),
    seLinuxOptions: field(fc.record({ type: field(fc.string()), user: field(fc.string()), role: field(fc.string()) })),
    windowsOptions: field(fc.record({ hostProcess: field(fc.boolean()) })),
  }, { requiredKeys: [] })),
}, { requiredKeys: [] });
const anyPod = fc.record({
  metadata: field(fc.record({ annotations: field(fc.dictionary(fc.string(), field(fc.string()))) })),
  spec: field(fc.record({
    hostNetwork: field(fc.boolean()), hostUsers: field(fc.boolean()), os: field(fc.record({ name: field(fc.string()) })),
    securityContext: field(fc.record({ sysctls: field(fc.array(field(fc.record({ name: field(fc.string()) })))), seccompProfile: field(fc.record({ type: field(fc.string()) })) }, { requiredKeys: [] })),
    volumes: field(fc.array(field(fc.record({ name: field(name), hostPath: field(fc.record({ path: fc.string() })), nfs: field(fc.object()) }, { requiredKeys: [] })))),
    initContainers: field(fc.array(field(container))), containers: field(fc.array(field(container))), ephemeralContainers: field(fc.array(field(container))),
  }, { requiredKeys: [] })),
}, { requiredKeys: [] });

void t.test('the policy never throws, whatever the pod holds, at every level (property)', async (t) => {
  fc.assert(fc.property(anyPod, fc.constantFrom<PodPolicy['podSecurityLevel']>('privileged', 'baseline', 'restricted'), (p, level) => {
    const found = policyViolations(p as Pod, { podSecurityLevel: level });
    return found.every((v) => typeof formatViolation(v) === 'string' && v.fields.length > 0);
  }), { numRuns: 500 });
  t.pass('no throw');
});
