/**
 * The Helm chart from the tests: helm built from its Go module (tools/helm/build.sh, cached in
 * ~/.cache/tether/helm/<version>/), and `helm template` of deploy/helm/tether.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../harness/sharedClusters.js';

const run = promisify(execFile);
export const CHART_DIR = join(REPO_ROOT, 'deploy', 'helm', 'tether');
let helmPath: Promise<string> | undefined;

/** The helm binary, built on first use (a cold build takes minutes; later runs are instant). */
export function helm(): Promise<string> {
  helmPath ??= run('bash', [join(REPO_ROOT, 'tools', 'helm', 'build.sh')], { timeout: 900_000, maxBuffer: 8 << 20 }).then(({ stdout }) => join(stdout.trim(), 'helm'));
  return helmPath;
}

export async function runHelm(args: readonly string[]): Promise<string> {
  const { stdout } = await run(await helm(), [...args], { cwd: REPO_ROOT, maxBuffer: 16 << 20 });
  return stdout;
}

/** `helm template RELEASE deploy/helm/tether --namespace NS [extra]`: the manifests, as YAML. */
export function renderChart(namespace: string, extra: readonly string[] = [], release = 'tether'): Promise<string> {
  return runHelm(['template', release, CHART_DIR, '--namespace', namespace, ...extra]);
}
