/**
 * The repository's build scripts (tools/<tool>/build.sh), which own building the Go binaries the
 * harness runs; each prints its progress on stderr and the directory it built into as its last
 * stdout line, and is a no-op once its cache is complete.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Runs `script` with bash, passing its progress through to stderr; resolves to the directory it names. */
export function runBuildScript(script: string, args: readonly string[] = []): Promise<string> {
  return new Promise((resolvePath, reject) => {
    const child = spawn('bash', [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const dir = stdout.trim().split('\n').pop();
      if (code === 0 && dir) resolvePath(dir);
      else reject(new Error(`${script} failed (exit ${code}); its progress and errors are on stderr above`));
    });
  });
}

/** A file of the repository (e.g. tools/kube/build.sh), found by walking up from this file (works from src/ and dist/src/). */
export function findRepoFile(relativePath: string, from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, relativePath);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${relativePath} not found above ${resolve(from)}`);
  }
}
