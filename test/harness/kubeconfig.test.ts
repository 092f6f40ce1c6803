import t from 'tap';
import { KubeConfig } from '@kubernetes/client-node';
import { renderKubeconfig } from '../../src/harness/kubeconfig.js';

const caPem = '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n';

void t.test('a certificate kubeconfig embeds CA, certificate and key, and loads in client-node', async (t) => {
  const text = renderKubeconfig({
    name: 'host', server: 'https://127.0.0.1:6443', caPem,
    user: { kind: 'certificate', certPem: 'CERT', keyPem: 'KEY' },
  });
  const config = new KubeConfig();
  config.loadFromString(text);
  t.equal(config.getCurrentContext(), 'host');
  t.equal(config.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
  t.equal(config.getCurrentCluster()?.caData, Buffer.from(caPem).toString('base64'));
  t.equal(config.getCurrentUser()?.certData, Buffer.from('CERT').toString('base64'));
  t.equal(config.getCurrentUser()?.keyData, Buffer.from('KEY').toString('base64'));
});

void t.test('a token kubeconfig carries the token and an optional default namespace', async (t) => {
  const text = renderKubeconfig({ name: 'remote', server: 'https://10.0.0.1:443', caPem, user: { kind: 'token', token: 'abc' }, namespace: 'ns1' });
  const config = new KubeConfig();
  config.loadFromString(text);
  t.equal(config.getCurrentUser()?.token, 'abc');
  t.equal(config.getContextObject('remote')?.namespace, 'ns1');
});
