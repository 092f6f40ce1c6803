/**
 * The node's admitted set: pods asking one after the other are judged against those admitted
 * before; after a restart the pods Running on the host count as admitted; a pod gone from the
 * host frees its resources; no Node known yet means no answer (the pod asks again).
 */
import t from 'tap';
import type { Node, Pod } from '../../../src/adapters/kubernetes/model.js';
import { AdmittedPods } from '../../../src/actors/admission/admittedPods.js';

const node: Node = { metadata: { name: 'vnode-1', labels: { 'kubernetes.io/os': 'linux' } }, status: { allocatable: { cpu: '2', memory: '1Gi', pods: '10' } } };
const asking = (uid: string, cpu: string, phase = 'Pending'): Pod => ({
  metadata: { namespace: 'shop', name: uid, uid },
  spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'x', resources: { requests: { cpu } } }] },
  status: { phase },
});

function ledger(pods: Pod[], known: { readonly node: Node | undefined } = { node }): AdmittedPods {
  return new AdmittedPods({ pods: () => pods, node: () => known.node, policy: { daemonSets: 'reject', features: new Set() } });
}

t.test('two pods asking in turn: the second is judged against the first', async (t) => {
  const a = asking('a', '1500m');
  const b = asking('b', '1');
  const admission = ledger([a, b]);
  t.same(admission.admit(a), { admit: true });
  t.match(admission.admit(b), { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000" });
  t.same(admission.admit(a), { admit: true }, 'asking again (a restarted pod actor) admits again');
});

t.test('after a restart, pods Running on the host count as admitted, and one found at the provider is recorded as it is', async (t) => {
  const running = asking('r', '1500m', 'Running');
  const adopted = asking('p', '400m');
  const admission = ledger([running, adopted, asking('n', '500m')]);
  admission.recordRunning(adopted);
  t.equal(admission.size(), 2);
  t.match(admission.admit(asking('n', '500m')), { admit: false, reason: 'OutOfcpu' });
});

t.test('terminal pods and pods gone from the host free their resources', async (t) => {
  const pods = [asking('a', '2')];
  const admission = ledger(pods);
  t.same(admission.admit(pods[0] as Pod), { admit: true });
  pods.length = 0;
  pods.push({ ...asking('done', '2'), status: { phase: 'Succeeded' } }, asking('b', '2'));
  t.same(admission.admit(asking('b', '2')), { admit: true });
});

t.test('no Node known yet: no answer', async (t) => {
  t.equal(ledger([], { node: undefined }).admit(asking('a', '1')), undefined);
});

t.test('a rejected DaemonSet pod warns its DaemonSet once per node, naming the node affinity that keeps it off virtual nodes', async (t) => {
  const ofDaemonSet = (uid: string, ds: string): Pod => ({
    ...asking(uid, '10m'),
    metadata: { namespace: 'kube-system', name: uid, uid, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds, uid: `ds-${ds}`, controller: true }] },
  });
  const pods = [ofDaemonSet('p1', 'kube-proxy'), ofDaemonSet('p2', 'kube-proxy'), ofDaemonSet('p3', 'fluent-bit')];
  const admission = ledger(pods);
  const first = admission.admit(pods[0] as Pod);
  t.match(first, {
    admit: false,
    reason: 'DaemonSetPodNotAdmitted',
    ownerWarning: { kind: 'DaemonSet', apiVersion: 'apps/v1', namespace: 'kube-system', name: 'kube-proxy', uid: 'ds-kube-proxy', reason: 'DaemonSetPodNotAdmitted' },
  });
  const note = first && !first.admit ? first.ownerWarning?.note ?? '' : '';
  t.match(note, /virtual node vnode-1/, 'names the node');
  t.match(note, /spec\.template\.spec\.affinity\.nodeAffinity\.requiredDuringSchedulingIgnoredDuringExecution\.nodeSelectorTerms/, 'names where the affinity goes');
  t.match(note, /\{"key":"type","operator":"NotIn","values":\["virtual-kubelet"\]\}/, 'and the exact expression');
  t.ok(note.length <= 1024, 'fits an Event note');
  const second = admission.admit(pods[1] as Pod);
  t.match(second, { admit: false, reason: 'DaemonSetPodNotAdmitted' });
  t.equal(second && !second.admit ? second.ownerWarning : 'admitted', undefined, 'the same DaemonSet is not warned again');
  const other = admission.admit(pods[2] as Pod);
  t.match(other, { ownerWarning: { name: 'fluent-bit' } }, 'another DaemonSet is');
});
