import { ESLint } from 'eslint';
import { join } from 'node:path';
import tseslint from 'typescript-eslint';
import { REPO_ROOT } from '../harness/sharedClusters.js';

/**
 * Lints `code` as if it were the file at `path` under the repository (it need not exist), with
 * only the given flat-config blocks (one of tools/lint's rule sets) and the TypeScript parser.
 * Answers each problem as `rule: message`.
 */
export async function lintAs(blocks: unknown[], path: string, code: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: REPO_ROOT,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      ...(blocks as ESLint.Options['overrideConfig'][]),
    ] as ESLint.Options['overrideConfig'],
  });
  const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, path) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}
