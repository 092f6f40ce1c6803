/** The lexer's tokens: operators, descriptors before redirections, quoting kept as parts. */
import t from 'tap';
import { Lexer, type Token } from '../../../../src/providers/simulated/shell/lexer.js';

function tokens(source: string): Token[] {
  const lexer = new Lexer(source, () => ({ script: { type: 'script', body: { items: [] } }, end: source.indexOf(')', 0) + 1 }));
  const out: Token[] = [];
  for (let token = lexer.next(); token.kind !== 'end'; token = lexer.next()) out.push(token);
  return out;
}

t.test('operators, newlines and comments', async (t) => {
  t.same(tokens('a && b || c; d & e | f # note\n').map((tk) => (tk.kind === 'word' ? tk.text : tk.kind === 'operator' ? tk.op : tk.kind)), ['a', '&&', 'b', '||', 'c', ';', 'd', '&', 'e', '|', 'f', 'newline']);
});

t.test('a number right before > or < is the descriptor; elsewhere it is a word', async (t) => {
  t.match(tokens('2>&1'), [{ kind: 'redirect', fd: 2, op: '>&' }, { kind: 'word', text: '1' }]);
  t.match(tokens('echo 2 >x'), [{ text: 'echo' }, { text: '2' }, { kind: 'redirect', fd: undefined, op: '>' }, { text: 'x' }]);
  t.match(tokens('a >> b < c'), [{}, { op: '>>' }, {}, { op: '<' }, {}]);
});

t.test('quotes become quoted parts; $ expansions parts of their own', async (t) => {
  const [word] = tokens(`x'a b'"c $HOME"\\ `);
  t.match(word, { kind: 'word', word: { parts: [
    { type: 'literal', text: 'x', quoted: false },
    { type: 'literal', text: 'a b', quoted: true },
    { type: 'literal', text: 'c ', quoted: true },
    { type: 'parameter', name: 'HOME', quoted: true },
    { type: 'literal', text: ' ', quoted: true },
  ] } });
  t.match(tokens('${X:-d} ${#Y} $((1+2)) $'), [
    { word: { parts: [{ type: 'parameter', name: 'X', modifier: { op: ':-' } }] } },
    { word: { parts: [{ type: 'length', name: 'Y' }] } },
    { word: { parts: [{ type: 'arithmetic', expression: '1+2' }] } },
    { word: { parts: [{ type: 'literal', text: '$' }] } },
  ]);
});
