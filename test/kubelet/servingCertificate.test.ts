/**
 * The kubelet API's self-signed certificate, made in-process: valid for the node's name and
 * addresses, usable by a TLS server, and for any node name Kubernetes accepts (a CN has at most 64
 * characters; names of 58+ used to overflow `<name>@tether`).
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { commonName, MAX_COMMON_NAME, selfSignedCertificate, subjectAltNames } from '../../src/kubelet/servingCertificate.js';

void t.test('the certificate is for the node name and every address, for serving only, and its key matches', async (t) => {
  const { cert, key } = await selfSignedCertificate('vk-1', ['10.0.0.7', 'vk-1.example', '::1']);
  const x = new X509Certificate(cert);
  t.equal(x.checkHost('vk-1'), 'vk-1');
  t.equal(x.checkHost('vk-1.example'), 'vk-1.example');
  t.equal(x.checkIP('10.0.0.7'), '10.0.0.7');
  t.equal(x.checkIP('::1'), '::1');
  t.equal(x.checkIP('10.0.0.8'), undefined, 'no address it was not made for');
  t.match(x.subject, /CN=vk-1@tether/);
  t.equal(x.ca, false, 'not a CA');
  t.same(x.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'serverAuth only');
  t.ok(x.checkPrivateKey(createPrivateKey(key)), 'the key is the certificate\'s');
  t.ok(x.verify(x.publicKey), 'self-signed');
  t.ok(new Date(x.validFrom).getTime() <= Date.now(), 'valid now');
  t.ok(new Date(x.validTo).getTime() > Date.now() + 300 * 86_400_000, 'valid for about a year');
});

void t.test('two certificates never share a serial number or a key', async (t) => {
  const [a, b] = await Promise.all([selfSignedCertificate('vk-1', []), selfSignedCertificate('vk-1', [])]);
  t.not(new X509Certificate(a.cert).serialNumber, new X509Certificate(b.cert).serialNumber);
  t.not(a.key, b.key);
});

void t.test('a node name of 58 characters or more still makes a certificate, with the full name in the SAN', async (t) => {
  for (const length of [57, 58, 63, 64, 65, 120, 253]) {
    const labels: string[] = [];
    let rest = length;
    while (rest > 0) {
      const take = Math.min(rest, 63);
      labels.push('n'.repeat(take));
      rest -= take + 1;
    }
    const name = labels.join('.').slice(0, length).replace(/\.$/, 'x');
    const { cert } = await selfSignedCertificate(name, ['10.0.0.7']);
    const x = new X509Certificate(cert);
    t.equal(x.checkHost(name), name, `${length} characters: valid for the name`);
    const cn = /CN=(.*)/.exec(x.subject)?.[1] ?? '';
    t.ok(cn.length <= MAX_COMMON_NAME, `${length} characters: CN of ${cn.length}`);
  }
  t.equal(commonName('vk-1'), 'vk-1@tether');
  t.equal(commonName('a'.repeat(70)), 'a'.repeat(64));
});

void t.test('subject alternative names: the node name first, addresses typed, no duplicates or empties', async (t) => {
  t.same(subjectAltNames('vk-1', ['10.0.0.7', 'vk-1', '10.0.0.7', '', 'fd00::1']), [
    { type: 'dns', value: 'vk-1' }, { type: 'ip', value: '10.0.0.7' }, { type: 'ip', value: 'fd00::1' },
  ]);
});

void t.test('a TLS server serves with it and a client that trusts it verifies the node name', async (t) => {
  const name = `${'long-node-name-'.repeat(4)}x`;
  const { cert, key } = await selfSignedCertificate(name, ['127.0.0.1']);
  const server = createServer({ cert, key }, (_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const body = await new Promise<string>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, servername: name, ca: cert, path: '/' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end();
  });
  t.equal(body, 'ok');
});
