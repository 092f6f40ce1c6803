import t from 'tap';
import { lintAs } from './lintAs.js';
// @ts-expect-error: a plain JS module of the lint config, with no type declarations.
import { optionalFieldRules } from '../../tools/lint/optionalFields.js';

/** Lints `code` as if it were the file at `path`, with only the optional-field rule. */
const problems = (path: string, code: string): Promise<string[]> => lintAs(optionalFieldRules() as unknown[], path, code);

void t.test('a conditional spread with an empty branch fails lint in src/, whichever branch is empty', async (t) => {
  const found = await problems('src/lib/probe.ts', [
    'export const a = (x?: number) => ({ ...(x !== undefined ? { x } : {}) });',
    'export const b = (x?: string) => ({ ...(x === undefined ? {} : { y: x }) });',
    'export const c = (ok: boolean) => ({ ...(ok ? { p: 1, q: 2 } : ({})) });',
  ].join('\n'));
  t.equal(found.length, 3);
  t.match(found.join('\n'), /no-restricted-syntax: Write an optional field with definedOnly, ifDefined or when/);
});

void t.test('the helpers, array spreads and conditionals that choose between two objects pass', async (t) => {
  t.same(await problems('src/lib/probe.ts', [
    "import { definedOnly, ifDefined, when } from './defaults.js';",
    'export const a = (x?: number) => ({ ...definedOnly({ x }), ...ifDefined(x, (v) => ({ y: v })), ...when(x === 1, () => ({ z: 1 })) });',
    'export const b = (xs?: number[]) => [...(xs ?? [])];',
    'export const c = (ok: boolean) => ({ ...(ok ? { p: 1 } : { p: 2 }) });',
  ].join('\n')), []);
});

void t.test('tests may still write the shape: the rule is for src/ and examples/', async (t) => {
  t.same(await problems('test/lib/probe.test.ts', 'export const a = (x?: number) => ({ ...(x ? { x } : {}) });'), []);
});
