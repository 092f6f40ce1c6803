/**
 * Where metrics-server comes from: tools/metrics-server/build.sh builds it from its Go module
 * (sigs.k8s.io/metrics-server, cached by version; a cold build takes minutes), or
 * TETHER_METRICS_SERVER_BIN_DIR names a directory that already holds it. Unlike the control plane,
 * it is optional: a caller that cannot have it is told why, and skips what needs it.
 */
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { findRepoFile, runBuildScript } from './buildScript.js';

export type MetricsServerBinary = { readonly available: true; readonly path: string } | { readonly available: false; readonly reason: string };

const located = new Map<boolean, Promise<MetricsServerBinary>>();

/**
 * The binary, built on first use (a no-op once cached) unless `cachedOnly`, which only looks;
 * never rejects.
 */
export function metricsServerBinary(options: { cachedOnly?: boolean } = {}): Promise<MetricsServerBinary> {
  const cachedOnly = options.cachedOnly ?? false;
  const found = located.get(cachedOnly) ?? locate(cachedOnly);
  located.set(cachedOnly, found);
  return found;
}

async function locate(cachedOnly: boolean): Promise<MetricsServerBinary> {
  const preset = process.env.TETHER_METRICS_SERVER_BIN_DIR;
  if (preset && (await executable(join(preset, 'metrics-server')))) return { available: true, path: join(preset, 'metrics-server') };
  try {
    const dir = await runBuildScript(findRepoFile(join('tools', 'metrics-server', 'build.sh')), cachedOnly ? ['--cached-only'] : []);
    return { available: true, path: join(dir, 'metrics-server') };
  } catch (error) {
    const why = cachedOnly ? 'is not built yet (tools/metrics-server/build.sh builds it)' : `could not be built: ${error instanceof Error ? error.message : String(error)}`;
    return { available: false, reason: `metrics-server ${why}` };
  }
}

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
