/**
 * The kubelet API's serving certificate: the files an operator provides, or else a self-signed
 * EC P-256 certificate for the node's name and addresses, made with openssl at start-up (the
 * kubelet does the same when it has no --tls-cert-file). The API server does not verify it unless
 * started with --kubelet-certificate-authority.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
}

export function subjectAltNames(nodeName: string, addresses: readonly string[]): string {
  const names = [`DNS:${nodeName}`, ...addresses.map((a) => (isIP(a) ? `IP:${a}` : `DNS:${a}`))];
  return [...new Set(names)].join(',');
}

export async function selfSignedCertificate(nodeName: string, addresses: readonly string[], days = 365): Promise<ServingCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'tether-kubelet-cert-'));
  try {
    const keyPath = join(dir, 'kubelet.key');
    const certPath = join(dir, 'kubelet.crt');
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', keyPath, '-out', certPath, '-days', String(days), '-subj', `/CN=${nodeName}@tether`,
      '-addext', `subjectAltName=${subjectAltNames(nodeName, addresses)}`,
      '-addext', 'extendedKeyUsage=serverAuth', '-addext', 'keyUsage=critical,digitalSignature']);
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    return { cert, key };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function servingCertificateFiles(certPath: string, keyPath: string): Promise<ServingCertificate> {
  const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
  return { cert, key };
}
