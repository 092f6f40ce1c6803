/**
 * Kubelet admission before the provider is asked (issue 24, item 4): the checks, reasons and
 * messages of kubelet v1.36.3's predicate admit handler, for every provider alike.
 */
import t from 'tap';
import fc from 'fast-check';
import type { Node, Pod } from '../../../src/adapters/kubernetes/model.js';
import { admit, type AdmissionPolicy } from '../../../src/actors/admission/admit.js';
import { usageOf } from '../../../src/actors/admission/nodeUsage.js';
import { podRequests } from '../../../src/actors/admission/podRequests.js';

const node: Node = {
  metadata: { name: 'vnode-1', labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', zone: 'a', 'kubernetes.io/hostname': 'vnode-1' } },
  status: { allocatable: { cpu: '4', memory: '8Gi', pods: '3', 'ephemeral-storage': '10Gi', 'example.com/gpu': '1' } },
};
const policy: AdmissionPolicy = { daemonSets: 'reject', features: new Set() };
const none = usageOf([]);
let n = 0;
function pod(spec: Partial<NonNullable<Pod['spec']>> = {}, meta: Partial<NonNullable<Pod['metadata']>> = {}): Pod {
  n += 1;
  return { metadata: { namespace: 'shop', name: `p${n}`, uid: `u${n}`, ...meta }, spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'nginx' }], ...spec } };
}
const asking = (requests: Record<string, string>): Pod => pod({ containers: [{ name: 'app', image: 'nginx', resources: { requests } }] });

t.test('a pod that fits is admitted', async (t) => {
  t.same(admit(node, none, asking({ cpu: '1', memory: '1Gi' }), policy), { admit: true });
});

t.test('each check rejects with the kubelet reason and message', async (t) => {
  const cases: Array<[string, Pod, readonly Pod[], string, string]> = [
    ['spec.os windows', pod({ os: { name: 'windows' } }), [], 'PodOSNotSupported', "Failed to admit pod as the OS field doesn't match node OS"],
    ['os label windows', pod({}, { labels: { 'kubernetes.io/os': 'windows' } }), [], 'PodOSSelectorNodeLabelDoesNotMatch', "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label"],
    ['1000 CPUs', asking({ cpu: '1000' }), [], 'OutOfcpu', "Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: 4000"],
    ['memory used by others', asking({ memory: '5Gi' }), [asking({ memory: '4Gi' })], 'OutOfmemory', `Node didn't have enough resource: memory, requested: ${5 * 2 ** 30}, used: ${4 * 2 ** 30}, capacity: ${8 * 2 ** 30}`],
    ['ephemeral storage', asking({ 'ephemeral-storage': '11Gi' }), [], 'OutOfephemeral-storage', `Node didn't have enough resource: ephemeral-storage, requested: ${11 * 2 ** 30}, used: 0, capacity: ${10 * 2 ** 30}`],
    ['pods', pod(), [pod(), pod(), pod()], 'OutOfpods', "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3"],
    ['extended resource', asking({ 'example.com/gpu': '2' }), [], 'OutOfexample.com/gpu', "Node didn't have enough resource: example.com/gpu, requested: 2, used: 0, capacity: 1"],
    ['nodeSelector', pod({ nodeSelector: { zone: 'b' } }), [], 'NodeAffinity', "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"],
    [
      'required affinity',
      pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }] } } } }),
      [], 'NodeAffinity', "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
    ],
    ['nodeName', pod({ nodeName: 'other' }), [], 'NodeName', "Predicate NodeName failed: node(s) didn't match the requested node name"],
    [
      'host port',
      pod({ containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] }] }),
      [pod({ containers: [{ name: 'b', image: 'x', ports: [{ containerPort: 81, hostPort: 8080, hostIP: '10.0.0.1' }] }] })],
      'NodePorts', "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
    ],
    ['hostNetwork unsupported', pod({ hostNetwork: true }), [], 'UnsupportedPodFeature', "Failed to admit pod as hostNetwork is not supported by this node's provider"],
    [
      'DaemonSet pod',
      pod({ tolerations: [{ operator: 'Exists' }] }, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-proxy', uid: 'ds', controller: true }] }),
      [], 'DaemonSetPodNotAdmitted', 'Failed to admit pod of DaemonSet kube-proxy: this virtual node does not run DaemonSet pods (admission.daemonSets: reject)',
    ],
  ];
  for (const [name, p, others, reason, message] of cases) t.same(admit(node, usageOf(others), p, policy), { admit: false, reason, message }, name);
});

t.test('no Node known: InvalidNodeInfo, as the kubelet', async (t) => {
  t.same(admit(undefined, none, pod(), policy), { admit: false, reason: 'InvalidNodeInfo', message: 'Kubelet cannot get node info.' });
});

t.test('what the policy and the node allow is admitted', async (t) => {
  const ds = pod({}, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds', controller: true }] });
  t.same(admit(node, none, ds, { ...policy, daemonSets: 'admit' }), { admit: true }, 'DaemonSet pods with admit');
  t.same(admit(node, none, pod({ hostNetwork: true }), { ...policy, features: new Set(['hostNetwork']) }), { admit: true }, 'a declared feature');
  t.same(admit(node, none, asking({ 'other.io/thing': '5' }), policy), { admit: true }, 'an extended resource the node lacks is ignored');
  t.same(admit(node, none, pod({ os: { name: 'linux' }, nodeSelector: { zone: 'a' } }), policy), { admit: true }, 'matching os and selector');
  const fields = pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['vnode-1'] }] }] } } } });
  t.same(admit(node, none, fields, policy), { admit: true }, 'matchFields on the node name');
  const udp = pod({ containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80, hostPort: 8080, protocol: 'UDP' }] }] });
  t.same(admit(node, usageOf([pod({ containers: [{ name: 'b', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] }] })]), udp, policy), { admit: true }, 'another protocol');
});

t.test('effective requests: max(containers + sidecars, largest init step) + overhead', async (t) => {
  const p = pod({
    initContainers: [
      { name: 'big-init', image: 'x', resources: { requests: { cpu: '3' } } },
      { name: 'sidecar', image: 'x', restartPolicy: 'Always', resources: { requests: { cpu: '500m', memory: '1Mi' } } },
      { name: 'after-sidecar', image: 'x', resources: { requests: { cpu: '2' } } },
    ],
    containers: [{ name: 'app', image: 'x', resources: { requests: { cpu: '1' }, limits: { memory: '2Mi' } } }],
    overhead: { cpu: '100m' },
  });
  t.same(podRequests(p), { cpu: 3100, memory: 3 * 2 ** 20 });
});

t.test('property: admitting pods one by one never exceeds the allocatable', async () => {
  fc.assert(
    fc.property(fc.array(fc.record({ cpu: fc.integer({ min: 0, max: 3000 }), mem: fc.integer({ min: 0, max: 4096 }) }), { maxLength: 12 }), (asks) => {
      const big: Node = { ...node, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' } } };
      const running: Pod[] = [];
      for (const a of asks) {
        const p = asking({ cpu: `${a.cpu}m`, memory: `${a.mem}Mi` });
        if (admit(big, usageOf(running), p, policy).admit) running.push(p);
      }
      const cpu = running.reduce((sum, p) => sum + (podRequests(p)['cpu'] ?? 0), 0);
      const mem = running.reduce((sum, p) => sum + (podRequests(p)['memory'] ?? 0), 0);
      return running.length <= 10 && cpu <= 4000 && mem <= 8 * 2 ** 30;
    }),
  );
});

t.test('property: a rejection always carries a kubelet-style reason and a message', async () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom('linux', 'windows', undefined), (milli, os) => {
      const p = pod({ ...(os ? { os: { name: os } } : {}), containers: [{ name: 'a', image: 'x', resources: { requests: { cpu: `${milli}m` } } }] });
      const v = admit(node, none, p, policy);
      return v.admit ? milli <= 4000 && os !== 'windows' : v.reason.length > 0 && v.message.length > 0;
    }),
  );
});

void t.test('a pod updated on the host is a new object, and counts with its new requests', async (t) => {
  const before = asking({ cpu: '1' });
  t.same(podRequests(before), { cpu: 1000 });
  t.equal(podRequests(before), podRequests(before), 'the same pod object: computed once');
  const resized = { ...before, spec: { ...before.spec, containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '2' } } }] } };
  t.same(podRequests(resized), { cpu: 2000 });
  t.same(podRequests(before), { cpu: 1000 }, 'the old object keeps its own');
});
