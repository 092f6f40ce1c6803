/**
 * The kubelet API's certificate files as an operator provides them (`kubeletApi.certFile`,
 * `keyFile`, `clientCAFile`): read together, then checked as one unit before anything is served
 * with them. A check names the setting, the file and the problem, so a rotation that went wrong
 * (a file missing, not PEM, cut short, or a key of another certificate) reads as such in the log.
 *
 * Reading and checking are apart: the watcher (certificateSource.ts) reads every period and
 * checks only contents it has not seen, so a broken file is reported once, not once a minute.
 */
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { open } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { errorMessage } from '../lib/errorMessage.js';
import type { ServingCertificate } from './servingCertificate.js';
import { definedOnly } from '../lib/defaults.js';

export interface CertificateFiles {
  /** The serving certificate (leaf first, then any intermediates); with `keyFile` or not at all. */
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
  /** The CA bundle whose client certificates are accepted. */
  readonly clientCAFile?: string | undefined;
}

/** What a kubelet API serves with: the files' serving pair (if configured) and client CA (if configured). */
export interface TlsMaterial {
  readonly serving?: ServingCertificate | undefined;
  readonly clientCA?: string | undefined;
}

/** A file is refused beyond this: certificate files are a few KiB, a large CA bundle some 200 KiB. */
export const MAX_CERTIFICATE_FILE_BYTES = 1024 * 1024;

export type FileRead = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string };

/** The files as read at one moment, with a fingerprint of what was read (contents or errors). */
export interface FilesSnapshot {
  readonly files: CertificateFiles;
  readonly fingerprint: string;
  readonly reads: ReadonlyMap<string, FileRead>;
}

export type CheckedMaterial = { readonly ok: true; readonly material: TlsMaterial } | { readonly ok: false; readonly problem: string };

async function readBounded(path: string): Promise<FileRead> {
  try {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_CERTIFICATE_FILE_BYTES) return { ok: false, problem: `${path} is ${size} bytes, more than the ${MAX_CERTIFICATE_FILE_BYTES} a certificate file may have` };
      return { ok: true, text: await handle.readFile('utf8') };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { ok: false, problem: `${path} cannot be read (${errorMessage(error)})` };
  }
}

function configuredPaths(files: CertificateFiles): string[] {
  return [...new Set([files.certFile, files.keyFile, files.clientCAFile].filter((p): p is string => p !== undefined))];
}

export async function readCertificateFiles(files: CertificateFiles): Promise<FilesSnapshot> {
  const paths = configuredPaths(files);
  const reads = new Map(await Promise.all(paths.map(async (path) => [path, await readBounded(path)] as const)));
  const hash = createHash('sha256');
  for (const [path, read] of reads) hash.update(`${path}\0${read.ok ? `ok\0${read.text}` : `error\0${read.problem}`}\0`);
  return { files, fingerprint: hash.digest('hex'), reads };
}

/** Which setting's files are at fault, and why. */
type Setting = 'pair' | 'clientCA' | 'all';

class Refused extends Error {
  constructor(readonly setting: Setting, message: string) {
    super(message);
  }
}

function text(snapshot: FilesSnapshot, setting: Setting, path: string): string {
  const read = snapshot.reads.get(path);
  if (!read) throw new Refused(setting, `${path} was not read`);
  if (!read.ok) throw new Refused(setting, read.problem);
  return read.text;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM file, each parsed; a block left open (a file cut short) is refused. */
function pemCertificates(setting: Setting, path: string, pem: string): X509Certificate[] {
  const opened = pem.split('-----BEGIN ').length - 1;
  const closed = pem.split('-----END ').length - 1;
  if (opened !== closed) throw new Refused(setting, `${path} ends inside a PEM block (written only in part?)`);
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Refused(setting, `${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      throw new Refused(setting, `${path}: certificate ${i + 1} is not valid X.509 (${errorMessage(error)})`);
    }
  });
}

function servingPair(certPath: string, cert: string, keyPath: string, key: string): ServingCertificate {
  const [leaf] = pemCertificates('pair', certPath, cert);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new Refused('pair', `${keyPath} is not a PEM private key (${errorMessage(error)})`);
  }
  if (leaf && !matches(leaf, privateKey)) {
    throw new Refused('pair', `the key in ${keyPath} is not the key of the certificate in ${certPath} (a rotation written in part, or files of two pairs)`);
  }
  return { cert, key };
}

function matches(leaf: X509Certificate, key: KeyObject): boolean {
  try {
    return leaf.checkPrivateKey(key);
  } catch {
    return false; // a key of another type altogether
  }
}

function describe(files: CertificateFiles, setting: Setting, prefix: string): string {
  const parts: string[] = [];
  if (setting !== 'clientCA' && files.certFile !== undefined) parts.push(`${prefix}certFile/keyFile ${files.certFile}, ${files.keyFile ?? '(none)'}`);
  if (setting !== 'pair' && files.clientCAFile !== undefined) parts.push(`${prefix}clientCAFile ${files.clientCAFile}`);
  return parts.join(' and ') || `${prefix}certFile/keyFile`;
}

/**
 * The material the snapshot holds, or why it cannot be served with: every PEM block parsed, the
 * key the leaf's, and the whole accepted by TLS (`createSecureContext`, as `setSecureContext` will).
 * `prefix` names the settings' home in messages ("kubeletApi.").
 */
export function checkCertificateFiles(snapshot: FilesSnapshot, prefix = ''): CheckedMaterial {
  const { certFile, keyFile, clientCAFile } = snapshot.files;
  try {
    if ((certFile === undefined) !== (keyFile === undefined)) throw new Refused('pair', 'certFile and keyFile go together: set both or neither');
    const serving = certFile !== undefined && keyFile !== undefined ? servingPair(certFile, text(snapshot, 'pair', certFile), keyFile, text(snapshot, 'pair', keyFile)) : undefined;
    let clientCA: string | undefined;
    if (clientCAFile !== undefined) {
      clientCA = text(snapshot, 'clientCA', clientCAFile);
      pemCertificates('clientCA', clientCAFile, clientCA);
    }
    try {
      createSecureContext({ ...(serving ?? {}), ...definedOnly({ ca: clientCA }) });
    } catch (error) {
      throw new Refused('all', `TLS refuses them: ${errorMessage(error)}`);
    }
    return { ok: true, material: { serving, clientCA } };
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    return { ok: false, problem: `${describe(snapshot.files, error.setting, prefix)} cannot be used: ${error.message}` };
  }
}

/** Reads and checks the files once; throws with the problem when they cannot be served with. */
export async function loadCertificateFiles(files: CertificateFiles, prefix = ''): Promise<TlsMaterial> {
  const checked = checkCertificateFiles(await readCertificateFiles(files), prefix);
  if (!checked.ok) throw new Error(checked.problem);
  return checked.material;
}
