/**
 * Where the control-plane binaries come from. tools/kube/build.sh owns building them (from Go
 * modules, cached by version); this module runs it once per process, passing its progress lines
 * through to stderr, and honours TETHER_KUBE_BIN_DIR for binaries built or downloaded elsewhere.
 */
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { findRepoFile, runBuildScript } from './buildScript.js';

export const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl'] as const;
export type KubeBinary = (typeof COMPONENTS)[number];
export type KubeBinaries = Readonly<Record<KubeBinary, string>>;

let located: Promise<KubeBinaries> | undefined;

/** Resolves the binaries, building them on first use (a cold build takes minutes). */
export function kubeBinaries(): Promise<KubeBinaries> {
  located ??= locate().catch((error: unknown) => {
    located = undefined;
    throw error;
  });
  return located;
}

export function binariesIn(dir: string): KubeBinaries {
  const entries = COMPONENTS.map((name) => [name, join(dir, name)] as const);
  return Object.fromEntries(entries) as Record<KubeBinary, string>;
}

async function locate(): Promise<KubeBinaries> {
  const preset = process.env.TETHER_KUBE_BIN_DIR;
  if (preset && (await allExecutable(binariesIn(preset)))) return binariesIn(preset);
  return binariesIn(await runBuildScript(findBuildScript()));
}

async function allExecutable(binaries: KubeBinaries): Promise<boolean> {
  try {
    await Promise.all(Object.values(binaries).map((path) => access(path, constants.X_OK)));
    return true;
  } catch {
    return false;
  }
}

/** tools/kube/build.sh, found by walking up from this file (works from src/ and from dist/src/). */
export function findBuildScript(from?: string): string {
  return findRepoFile(join('tools', 'kube', 'build.sh'), from);
}
