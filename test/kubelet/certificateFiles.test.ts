/**
 * The check of the certificate files before anything is served with them: what a rotation really
 * writes passes (a chain, a bundle of CAs), what it can get wrong is refused with the setting, the
 * file and the problem; and whatever bytes the files hold, the check answers, never throws, and
 * passes only a pair TLS serves with.
 */
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import fc from 'fast-check';
import t from 'tap';
import { checkCertificateFiles, loadCertificateFiles, MAX_CERTIFICATE_FILE_BYTES, type CertificateFiles, type FileRead, type FilesSnapshot } from '../../src/kubelet/certificateFiles.js';
import { certificateKit, type CertificateKit } from '../support/rotatingCertificates.js';

let kitOnce: Promise<CertificateKit> | undefined;
const kit = (dir: string): Promise<CertificateKit> => (kitOnce ??= certificateKit(dir));

const FILES = { certFile: '/v/tls.crt', keyFile: '/v/tls.key', clientCAFile: '/v/ca.crt' } as const;

/** A snapshot as if read from disk: each file's text. */
function snapshot(texts: { cert: string; key: string; ca: string }, files: CertificateFiles = FILES): FilesSnapshot {
  const reads = new Map<string, FileRead>([[FILES.certFile, { ok: true, text: texts.cert }], [FILES.keyFile, { ok: true, text: texts.key }], [FILES.clientCAFile, { ok: true, text: texts.ca }]]);
  return { files, fingerprint: 'test', reads };
}

void t.test('a serving chain (leaf, then its CA) and a bundle of two CAs pass', async (t) => {
  const k = await kit(join(t.testdir(), 'kit'));
  const checked = checkCertificateFiles(snapshot({ cert: k.servingA.cert + k.caA, key: k.servingA.key, ca: k.caA + k.caB }));
  t.ok(checked.ok);
  if (checked.ok) {
    t.equal(checked.material.serving?.cert, k.servingA.cert + k.caA, 'the chain is served whole');
    t.equal(checked.material.clientCA, k.caA + k.caB);
  }
});

void t.test('each way a rotation goes wrong is refused, naming the setting, the file and the problem', async (t) => {
  const k = await kit(join(t.testdir(), 'kit'));
  const good = { cert: k.servingA.cert, key: k.servingA.key, ca: k.caA };
  const rsaKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cases: ReadonlyArray<[string, Partial<typeof good>, RegExp]> = [
    ['a leaf cut short', { cert: k.servingA.cert.slice(0, 200) }, /^kubeletApi\.certFile\/keyFile \/v\/tls\.crt, \/v\/tls\.key cannot be used: \/v\/tls\.crt ends inside a PEM block/],
    ['a chain whose second block is cut short', { cert: k.servingA.cert + k.caA.slice(0, 100) }, /\/v\/tls\.crt ends inside a PEM block/],
    ['a block whose base64 is damaged', { cert: k.servingA.cert.replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!!!!!!!!!!!!!!!!!') }, /\/v\/tls\.crt: certificate 1 is not valid X\.509/],
    ['no certificate at all', { cert: '' }, /\/v\/tls\.crt holds no PEM certificate/],
    ['a key of another pair', { key: k.servingB.key }, /the key in \/v\/tls\.key is not the key of the certificate in \/v\/tls\.crt/],
    ['a key of another type', { key: rsaKey }, /the key in \/v\/tls\.key is not the key of the certificate/],
    ['a key that is not one', { key: k.servingA.cert }, /\/v\/tls\.key is not a PEM private key/],
    ['a CA file cut short', { ca: k.caA.slice(0, 300) }, /^kubeletApi\.clientCAFile \/v\/ca\.crt cannot be used: \/v\/ca\.crt ends inside a PEM block/],
    ['a CA file of a key', { ca: k.servingA.key }, /^kubeletApi\.clientCAFile \/v\/ca\.crt cannot be used: \/v\/ca\.crt holds no PEM certificate/],
  ];
  for (const [what, change, problem] of cases) {
    const checked = checkCertificateFiles(snapshot({ ...good, ...change }), 'kubeletApi.');
    t.notOk(checked.ok, what);
    if (!checked.ok) t.match(checked.problem, problem, what);
  }
  const lone = checkCertificateFiles(snapshot(good, { certFile: FILES.certFile }), 'kubeletApi.');
  t.match(lone.ok ? '' : lone.problem, /certFile and keyFile go together/);
});

void t.test('a file larger than 1 MiB is refused without being taken', async (t) => {
  const dir = t.testdir();
  const big = join(dir, 'ca.crt');
  await writeFile(big, Buffer.alloc(MAX_CERTIFICATE_FILE_BYTES + 1, 0x41));
  await t.rejects(loadCertificateFiles({ clientCAFile: big }), new RegExp(`ca\\.crt is ${MAX_CERTIFICATE_FILE_BYTES + 1} bytes, more than the ${MAX_CERTIFICATE_FILE_BYTES}`));
});

void t.test('whatever the files hold, the check answers without throwing, and passes only a pair TLS serves with', async (t) => {
  const k = await kit(join(t.testdir(), 'kit'));
  const pieces = [k.servingA.cert, k.servingA.key, k.servingB.cert, k.servingB.key, k.caA, k.caB, '-----BEGIN CERTIFICATE-----\n', '-----END CERTIFICATE-----\n', '-----BEGIN ', '\n'];
  // A file: a mix of real pieces and arbitrary text, cut or damaged anywhere.
  const mangled = fc.tuple(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string()), { maxLength: 4 }), fc.option(fc.nat()), fc.option(fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 3 }))))
    .map(([parts, cut, damage]) => {
      const whole = parts.join('');
      let text = cut === null ? whole : whole.slice(0, cut % (whole.length + 1));
      if (damage && text.length > 0) {
        const at = damage[0] % text.length;
        text = text.slice(0, at) + damage[1] + text.slice(at + 1);
      }
      return text;
    });
  // Whole files half the time, so that pairs (matching or not) are checked as often as debris.
  const certFile = fc.oneof(fc.constantFrom(k.servingA.cert, k.servingB.cert, k.servingA.cert + k.caA), mangled);
  const keyFile = fc.oneof(fc.constantFrom(k.servingA.key, k.servingB.key), mangled);
  const caFile = fc.oneof(fc.constantFrom(k.caA, k.caA + k.caB), mangled);
  let passed = 0;
  fc.assert(fc.property(certFile, keyFile, caFile, (cert, key, ca) => {
    const checked = checkCertificateFiles(snapshot({ cert, key, ca }), 'kubeletApi.');
    if (!checked.ok) return /^kubeletApi\.(certFile\/keyFile|clientCAFile) .* cannot be used: ./.test(checked.problem);
    passed++;
    const pair = checked.material.serving;
    if (!pair) return false;
    createSecureContext({ cert: pair.cert, key: pair.key, ca: checked.material.clientCA });
    return new X509Certificate(pair.cert).checkPrivateKey(createPrivateKey(pair.key));
  }), { numRuns: 300 });
  t.pass(`300 sets of files, ${passed} passed`);
});
