/**
 * What the benches on harness clusters (compare, restart) share besides measurements
 * (measure.ts): where the repository is, whether a Node is Ready, and how a bench ends.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClusterAccess } from '../src/harness/clusterAccess.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root, from src (bench/) or from the build (dist/bench/). */
export const repositoryRoot = existsSync(join(here, '..', 'package.json')) ? resolve(here, '..') : resolve(here, '..', '..');

export async function nodeReady(cluster: ClusterAccess, node: string): Promise<boolean> {
  try {
    const json = JSON.parse(await cluster.kubectl(['get', 'node', node, '-o', 'json'])) as { status?: { conditions?: { type: string; status: string }[] } };
    return json.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  } catch {
    return false;
  }
}

/** A log line on stderr, stamped with the bench's name and the time. */
export function benchLog(name: string): (line: string) => void {
  return (line) => void process.stderr.write(`[${name} ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** Runs the bench and exits: 0 when it finished, 1 with the stack when it failed. */
export function runBench(name: string, main: () => Promise<void>): void {
  main().then(() => process.exit(0), (error: unknown) => {
    process.stderr.write(`${name} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
