/**
 * The scheduling settings in the config file: runtimeClassMap, schedulingConstraints and the
 * patch's affinity load; each mistake is named by its field.
 */
import t from 'tap';
import { parseConfig } from '../../../src/config/index.js';

const problems = (extra: string): string[] => {
  const result = parseConfig(`nodes:\n  - name: vk\n    internalIP: 127.0.0.1\n    provider:\n      type: kubernetes\n      hostClusterId: home\n      remote: { kubeconfig: /x }\n${extra}`, 'f.yaml', { env: {} });
  return result.ok ? [] : [...result.problems];
};

void t.test('runtimeClassMap, schedulingConstraints and offloadingPatch.affinity: valid values load, mistakes name the field', async (t) => {
  t.same(problems('      runtimeClassMap: { gvisor: gvisor-remote }\n      schedulingConstraints: carry\n      offloadingPatch:\n        nodeSelector: { pool: a }\n        affinity:\n          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: disk, operator: In, values: [ssd] }] }] } }\n          podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { topologyKey: zone } }] }\n'), []);
  t.match(problems('      runtimeClassMap: { gvisor: Bad_Name }\n'), [/nodes\[0\]\.provider\.runtimeClassMap\.gvisor: .*RuntimeClass name/]);
  t.match(problems('      schedulingConstraints: maybe\n'), [/nodes\[0\]\.provider\.schedulingConstraints: expected drop or carry/]);
  t.match(problems('      offloadingPatch: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: disk, operator: Near }] }] } } } }\n'),
    [/nodes\[0\]\.provider\.offloadingPatch\.affinity\.nodeAffinity.*operator: expected In, NotIn, Exists, DoesNotExist, Gt or Lt/]);
});
