/**
 * One shard of the unit layer: the unit files split over `count` processes, so the inner loop
 * (`npm run test:unit`) uses every core while each process still loads tap, the TypeScript loader
 * and the shared modules once. Files are dealt by size, largest first, round-robin: a rough but
 * stable balance that needs no timing data. Unit files must not need a cluster
 * (test/harness/unitLayer.test.ts) nor hooks on tap's root test.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { UNIT_REPO_ROOT, unitTestFiles } from './unitTestFiles.js';

/** The files of shard `index` (0-based) of `count`, in their sorted order. */
export function shardFiles(files: readonly string[], index: number, count: number, sizeOf: (file: string) => number): string[] {
  const bySize = [...files].sort((a, b) => sizeOf(b) - sizeOf(a) || a.localeCompare(b));
  const mine = new Set(bySize.filter((_, i) => i % count === index));
  return files.filter((file) => mine.has(file));
}

export function runUnitShard(index: number, count: number): void {
  // `.taprc`'s timeout bounds one file; a shard is ~90 of them, and beside the e2e files on a
  // loaded machine one process of them all took over 10 minutes. The root test tells tap its own bound.
  t.setTimeout(30 * 60_000);
  const files = shardFiles(unitTestFiles(), index, count, (file) => statSync(join(UNIT_REPO_ROOT, file)).size);
  // Imported inside the first test: the files' tests queue on the root behind it, so the root never
  // runs dry (and ends the run) while the loader is still compiling the next file.
  t.test(`the ${files.length} unit files of shard ${index + 1}/${count} load`, async (t) => {
    for (const file of files) await import(pathToFileURL(join(UNIT_REPO_ROOT, file)).href);
    t.pass('every file imported');
  });
}
