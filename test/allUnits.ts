/**
 * The inner loop (`npm run test:unit`): every unit test file imported into one process, so the
 * TypeScript loader and the shared modules are paid for once instead of once per file. `npm test`
 * runs this file too (`.taprc`'s include), with coverage, beside the e2e files. Unit files must
 * not need a cluster (test/harness/unitLayer.test.ts) nor hooks on tap's root test.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { UNIT_REPO_ROOT, unitTestFiles } from './support/unitTestFiles.js';

// `.taprc`'s timeout bounds one file; this file is ~170 of them, and beside the e2e files on a
// loaded machine it took over 10 minutes. The root test tells tap's runner its own bound.
t.setTimeout(30 * 60_000);

const files = unitTestFiles();

// Imported inside the first test: the files' tests queue on the root behind it, so the root never
// runs dry (and ends the run) while the loader is still compiling the next file.
t.test(`the ${files.length} unit files of test/ load`, async (t) => {
  for (const file of files) await import(pathToFileURL(join(UNIT_REPO_ROOT, file)).href);
  t.pass('every file imported');
});
