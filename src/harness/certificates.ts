/**
 * Per-cluster credentials, made with Debian's openssl: a CA, the API server's serving certificate,
 * an admin client certificate (O=system:masters), the service-account signing key, a static
 * token file, and the aggregation layer's front proxy (its own CA and the client certificate the
 * API server presents to extension API servers such as metrics-server). Each cluster gets its
 * own, so two clusters trust nothing of each other's.
 * EC P-256 keys throughout: every component accepts them and they are generated instantly.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Identity {
  user: string;
  groups: readonly string[];
}

export interface TokenIdentity extends Identity {
  token: string;
}

export interface KeyPair {
  certPath: string;
  keyPath: string;
}

export interface ClusterCredentials {
  dir: string;
  ca: KeyPair;
  serving: KeyPair;
  admin: KeyPair;
  /** Presented by the API server to kubelets (logs, exec); a cluster-admin identity. */
  kubeletClient: KeyPair;
  /**
   * The aggregation layer's requestheader CA (--requestheader-client-ca-file), separate from the
   * cluster CA as kubeadm keeps it: a certificate it signs may assert any user in headers.
   */
  frontProxyCa: KeyPair;
  /** What the API server presents when it proxies to an APIService (CN=front-proxy-client). */
  frontProxyClient: KeyPair;
  serviceAccountKeyPath: string;
  /** The public half, for --service-account-key-file (which does not read a PKCS#8 EC private key). */
  serviceAccountPublicKeyPath: string;
  tokenFilePath: string;
  adminToken: string;
  /** Tokens for other identities, fixed at API server start (--token-auth-file is read once). */
  tokens: readonly TokenIdentity[];
}

export interface SubjectAlternativeNames {
  ips: readonly string[];
  dns: readonly string[];
}

/** Identities given spare tokens when the caller names none: a few node users and a plain user. */
export const DEFAULT_TOKEN_IDENTITIES: readonly Identity[] = [
  { user: 'system:node:tether-node-0', groups: ['system:nodes'] },
  { user: 'system:node:tether-node-1', groups: ['system:nodes'] },
  { user: 'system:node:tether-node-2', groups: ['system:nodes'] },
  { user: 'tether-user', groups: [] },
];

export async function createClusterCredentials(
  dir: string,
  options: { clusterName: string; sans: SubjectAlternativeNames; tokenIdentities?: readonly Identity[] },
): Promise<ClusterCredentials> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca = await createCa(dir, 'ca', `tether-${options.clusterName}-ca`);
  const frontProxyCa = await createCa(dir, 'front-proxy-ca', `tether-${options.clusterName}-front-proxy-ca`);
  const frontProxyClient = await issue(frontProxyCa, dir, 'front-proxy-client', {
    subject: `/CN=${FRONT_PROXY_CLIENT}`, usages: ['clientAuth'], sans: { ips: [], dns: [] },
  });

  const serving = await issue(ca, dir, 'apiserver', {
    subject: '/CN=kube-apiserver', usages: ['serverAuth'], sans: options.sans,
  });
  const admin = await mintClientCertificate(ca, dir, { user: 'tether-admin', groups: ['system:masters'] });
  const kubeletClient = await mintClientCertificate(ca, dir, { user: 'kube-apiserver-kubelet-client', groups: ['system:masters'] });
  const serviceAccountKeyPath = join(dir, 'service-account.key');
  const serviceAccountPublicKeyPath = join(dir, 'service-account.pub');
  await generateKey(serviceAccountKeyPath);
  await run('openssl', ['pkey', '-in', serviceAccountKeyPath, '-pubout', '-out', serviceAccountPublicKeyPath]);

  const adminToken = newToken();
  const tokens = (options.tokenIdentities ?? DEFAULT_TOKEN_IDENTITIES).map((identity) => ({ ...identity, token: newToken() }));
  const tokenFilePath = join(dir, 'tokens.csv');
  const adminIdentity = { user: 'tether-admin-token', groups: ['system:masters'], token: adminToken };
  await writeFile(tokenFilePath, renderTokenFile([adminIdentity, ...tokens]), { mode: 0o600 });

  return { dir, ca, serving, admin, kubeletClient, frontProxyCa, frontProxyClient, serviceAccountKeyPath, serviceAccountPublicKeyPath, tokenFilePath, adminToken, tokens };
}

/** The front proxy's client certificate CN, the one name --requestheader-allowed-names accepts. */
export const FRONT_PROXY_CLIENT = 'front-proxy-client';

async function createCa(dir: string, name: string, commonName: string): Promise<KeyPair> {
  const ca = { certPath: join(dir, `${name}.crt`), keyPath: join(dir, `${name}.key`) };
  await generateKey(ca.keyPath);
  await run('openssl', ['req', '-x509', '-new', '-key', ca.keyPath, '-out', ca.certPath, '-days', '3650',
    '-subj', `/CN=${commonName}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  return ca;
}

/** Signs a client certificate for any identity (e.g. `system:node:<name>` in `system:nodes`). */
export async function mintClientCertificate(ca: KeyPair, dir: string, identity: Identity): Promise<KeyPair> {
  const subject = [...identity.groups.map((g) => `/O=${escapeSubject(g)}`), `/CN=${escapeSubject(identity.user)}`].join('');
  const fileName = identity.user.replace(/[^A-Za-z0-9.-]/g, '_');
  return issue(ca, dir, `client-${fileName}`, { subject, usages: ['clientAuth'], sans: { ips: [], dns: [] } });
}

/** Signs a serving certificate (e.g. for an extension API server) for the given names. */
export function mintServingCertificate(ca: KeyPair, dir: string, name: string, sans: SubjectAlternativeNames): Promise<KeyPair> {
  return issue(ca, dir, `serving-${name.replace(/[^A-Za-z0-9.-]/g, '_')}`, { subject: `/CN=${escapeSubject(name)}`, usages: ['serverAuth'], sans });
}

/** openssl `-extfile` text for a leaf certificate. */
export function leafExtensions(usages: readonly ('serverAuth' | 'clientAuth')[], sans: SubjectAlternativeNames): string {
  const lines = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${usages.join(',')}`,
  ];
  const names = [...sans.ips.map((ip) => `IP:${ip}`), ...sans.dns.map((name) => `DNS:${name}`)];
  if (names.length > 0) lines.push(`subjectAltName=${names.join(',')}`);
  return lines.join('\n') + '\n';
}

/** `--token-auth-file` format: token,user,uid,"group1,group2". */
export function renderTokenFile(identities: readonly TokenIdentity[]): string {
  return identities.map(({ token, user, groups }) => `${token},${user},${user},"${groups.join(',')}"`).join('\n') + '\n';
}

export function readPem(path: string): Promise<string> {
  return readFile(path, 'utf8');
}

async function issue(
  ca: KeyPair,
  dir: string,
  name: string,
  options: { subject: string; usages: readonly ('serverAuth' | 'clientAuth')[]; sans: SubjectAlternativeNames },
): Promise<KeyPair> {
  const pair = { certPath: join(dir, `${name}.crt`), keyPath: join(dir, `${name}.key`) };
  const csrPath = join(dir, `${name}.csr`);
  const extPath = join(dir, `${name}.ext`);
  await generateKey(pair.keyPath);
  await run('openssl', ['req', '-new', '-key', pair.keyPath, '-subj', options.subject, '-out', csrPath]);
  await writeFile(extPath, leafExtensions(options.usages, options.sans));
  // A random serial instead of -CAcreateserial: concurrent mints must not race on a serial file.
  await run('openssl', ['x509', '-req', '-in', csrPath, '-CA', ca.certPath, '-CAkey', ca.keyPath,
    '-set_serial', `0x${randomBytes(16).toString('hex')}`, '-days', '365', '-extfile', extPath, '-out', pair.certPath]);
  await Promise.all([rm(csrPath), rm(extPath)]);
  return pair;
}

async function generateKey(path: string): Promise<void> {
  await run('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path]);
}

function newToken(): string {
  return randomBytes(24).toString('hex');
}

function escapeSubject(value: string): string {
  return value.replace(/([/=+,])/g, '\\$1');
}
