/**
 * What certificate-rotation tests need: two CAs each with a serving pair and a client pair for
 * alice (the FakeAccessReviewer's allowed user), made with the harness's openssl; a directory laid
 * out as the kubelet mounts a Secret (each file a symlink through `..data`, swapped in one rename,
 * as cert-manager's rotations land); and the outcomes of a watcher's checks, awaited one by one.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClusterCredentials, mintClientCertificate, type KeyPair } from '../../src/harness/certificates.js';
import type { CheckOutcome } from '../../src/kubelet/certificateSource.js';

export interface Pem {
  readonly cert: string;
  readonly key: string;
}

export interface CertificateKit {
  readonly caA: string;
  readonly caB: string;
  /** Serving pairs (for 127.0.0.1) signed by A and by B. */
  readonly servingA: Pem;
  readonly servingB: Pem;
  /** Client certificates for alice signed by A and by B. */
  readonly aliceA: Pem;
  readonly aliceB: Pem;
}

async function pem(pair: KeyPair): Promise<Pem> {
  return { cert: await readFile(pair.certPath, 'utf8'), key: await readFile(pair.keyPath, 'utf8') };
}

async function side(dir: string, name: string): Promise<{ ca: string; serving: Pem; alice: Pem }> {
  const credentials = await createClusterCredentials(dir, { clusterName: name, sans: { ips: ['127.0.0.1'], dns: ['vk-1'] }, tokenIdentities: [] });
  const alice = await mintClientCertificate(credentials.ca, dir, { user: 'alice', groups: [] });
  return { ca: await readFile(credentials.ca.certPath, 'utf8'), serving: await pem(credentials.serving), alice: await pem(alice) };
}

export async function certificateKit(dir: string): Promise<CertificateKit> {
  const [a, b] = await Promise.all([side(join(dir, 'a'), 'a'), side(join(dir, 'b'), 'b')]);
  return { caA: a.ca, caB: b.ca, servingA: a.serving, servingB: b.serving, aliceA: a.alice, aliceB: b.alice };
}

export function fingerprint(certificatePem: string): string {
  return new X509Certificate(certificatePem).fingerprint256;
}

/** A Secret volume: `dir/<name>` → `..data/<name>`, `..data` → `..<generation>`; `write` swaps all at once. */
export class SecretVolume {
  private generation = 0;

  constructor(readonly dir: string) {}

  path(name: string): string {
    return join(this.dir, name);
  }

  async write(files: Readonly<Record<string, string>>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const previous = this.generation === 0 ? undefined : `..${this.generation}`;
    const next = `..${++this.generation}`;
    await mkdir(join(this.dir, next));
    for (const [name, content] of Object.entries(files)) await writeFile(join(this.dir, next, name), content);
    await symlink(next, join(this.dir, '..data_tmp'));
    await rename(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    for (const name of Object.keys(files)) await symlink(join('..data', name), this.path(name)).catch(() => undefined);
    if (previous) await rm(join(this.dir, previous), { recursive: true });
  }
}

/** Collects a watcher's check outcomes (pass `onCheck`); `next()` resolves with the next one not yet taken. */
export class CheckOutcomes {
  private readonly seen: CheckOutcome[] = [];
  private readonly waiting: Array<(outcome: CheckOutcome) => void> = [];

  readonly onCheck = (outcome: CheckOutcome): void => {
    const waiter = this.waiting.shift();
    if (waiter) waiter(outcome);
    else this.seen.push(outcome);
  };

  next(): Promise<CheckOutcome> {
    const outcome = this.seen.shift();
    return outcome ? Promise.resolve(outcome) : new Promise((resolve) => this.waiting.push(resolve));
  }
}
