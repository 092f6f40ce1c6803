import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../harness/sharedClusters.js';

/** Every folder below `dir` (not `dir` itself), depth first, in name order. */
function foldersBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .flatMap((name) => [join(dir, name), ...foldersBelow(join(dir, name))]);
}

/** The `.ts` file names a README mentions (`x.ts`, `sub/x.ts`, `src/a/x.ts`); globs are not names. */
function namedFiles(readme: string): string[] {
  const names = readme.match(/[\w./*-]*\w\.ts\b/g) ?? [];
  return [...new Set(names.filter((name) => !name.includes('*')))];
}

/**
 * What is wrong with the module docs of the folders under `root`/src: a folder without a
 * README.md, or a README naming a `.ts` file that is not there. A bare name must be in the
 * README's own folder; a path may be relative to that folder or to the repository root.
 */
function folderDocProblems(root: string): string[] {
  const problems: string[] = [];
  for (const folder of foldersBelow(join(root, 'src'))) {
    const shown = relative(root, folder);
    const readme = join(folder, 'README.md');
    if (!existsSync(readme)) {
      problems.push(`${shown}/ has no README.md: add one saying what the folder is for, what it may import, what does not belong there, and its files`);
      continue;
    }
    for (const name of namedFiles(readFileSync(readme, 'utf8'))) {
      const found = name.includes('/') ? existsSync(join(folder, name)) || existsSync(join(root, name)) : existsSync(join(folder, name));
      if (!found) problems.push(`${shown}/README.md names ${name}, which is not in ${name.includes('/') ? `${shown}/ nor the repository` : `${shown}/`}: fix or remove the line`);
    }
  }
  return problems;
}

void t.test('every folder under src/ has a README.md, and every .ts file a README names exists', async (t) => {
  const problems = folderDocProblems(REPO_ROOT);
  t.same(problems, [], problems.length > 0 ? `module docs out of date:\n${problems.join('\n')}` : 'module docs in step with the files');
});

void t.test('a folder without a README, and a README naming a file that is gone, are each reported by folder and file', async (t) => {
  const root = t.testdir({
    src: {
      kept: {
        'README.md': 'Files:\n- `here.ts`: present.\n- `gone.ts`: moved away.\n- `inner/deep.ts`, `inner/lost.ts`, `src/other/far.ts`, `../kept/here.ts`\n- tests in `test/kept/*.test.ts`\n',
        'here.ts': '',
        inner: { 'README.md': 'Only `deep.ts`.\n', 'deep.ts': '' },
      },
      other: { 'far.ts': '' },
    },
  });
  t.same(folderDocProblems(root), [
    'src/kept/README.md names gone.ts, which is not in src/kept/: fix or remove the line',
    'src/kept/README.md names inner/lost.ts, which is not in src/kept/ nor the repository: fix or remove the line',
    'src/other/ has no README.md: add one saying what the folder is for, what it may import, what does not belong there, and its files',
  ]);
});

void t.test('a bare name counts only in its own folder, not in a subfolder or elsewhere', async (t) => {
  const root = t.testdir({
    src: {
      a: { 'README.md': '`deep.ts` and `far.ts`\n', sub: { 'README.md': '`deep.ts`\n', 'deep.ts': '' } },
      b: { 'README.md': '`far.ts`\n', 'far.ts': '' },
    },
  });
  t.same(folderDocProblems(root), [
    'src/a/README.md names deep.ts, which is not in src/a/: fix or remove the line',
    'src/a/README.md names far.ts, which is not in src/a/: fix or remove the line',
  ]);
});
