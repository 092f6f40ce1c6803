/**
 * `provider.hostServiceAccountAccess` in the config file (what `tether validate` checks): off
 * unless enabled, an enabled one needs the host API server's address as the remote pods reach
 * it (an IP or a hostname, and a port), and each mistake is named by its field.
 */
import t from 'tap';
import { parseConfig } from '../../../src/config/index.js';
import { parseApiServerAddress } from '../../../src/providers/kubernetes/pods/hostAccess.js';

const problems = (extra: string): string[] => {
  const result = parseConfig(`nodes:\n  - name: vk\n    internalIP: 127.0.0.1\n    provider:\n      type: kubernetes\n      hostClusterId: home\n      remote: { kubeconfig: /x }\n${extra}`, 'f.yaml', { env: {} });
  return result.ok ? [] : [...result.problems];
};

void t.test('hostServiceAccountAccess: valid values load, mistakes name the field', async (t) => {
  t.same(problems(''), [], 'absent: off');
  t.same(problems('      hostServiceAccountAccess: { enabled: false }\n'), [], 'off needs no address');
  t.same(problems('      hostServiceAccountAccess: { enabled: true, apiServerAddress: "192.0.2.10:6443", serverName: kubernetes.default.svc, expirationSeconds: 3600 }\n'), []);
  t.same(problems('      hostServiceAccountAccess: { enabled: true, apiServerAddress: "[fd00::10]:443" }\n'), []);
  t.match(problems('      hostServiceAccountAccess: { enabled: true }\n'), [/nodes\[0\]\.provider\.hostServiceAccountAccess\.apiServerAddress: required when enabled/]);
  t.same(problems('      hostServiceAccountAccess: { enabled: true, apiServerAddress: "api.host.example:6443" }\n'), [], 'a hostname the remote pods resolve');
  t.match(problems('      hostServiceAccountAccess: { enabled: true, apiServerAddress: "api.host.example:6443", serverName: kubernetes.default.svc }\n'), [/hostServiceAccountAccess\.serverName: only with an <ip> apiServerAddress/]);
  t.match(problems('      hostServiceAccountAccess: { enabled: true, apiServerAddress: "Host_Example:6443" }\n'), [/hostServiceAccountAccess\.apiServerAddress: <ip>:<port> or <hostname>:<port>/]);
  t.match(problems('      hostServiceAccountAccess: { enabled: true, apiServerAddress: "https://api.host.example:6443" }\n'), [/hostServiceAccountAccess\.apiServerAddress: <ip>:<port> or <hostname>:<port>/]);
  t.match(problems('      hostServiceAccountAccess: { enabled: true, apiServerAddress: "192.0.2.10:6443", expirationSeconds: 60 }\n'), [/hostServiceAccountAccess\.expirationSeconds: .*at least 600/]);
  t.match(problems('      hostServiceAccountAccess: { enabled: yes please }\n'), [/hostServiceAccountAccess\.enabled/]);
  t.match(problems('      hostServiceAccountAccess: { enabled: true, apiServerAddress: "192.0.2.10:6443", audience: x }\n'), [/hostServiceAccountAccess.*audience/]);
});

void t.test('the address parses as an IP or a hostname, and a port, and nothing else', async (t) => {
  t.same(parseApiServerAddress('192.0.2.10:6443'), { ip: '192.0.2.10', port: 6443 });
  t.same(parseApiServerAddress('[fd00::10]:443'), { ip: 'fd00::10', port: 443 });
  t.same(parseApiServerAddress('api.host.example:6443'), { hostname: 'api.host.example', port: 6443 });
  t.same(parseApiServerAddress('kube:6443'), { hostname: 'kube', port: 6443 }, 'a single label');
  t.same(parseApiServerAddress('10-0-0-1.nip.io:443'), { hostname: '10-0-0-1.nip.io', port: 443 });
  for (const bad of ['192.0.2.10', '300.0.0.1:6443', '1.2.3:6443', '192.0.2.10:0', '192.0.2.10:70000', 'fd00::10:443', 'api.host.example', 'API.host:6443', 'a..b:6443', '-a.b:6443', 'a.b-:6443', 'https://a.b:6443', `${'a'.repeat(64)}.b:6443`]) t.equal(parseApiServerAddress(bad), undefined, bad);
});
