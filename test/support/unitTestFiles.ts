/**
 * The files of the unit layer, found one way for everyone who needs the list: the unit shards (test/units/)
 * imports them, test/harness/unitLayer.test.ts checks that none needs a cluster. A file is a unit
 * file when it ends in `.test.ts` and no folder on its path is `e2e` (the cluster layer),
 * `fixture(s)` (inputs, not tests) or `dist` (built output).
 */
import { readdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file is test/support/unitTestFiles.ts). */
export const UNIT_REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const EXCLUDED_FOLDER = /^(e2e|fixtures?|dist)$/;

/** Every unit test file, relative to the repository's root (`test/...`), sorted. */
export function unitTestFiles(): string[] {
  return readdirSync(join(UNIT_REPO_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts') && !path.split(sep).slice(0, -1).some((part) => EXCLUDED_FOLDER.test(part)))
    .map((path) => join('test', path))
    .sort();
}
