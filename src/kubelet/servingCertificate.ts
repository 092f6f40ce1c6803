/**
 * The kubelet API's serving certificate: the files an operator provides, or else a self-signed
 * EC P-256 certificate for the node's name and addresses, made in-process at start-up (the kubelet
 * does the same when it has no --tls-cert-file), renewed before it expires (selfSignedRenewal.ts).
 * The API server does not verify it unless started with --kubelet-certificate-authority.
 *
 * Made with @peculiar/x509 on Node's own WebCrypto rather than by running `openssl` (absent from
 * slim images, so the shipped image had no kubelet API) or node-forge (pure-JS RSA only: slow key
 * generation and no EC keys). @peculiar/x509 builds on tsyringe, which needs the `reflect-metadata`
 * polyfill loaded first: hence the side-effect import at the top.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';

export interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
}

/** X.520's upper bound on a CommonName (RFC 5280 ub-common-name). */
export const MAX_COMMON_NAME = 64;

const SIGNING = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
// Issued a little in the past so a client whose clock runs behind ours accepts it at once.
const BACKDATE_MS = 5 * 60_000;

/**
 * The subject's CN: `<node>@tether` when it fits in 64 characters, else the node's name cut to
 * fit. Clients check the SANs (which carry the full name), never the CN, so cutting it is harmless.
 */
export function commonName(nodeName: string): string {
  const full = `${nodeName}@tether`;
  return full.length <= MAX_COMMON_NAME ? full : nodeName.slice(0, MAX_COMMON_NAME);
}

export interface AltName {
  readonly type: 'dns' | 'ip';
  readonly value: string;
}

/** The node's name as a DNS SAN, each address as an IP SAN (or a DNS SAN when it is a name); no duplicates. */
export function subjectAltNames(nodeName: string, addresses: readonly string[]): AltName[] {
  const names: AltName[] = [{ type: 'dns', value: nodeName }, ...addresses.map((a): AltName => ({ type: isIP(a) ? 'ip' : 'dns', value: a }))];
  const seen = new Set<string>();
  return names.filter((n) => {
    const key = `${n.type}:${n.value}`;
    if (seen.has(key) || n.value === '') return false;
    seen.add(key);
    return true;
  });
}

function pem(label: string, der: ArrayBuffer): string {
  const body = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive, as RFC 5280 requires
  return Buffer.from(bytes).toString('hex');
}

export async function selfSignedCertificate(nodeName: string, addresses: readonly string[], days = 365, now = new Date()): Promise<ServingCertificate> {
  const keys = await webcrypto.subtle.generateKey(SIGNING, true, ['sign', 'verify']);
  const name = new x509.Name([{ CN: [commonName(nodeName)] }]).toString();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + days * 86_400_000),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(subjectAltNames(nodeName, addresses).map((n) => ({ type: n.type, value: n.value }))),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem') + '\n', key: pem('PRIVATE KEY', key) };
}
