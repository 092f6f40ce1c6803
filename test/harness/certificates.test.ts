import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClusterCredentials, leafExtensions, mintClientCertificate, renderTokenFile } from '../../src/harness/certificates.js';

const run = promisify(execFile);
const text = async (path: string): Promise<string> => (await run('openssl', ['x509', '-in', path, '-noout', '-text', '-nameopt', 'RFC2253'])).stdout;

void t.test('leaf extensions name usages and SANs', async (t) => {
  t.equal(leafExtensions(['serverAuth'], { ips: ['127.0.0.1', '10.213.0.1'], dns: ['localhost'] }),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' +
    'subjectAltName=IP:127.0.0.1,IP:10.213.0.1,DNS:localhost\n');
  t.notMatch(leafExtensions(['clientAuth'], { ips: [], dns: [] }), /subjectAltName/);
});

void t.test('the token file lists token, user, uid and quoted groups', async (t) => {
  t.equal(renderTokenFile([{ token: 'a', user: 'system:node:n1', groups: ['system:nodes'] }, { token: 'b', user: 'u', groups: [] }]),
    'a,system:node:n1,system:node:n1,"system:nodes"\nb,u,u,""\n');
});

void t.test('cluster credentials: a CA, a serving cert with the SANs, admin in system:masters, node identities', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tether-certs-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const creds = await createClusterCredentials(dir, { clusterName: 'unit', sans: { ips: ['127.0.0.1', '10.213.0.1'], dns: ['localhost'] } });
  const serving = await text(creds.serving.certPath);
  t.match(serving, /IP Address:127\.0\.0\.1, IP Address:10\.213\.0\.1, DNS:localhost/);
  t.match(serving, /TLS Web Server Authentication/);
  t.match(await text(creds.admin.certPath), /Subject: CN=tether-admin,O=system:masters/);
  await run('openssl', ['verify', '-CAfile', creds.ca.certPath, creds.serving.certPath, creds.admin.certPath]);
  t.match(await text(creds.frontProxyClient.certPath), /Subject: CN=front-proxy-client/);
  await run('openssl', ['verify', '-CAfile', creds.frontProxyCa.certPath, creds.frontProxyClient.certPath]);
  await t.rejects(run('openssl', ['verify', '-CAfile', creds.ca.certPath, creds.frontProxyClient.certPath]), 'the front proxy has a CA of its own');
  const node = await mintClientCertificate(creds.ca, dir, { user: 'system:node:n1', groups: ['system:nodes'] });
  t.match(await text(node.certPath), /Subject: CN=system:node:n1,O=system:nodes/);
  const tokens = await readFile(creds.tokenFilePath, 'utf8');
  t.match(tokens, new RegExp(`^${creds.adminToken},tether-admin-token,tether-admin-token,"system:masters"$`, 'm'));
  t.ok(creds.tokens.some((x) => x.user === 'system:node:tether-node-0' && tokens.includes(x.token)));
});
