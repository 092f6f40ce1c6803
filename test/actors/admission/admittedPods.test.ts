/**
 * The node's admitted set: pods asking one after the other are judged against those admitted
 * before; after a restart the pods Running on the host count as admitted; a pod gone from the
 * host frees its resources; no Node known yet means no answer (the pod asks again). The set
 * follows the node's pod watch event by event: an admission never walks the node's pods.
 */
import t from 'tap';
import fc from 'fast-check';
import type { Node, Pod } from '../../../src/adapters/kubernetes/model.js';
import type { PodWatchEvent } from '../../../src/adapters/kubernetes/watch.js';
import { admit, type AdmissionPolicy } from '../../../src/actors/admission/admit.js';
import { AdmittedPods } from '../../../src/actors/admission/admittedPods.js';
import { usageOf } from '../../../src/actors/admission/nodeUsage.js';

const node: Node = { metadata: { name: 'vnode-1', labels: { 'kubernetes.io/os': 'linux' } }, status: { allocatable: { cpu: '2', memory: '1Gi', pods: '10' } } };
const asking = (uid: string, cpu: string, phase = 'Pending'): Pod => ({
  metadata: { namespace: 'shop', name: uid, uid },
  spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'x', resources: { requests: { cpu } } }] },
  status: { phase },
});

const policy: AdmissionPolicy = { daemonSets: 'reject', features: new Set() };

/** A host watch cache of the node's pods that tells the ledger each change, as the virtual node does. */
class HostCache {
  readonly pods = new Map<string, Pod>();
  lists = 0;
  ledger?: AdmittedPods;

  constructor(pods: readonly Pod[] = []) {
    for (const p of pods) this.pods.set(p.metadata?.name ?? '', p);
  }

  open(known: { readonly node: Node | undefined } = { node }): AdmittedPods {
    this.ledger = new AdmittedPods({
      pods: () => {
        this.lists += 1;
        return [...this.pods.values()];
      },
      pod: (_namespace, name) => this.pods.get(name),
      node: () => known.node,
      policy,
    });
    return this.ledger;
  }

  upsert(pod: Pod): void {
    const type = this.pods.has(pod.metadata?.name ?? '') ? 'updated' : 'added';
    this.pods.set(pod.metadata?.name ?? '', pod);
    this.tell({ type, pod });
  }

  remove(name: string): void {
    const pod = this.pods.get(name);
    if (!pod) return;
    this.pods.delete(name);
    this.tell({ type: 'deleted', pod });
  }

  private tell(event: PodWatchEvent): void {
    this.ledger?.observe(event);
  }
}

function ledger(pods: Pod[], known: { readonly node: Node | undefined } = { node }): AdmittedPods {
  return new HostCache(pods).open(known);
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
  const host = new HostCache([asking('a', '2'), asking('c', '2')]);
  const admission = host.open();
  t.same(admission.admit(asking('a', '2')), { admit: true });
  t.match(admission.admit(asking('c', '2')), { admit: false, reason: 'OutOfcpu' }, 'a takes the node');
  host.remove('a');
  t.same(admission.admit(asking('c', '2')), { admit: true }, 'a deleted: c fits');
  host.upsert({ ...asking('c', '2'), status: { phase: 'Succeeded' } });
  host.upsert(asking('b', '2'));
  t.same(admission.admit(asking('b', '2')), { admit: true }, 'c terminal: b fits');
  t.equal(admission.size(), 1);
});

t.test('a pod the host no longer has is judged but not counted: nothing would ever forget it', async (t) => {
  const admission = ledger([]);
  t.same(admission.admit(asking('gone', '2')), { admit: true });
  t.equal(admission.size(), 0);
});

t.test('a pod updated on the host counts with its new requests', async (t) => {
  const host = new HostCache([asking('a', '1'), asking('b', '1500m')]);
  const admission = host.open();
  t.same(admission.admit(asking('a', '1')), { admit: true });
  host.upsert({ ...asking('a', '500m'), status: { phase: 'Running' } });
  t.same(admission.admit(asking('b', '1500m')), { admit: true }, 'judged against 500m, not 1');
});

t.test('an admission reads no list of the node\'s pods: the ledger follows the watch', async (t) => {
  const host = new HostCache(Array.from({ length: 50 }, (_, i) => asking(`p${i}`, '10m')));
  const admission = host.open({ node: { ...node, status: { allocatable: { cpu: '2', pods: '110' } } } });
  t.equal(host.lists, 1, 'the cache is listed once, when the ledger is made');
  for (let i = 0; i < 50; i++) t.same(admission.admit(asking(`p${i}`, '10m')), { admit: true });
  host.upsert(asking('late', '10m'));
  t.same(admission.admit(asking('late', '10m')), { admit: true });
  t.equal(host.lists, 1, 'and never again');
  t.equal(admission.size(), 51);
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

type Step =
  | { readonly op: 'upsert'; readonly name: string; readonly cpu: number; readonly phase: string }
  | { readonly op: 'remove' | 'admit' | 'recordRunning'; readonly name: string };

/** The kubelet's definition, counted from scratch: pods on the host, not terminal, admitted here or Running. */
function fromScratch(host: HostCache, admitted: ReadonlySet<string>, except: string): Pod[] {
  return [...host.pods.values()].filter((p) => {
    const uid = p.metadata?.uid ?? '';
    const phase = p.status?.phase;
    return uid !== except && phase !== 'Succeeded' && phase !== 'Failed' && (admitted.has(uid) || phase === 'Running');
  });
}

t.test('property: whatever the host does, each verdict is the one counted from scratch', async () => {
  const name = fc.constantFrom('a', 'b', 'c', 'd', 'e');
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ op: fc.constant('upsert' as const), name, cpu: fc.integer({ min: 0, max: 1500 }), phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed') }),
    fc.record({ op: fc.constantFrom('remove' as const, 'admit' as const, 'recordRunning' as const), name }),
  );
  const small: Node = { ...node, status: { allocatable: { cpu: '2', pods: '3' } } };
  fc.assert(
    fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const host = new HostCache();
      const admission = host.open({ node: small });
      const admitted = new Set<string>();
      // A name deleted and created again is a new pod: a new UID, as the API server gives it.
      const uids = new Map<string, number>();
      const uidOf = (n: string): string => `${n}-${uids.get(n) ?? 0}`;
      for (const s of steps) {
        const current = host.pods.get(s.name);
        if (s.op === 'upsert') host.upsert({ ...asking(uidOf(s.name), `${s.cpu}m`, s.phase), metadata: { namespace: 'shop', name: s.name, uid: uidOf(s.name) } });
        else if (s.op === 'remove') {
          if (current) admitted.delete(current.metadata?.uid ?? '');
          host.remove(s.name);
          uids.set(s.name, (uids.get(s.name) ?? 0) + 1);
        } else if (current && s.op === 'recordRunning') {
          admission.recordRunning(current);
          admitted.add(current.metadata?.uid ?? '');
        } else if (current) {
          const uid = current.metadata?.uid ?? '';
          const expected = admitted.has(uid) ? { admit: true } : admit(small, usageOf(fromScratch(host, admitted, uid)), current, policy);
          const got = admission.admit(current);
          if (JSON.stringify(got) !== JSON.stringify(expected)) return false;
          if (expected.admit) admitted.add(uid);
        }
        if (admission.size() !== fromScratch(host, admitted, '').length) return false;
      }
      return true;
    }),
  );
});
