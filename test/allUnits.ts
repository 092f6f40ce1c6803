/**
 * The inner loop (`npm run test:unit`): every unit test file imported into one process, so the
 * TypeScript loader and the shared modules are paid for once instead of once per file. `npm test`
 * runs this file too (`.taprc`'s include), with coverage, beside the e2e files. Unit files must
 * not need a cluster (test/harness/unitLayer.test.ts) nor hooks on tap's root test.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';

// `.taprc`'s timeout bounds one file; this file is ~170 of them, and beside the e2e files on a
// loaded machine it took over 10 minutes. The root test tells tap's runner its own bound.
t.setTimeout(30 * 60_000);

const root = dirname(fileURLToPath(import.meta.url));
const excluded = (path: string): boolean => path.split(sep).some((part) => part === 'e2e' || /^fixtures?$/.test(part) || part === 'dist');

const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts') && !excluded(path))
  .sort();

// Imported inside the first test: the files' tests queue on the root behind it, so the root never
// runs dry (and ends the run) while the loader is still compiling the next file.
t.test(`the ${files.length} unit files of ${relative(process.cwd(), root)}/ load`, async (t) => {
  for (const file of files) await import(pathToFileURL(join(root, file)).href);
  t.pass('every file imported');
});
