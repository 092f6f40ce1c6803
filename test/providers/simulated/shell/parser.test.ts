/** The lexer and parser: the tree they build, their errors, and properties over any input. */
import fc from 'fast-check';
import t from 'tap';
import { parse } from '../../../../src/providers/simulated/shell/parser.js';
import { DEFAULT_LIMITS } from '../../../../src/providers/simulated/shell/limits.js';
import { sh } from '../../../support/shell.js';

/** sh's single-quote quoting: 'it'\''s'. */
const quote = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;

t.test('a pipeline inside && inside a list, with redirections and assignments', async (t) => {
  const parsed = parse('X=1 a b >out 2>&1 | c && d &');
  if (!parsed.ok) return t.fail(parsed.error);
  const [item] = parsed.script.body.items;
  t.equal(item?.background, true);
  const first = item?.andOr.first.commands[0];
  t.match(first, { type: 'simple', assignments: [{ name: 'X' }], redirections: [{ fd: 1, op: '>' }, { fd: 2, op: '>&' }] });
  t.equal(item?.andOr.first.commands.length, 2);
  t.equal(item?.andOr.rest[0]?.op, '&&');
});

t.test('reserved words are reserved only where a command starts', async (t) => {
  t.equal((await sh('echo if then done')).out, 'if then done\n');
  t.match(parse('if true; then echo; fi'), { ok: true, script: { body: { items: [{ andOr: { first: { commands: [{ type: 'if' }] } } }] } } });
});

t.test('errors name the problem, and say when more input could finish the script', async (t) => {
  t.same(parse('echo "open'), { ok: false, error: 'unterminated quoted string', incomplete: true });
  t.same(parse('while true; do echo'), { ok: false, error: 'missing done', incomplete: true });
  t.same(parse('echo ;;'), { ok: false, error: 'unexpected ;;', incomplete: false });
  t.same(parse('fi'), { ok: false, error: 'unexpected fi', incomplete: false });
  t.match(parse('cat <<EOF'), { ok: false, error: /here-documents/ });
});

t.test('the script length and the nesting depth are bounded', async (t) => {
  t.match(parse('x'.repeat(DEFAULT_LIMITS.scriptLength + 1)), { ok: false, error: /longer than/ });
  t.match(parse(`${'('.repeat(1000)}true${')'.repeat(1000)}`), { ok: false, error: /nesting deeper than 64/ });
  t.match(parse(`echo ${'$('.repeat(500)}x${')'.repeat(500)}`), { ok: false, error: /nesting/ });
});

t.test('parse never throws, whatever the input', async (t) => {
  const alphabet = fc.constantFrom(...'ab $(){}[];&|<>\'"\\`\n#=!0123456789-+*/%:?@'.split(''), 'if ', 'then ', 'fi', 'do ', 'done', 'while ', 'for ', 'in ', '$((', '${', '2>&1');
  fc.assert(fc.property(fc.array(alphabet, { maxLength: 60 }).map((parts) => parts.join('')), (source) => {
    const result = parse(source);
    return result.ok || typeof result.error === 'string';
  }), { numRuns: 2000 });
  t.pass();
});

t.test('any string survives single quoting: one literal word, and printf prints it as it was', async (t) => {
  fc.assert(fc.property(fc.string({ maxLength: 40 }), (s) => {
    const parsed = parse(`echo ${quote(s)}`);
    const command = parsed.ok ? parsed.script.body.items[0]?.andOr.first.commands[0] : undefined;
    const word = command?.type === 'simple' ? command.words[1] : undefined;
    return word !== undefined && word.parts.every((p) => p.type === 'literal' && p.quoted) && word.parts.map((p) => (p.type === 'literal' ? p.text : '')).join('') === s;
  }), { numRuns: 1000 });
  await fc.assert(fc.asyncProperty(fc.string({ maxLength: 40 }), async (s) => {
    const run = await sh(`X=${quote(s)}; printf '%s' "$X"`);
    return run.out === s;
  }), { numRuns: 300 });
  t.pass();
});
