/**
 * Reading a config file: YAML syntax, then overrides (flags, environment), then the schema and the
 * actors' own cross-field validators. The answer is the config or every problem found, never a
 * throw: a bad config is an answer (`tether validate` prints it, `tether run` exits 2 with it).
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { applyOverrides, type FlagValues } from './overrides.js';
import { about, formatProblem } from '../lib/fieldProblem.js';
import { issuesToProblems } from './problems.js';
import { restartPolicyProblems } from './restartPolicies.js';
import { configSchema, type TetherConfig } from './schema.js';

export type LoadResult =
  | { readonly ok: true; readonly config: TetherConfig; readonly file: string }
  | { readonly ok: false; readonly problems: readonly string[]; readonly file: string };

export interface LoadOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly flags?: FlagValues;
}

export function loadConfigFile(file: string, options: LoadOptions = {}): LoadResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    return { ok: false, file, problems: [`${file}: cannot read the file (${code})`] };
  }
  return parseConfig(text, file, options);
}

export function parseConfig(text: string, file: string, options: LoadOptions = {}): LoadResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => {
      const at = e.linePos?.[0];
      return `${file}${at ? `:${at.line}:${at.col}` : ''}: invalid YAML: ${(e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`;
    });
    return { ok: false, file, problems };
  }
  const parsed: unknown = doc.toJS();
  if (parsed === null || parsed === undefined) {
    return { ok: false, file, problems: [`${file}: the file is empty; expected a mapping with at least a nodes list`] };
  }
  const { raw, sources } = applyOverrides(parsed, options.env ?? process.env, options.flags ?? {});
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    // A node's own validators may repeat what the schema said about the same field: report it once.
    const problems = [...new Set(issuesToProblems(result.error.issues, { file, raw, schema: configSchema, overrides: sources, doc, lines }).map(formatProblem))];
    return { ok: false, file, problems };
  }
  const policyProblems = about(file, restartPolicyProblems(result.data.restartPolicies)).map(formatProblem);
  if (policyProblems.length > 0) return { ok: false, file, problems: policyProblems };
  return { ok: true, file, config: result.data };
}
