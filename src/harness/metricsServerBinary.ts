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

let located: Promise<MetricsServerBinary> | undefined;

/** The binary, built on first use (a no-op once cached); never rejects. */
export function metricsServerBinary(): Promise<MetricsServerBinary> {
  located ??= locate();
  return located;
}

async function locate(): Promise<MetricsServerBinary> {
  const preset = process.env.TETHER_METRICS_SERVER_BIN_DIR;
  if (preset && (await executable(join(preset, 'metrics-server')))) return { available: true, path: join(preset, 'metrics-server') };
  try {
    const dir = await runBuildScript(findRepoFile(join('tools', 'metrics-server', 'build.sh')));
    return { available: true, path: join(dir, 'metrics-server') };
  } catch (error) {
    return { available: false, reason: `metrics-server could not be built: ${error instanceof Error ? error.message : String(error)}` };
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
