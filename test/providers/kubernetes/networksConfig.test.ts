/**
 * The `networks` block of a Kubernetes node in the config file: CIDR lists for either cluster's
 * pods and Services, and what an unknown pod CIDR means; each mistake is named by its field.
 */
import t from 'tap';
import { parseConfig } from '../../../src/config/index.js';

const file = (networks: string): string =>
  `nodes:\n  - name: vk\n    internalIP: 127.0.0.1\n    provider:\n      type: kubernetes\n      hostClusterId: home\n      remote: { kubeconfig: /x }\n      networks: ${networks}\n`;
const problems = (networks: string): string[] => {
  const result = parseConfig(file(networks), 'f.yaml', { env: {} });
  return result.ok ? [] : [...result.problems];
};

void t.test('networks: CIDR lists and the unknown rule load, mistakes name the field', async (t) => {
  t.same(problems('{ hostPodCIDRs: [10.244.0.0/16, "fd00:10::/64"], remotePodCIDRs: [10.88.0.0/16], hostServiceCIDRs: [10.96.0.0/12], remoteServiceCIDRs: [10.0.0.0/24], unknownCIDRs: refuse }'), []);
  t.match(problems('{ remotePodCIDRs: [10.88.0.0/33] }'), [/nodes\[0\]\.provider\.networks\.remotePodCIDRs\[0\]: .*a CIDR such as 10\.244\.0\.0\/16/]);
  t.match(problems('{ hostPodCIDRs: 10.244.0.0/16 }'), [/nodes\[0\]\.provider\.networks\.hostPodCIDRs: expected a list of CIDRs/]);
  t.match(problems('{ hostPodCIDRs: [] }'), [/nodes\[0\]\.provider\.networks\.hostPodCIDRs: .*at least one CIDR/]);
  t.match(problems('{ unknownCIDRs: ignore }'), [/nodes\[0\]\.provider\.networks\.unknownCIDRs: expected warn or refuse/]);
  t.match(problems('{ podCIDRs: [10.0.0.0/8] }'), [/nodes\[0\]\.provider\.networks.*podCIDRs/]);
});
