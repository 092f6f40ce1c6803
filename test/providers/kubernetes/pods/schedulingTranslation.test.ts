/**
 * Scheduling and runtime classes out to the remote pod: the node's scheduling patch never loses
 * the pod's own terms and applies once however often it is applied (property), pod affinity is
 * carried with remote namespaces only when the node says so, a runtime class is mapped or refused,
 * and every dropped field the pod set is named.
 */
import t from 'tap';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { applySchedulingPatch, type OffloadingPatch, type SchedulingFields } from '../../../../src/providers/kubernetes/pods/schedulingPatch.js';
import { toRemotePod } from '../../../../src/providers/kubernetes/pods/podTranslation.js';
import { runtimeClassPlan } from '../../../../src/providers/kubernetes/pods/runtimeClasses.js';
import { droppedFields } from '../../../../src/providers/kubernetes/pods/droppedFields.js';

const key = fc.constantFrom('pool', 'zone', 'disk', 'gpu');
const value = fc.constantFrom('a', 'b', 'c');
const requirement = fc.record({ key, operator: fc.constantFrom('In', 'NotIn'), values: fc.array(value, { minLength: 1, maxLength: 2 }) });
const term = fc.record({ matchExpressions: fc.array(requirement, { minLength: 1, maxLength: 2 }) });
const toleration = fc.record({ key, operator: fc.constant('Equal'), value, effect: fc.constant('NoSchedule') });
const podTerm = fc.record({ topologyKey: fc.constantFrom('kubernetes.io/hostname', 'zone'), labelSelector: fc.record({ matchLabels: fc.dictionary(key, value, { maxKeys: 1 }) }) });
const fields = fc.record({
  nodeSelector: fc.dictionary(key, value, { maxKeys: 2 }),
  tolerations: fc.array(toleration, { maxLength: 2 }),
  affinity: fc.record({
    nodeAffinity: fc.record({ requiredDuringSchedulingIgnoredDuringExecution: fc.record({ nodeSelectorTerms: fc.array(term, { minLength: 1, maxLength: 2 }) }) }),
    podAntiAffinity: fc.record({ requiredDuringSchedulingIgnoredDuringExecution: fc.array(podTerm, { maxLength: 2 }) }),
  }, { requiredKeys: [] }),
}, { requiredKeys: [] });

const has = <T>(list: readonly T[] | undefined, item: T): boolean => (list ?? []).some((x) => isDeepStrictEqual(x, item));

t.test('the scheduling patch never loses the pod\'s own terms, and applying it twice is applying it once', async (t) => {
  // As parsed from YAML or JSON: plain objects (fast-check's dictionaries have no prototype).
  const plain = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
  fc.assert(fc.property(fields.map(plain), fields.map(plain), (own: SchedulingFields, patch: OffloadingPatch) => {
    const once = applySchedulingPatch(own, patch);
    const twice = applySchedulingPatch(once, patch);
    if (!isDeepStrictEqual(once, twice)) return false;
    for (const tol of own.tolerations ?? []) if (!has(once.tolerations, tol)) return false;
    for (const tol of patch.tolerations ?? []) if (!has(once.tolerations, tol)) return false;
    for (const pt of own.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
      if (!has(once.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, pt)) return false;
    }
    for (const [k, v] of Object.entries(patch.nodeSelector ?? {})) if (once.nodeSelector?.[k] !== v) return false;
    const out = once.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    // Every own term survives inside some output term, and every output term holds some patch term.
    for (const o of own.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
      if (!out.some((x) => (o.matchExpressions ?? []).every((r) => has(x.matchExpressions, r)))) return false;
    }
    for (const x of out) {
      const patchTerms = patch.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
      if (patchTerms && !patchTerms.some((p) => (p.matchExpressions ?? []).every((r) => has(x.matchExpressions, r)))) return false;
    }
    return true;
  }), { numRuns: 300 });
  t.pass('held for 300 pairs');
});

t.test('a patch that repeats a node affinity term applies once to a pod with none: the property\'s counterexample', async (t) => {
  const zoneB = { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] };
  const patch: OffloadingPatch = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [zoneB, zoneB] } } } };
  const once = applySchedulingPatch({}, patch);
  t.same(once.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [zoneB], 'the repeated term once');
  t.same(applySchedulingPatch(once, patch), once, 'applying it again changes nothing');
});

const ctx = { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: 'shop-home', remoteNamespaceOf: (ns: string) => `${ns}-home` };
const antiAffinity = {
  requiredDuringSchedulingIgnoredDuringExecution: [
    { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'db' } }, namespaces: ['shop', 'other'] },
    { topologyKey: 'zone', labelSelector: { matchLabels: { app: 'db' } }, namespaceSelector: { matchLabels: { team: 'x' } } },
    { topologyKey: 'zone', labelSelector: { matchLabels: { app: 'web' } }, namespaceSelector: {} },
  ],
};
const pod = (): Pod => ({
  metadata: { name: 'db-0', namespace: 'shop', uid: 'u' },
  spec: {
    containers: [{ name: 'c', image: 'i' }], priorityClassName: 'high', priority: 1000, runtimeClassName: 'gvisor',
    nodeSelector: { type: 'virtual-kubelet' }, affinity: { podAntiAffinity: antiAffinity }, readinessGates: [{ conditionType: 'x' }],
  },
});

t.test('pod anti-affinity and priority class: dropped by default, carried with remote namespaces under carry', async (t) => {
  const dropped = toRemotePod(pod(), ctx).spec!;
  t.equal(dropped.affinity, undefined);
  t.equal(dropped.priorityClassName, undefined);
  t.equal(dropped.runtimeClassName, undefined, 'no runtime class unless resolved for the remote');
  t.same(droppedFields(pod().spec, 'drop', ctx), ['spec.readinessGates', 'spec.priorityClassName', 'spec.affinity.podAntiAffinity']);

  const carried = toRemotePod(pod(), { ...ctx, schedulingConstraints: 'carry', runtimeClassName: 'gvisor-remote' }).spec!;
  t.equal(carried.priorityClassName, 'high');
  t.equal(carried.priority, undefined, 'the remote admission sets priority from its class');
  t.equal(carried.runtimeClassName, 'gvisor-remote');
  t.same(carried.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, [
    { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'db' } }, namespaces: ['shop-home', 'other-home'] },
    { topologyKey: 'zone', labelSelector: { matchLabels: { app: 'web' } }, namespaceSelector: { matchLabels: { 'tether.dev/host-cluster': 'home' } } },
  ], 'namespaces mapped; an empty selector is this host cluster\'s namespaces; a labelled selector cannot be translated');
  t.same(droppedFields(pod().spec, 'carry', ctx), ['spec.readinessGates', 'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].namespaceSelector']);
});

t.test('the node\'s patch lands on every remote pod beside the pod\'s carried terms; its own nodeSelector does not', async (t) => {
  const patch: OffloadingPatch = {
    nodeSelector: { pool: 'a' }, tolerations: [{ key: 'pool', operator: 'Equal', value: 'a', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }] } } },
  };
  const spec = toRemotePod(pod(), { ...ctx, schedulingConstraints: 'carry', offloadingPatch: patch }).spec!;
  t.same(spec.nodeSelector, { pool: 'a' });
  t.same(spec.tolerations, patch.tolerations);
  t.same(spec.affinity?.nodeAffinity, patch.affinity?.nodeAffinity);
  t.equal(spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length, 2);
});

t.test('runtime classes: mapped, unmapped, or the same name without a map', async (t) => {
  t.same(runtimeClassPlan(undefined, { gvisor: 'gvisor-remote' }), { kind: 'none' });
  t.same(runtimeClassPlan('gvisor', { gvisor: 'gvisor-remote' }), { kind: 'remote', host: 'gvisor', remote: 'gvisor-remote' });
  t.same(runtimeClassPlan('kata', { gvisor: 'gvisor-remote' }), { kind: 'unmapped', host: 'kata', mapped: ['gvisor'] });
  t.same(runtimeClassPlan('toString', {}), { kind: 'unmapped', host: 'toString', mapped: [] }, 'never a prototype key');
  t.same(runtimeClassPlan('kata', undefined), { kind: 'remote', host: 'kata', remote: 'kata' });
});
