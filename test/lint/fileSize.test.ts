import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../harness/sharedClusters.js';
import { lintAs } from './lintAs.js';
// @ts-expect-error: a plain JS module of the lint config, with no type declarations.
import { MAX_LINES, OVERSIZED_FILES, fileSizeRules } from '../../tools/lint/fileSize.js';

const maxLines = MAX_LINES as number;
const oversized = OVERSIZED_FILES as string[];

/** Lints `code` as if it were the file at `path`, with only the file-size rule. */
const problems = (path: string, code: string): Promise<string[]> => lintAs(fileSizeRules() as unknown[], path, code);

/** A file of `lines` lines: comments and blank lines among the code, since they count too. */
function fileOf(lines: number): string {
  const kinds = (i: number): string => (i % 3 === 0 ? '' : i % 3 === 1 ? `// line ${i}` : `export const v${i} = ${i};`);
  return Array.from({ length: lines }, (_, i) => kinds(i)).join('\n') + '\n';
}

void t.test(`a file in src/ of ${MAX_LINES + 1} lines fails lint, blank and comment lines counted`, async (t) => {
  t.match((await problems('src/runtime/probe.ts', fileOf(maxLines + 1))).join('\n'), /max-lines: File has too many lines \(401\)\. Maximum allowed is 400\./);
  t.match((await problems('src/runtime/probe.ts', '\n'.repeat(maxLines + 1))).join('\n'), /max-lines/, 'blank lines alone count');
  t.match((await problems('src/lib/probe.ts', '//\n'.repeat(maxLines + 1))).join('\n'), /max-lines/, 'comment lines alone count');
});

void t.test(`a file in src/ of ${MAX_LINES} lines passes`, async (t) => {
  t.same(await problems('src/runtime/probe.ts', fileOf(maxLines)), []);
});

void t.test('the bound is for src/ only: a long test file passes', async (t) => {
  t.same(await problems('test/runtime/probe.test.ts', fileOf(maxLines + 100)), []);
});

void t.test('the temporary exceptions only shrink: each names a file that exists and is still over the bound', async (t) => {
  for (const path of oversized) {
    const full = join(REPO_ROOT, path);
    if (!existsSync(full)) {
      t.fail(`tools/lint/fileSize.js OVERSIZED_FILES names ${path}, which does not exist: remove it from the list`);
      continue;
    }
    const lines = readFileSync(full, 'utf8').split('\n').length - 1;
    t.ok(lines > maxLines, `${path} has ${lines} lines; once it is at most ${maxLines}, remove it from OVERSIZED_FILES in tools/lint/fileSize.js`);
    t.same(await problems(path, fileOf(maxLines + 1)), [], `${path} is exempt while it is listed`);
  }
});
