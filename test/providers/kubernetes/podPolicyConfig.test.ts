/**
 * The pod policy's namespace and token settings in the config file: `adoptNamespaces` takes remote
 * namespace names and never a system namespace, `projectedServiceAccountTokens` is refuse or drop;
 * each mistake is named by its field.
 */
import t from 'tap';
import { parseConfig } from '../../../src/config/index.js';

const file = (podPolicy: string): string =>
  `nodes:\n  - name: vk\n    internalIP: 127.0.0.1\n    provider:\n      type: kubernetes\n      hostClusterId: home\n      remote: { kubeconfig: /x }\n      podPolicy: ${podPolicy}\n`;
const problems = (podPolicy: string): string[] => {
  const result = parseConfig(file(podPolicy), 'f.yaml', { env: {} });
  return result.ok ? [] : [...result.problems];
};

void t.test('adoptNamespaces and projectedServiceAccountTokens: valid values load, mistakes name the field', async (t) => {
  t.same(problems('{ adoptNamespaces: [team-a, shop-home], projectedServiceAccountTokens: drop }'), []);
  t.match(problems('{ adoptNamespaces: [kube-system] }'), [/nodes\[0\]\.provider\.podPolicy\.adoptNamespaces\[0\]: .*not a system namespace/]);
  t.match(problems('{ adoptNamespaces: [Team_A] }'), [/nodes\[0\]\.provider\.podPolicy\.adoptNamespaces\[0\]: .*a namespace name \(a DNS label/]);
  t.match(problems('{ adoptNamespaces: team-a }'), [/nodes\[0\]\.provider\.podPolicy\.adoptNamespaces: expected a list of remote namespace names/]);
  t.match(problems('{ projectedServiceAccountTokens: keep }'), [/nodes\[0\]\.provider\.podPolicy\.projectedServiceAccountTokens: expected refuse or drop/]);
});
