/**
 * Tether runs nothing but itself: outside the harness and the sandbox (which start control planes
 * and Tether processes on purpose), no file of src/ imports child_process, so what runs in a slim
 * image is what the tests ran (the serving certificate once needed an `openssl` binary).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../harness/sharedClusters.js';

/** Files allowed to start processes: the harness, the sandbox, and the CLI command that runs the sandbox. */
const ALLOWED = [/^src\/harness\//, /^src\/sandbox\//, /^src\/cli\/commands\/sandbox\.ts$/];
const SPAWNING = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"](?:node:)?child_process['"]|process\.binding\(\s*['"]spawn_sync['"]/;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map(async (e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(?:ts|js|mjs|cjs)$/.test(e.name) ? [path] : [];
  }));
  return nested.flat();
}

function spawns(source: string): boolean {
  return SPAWNING.test(source);
}

void t.test('the check recognises every way of reaching child_process', async (t) => {
  t.ok(spawns(`import { execFile } from 'node:child_process';`));
  t.ok(spawns(`import * as cp from "child_process";`));
  t.ok(spawns(`const cp = await import('node:child_process');`));
  t.ok(spawns(`const cp = require('child_process');`));
  t.notOk(spawns(`import { readFile } from 'node:fs/promises';`));
});

void t.test('no file of src/ outside the harness and the sandbox starts an external program', async (t) => {
  const files = await sourceFiles(join(REPO_ROOT, 'src'));
  t.ok(files.length > 50, 'the scan sees the sources');
  const offenders: string[] = [];
  for (const file of files) {
    const path = relative(REPO_ROOT, file).split('\\').join('/');
    if (ALLOWED.some((allowed) => allowed.test(path))) continue;
    if (spawns(await readFile(file, 'utf8'))) offenders.push(path);
  }
  t.same(offenders, [], 'files importing child_process outside src/harness and src/sandbox');
});
