/**
 * Splits shell source into tokens on demand, for the parser: words (with their quoting and
 * expansions kept as parts), operators, redirections and newlines. `$(...)` and backquotes are
 * handed to `nested`, which parses them and says where they end, so the lexer needs no parser.
 */
import type { ParameterModifier, RedirectOp, Script, Word, WordPart } from './ast.js';
import { Unsupported } from './context.js';

export type Operator = ';' | '&' | '&&' | '||' | '|' | '(' | ')' | ';;';

export type Token =
  | { readonly kind: 'word'; readonly word: Word; readonly text: string }
  | { readonly kind: 'operator'; readonly op: Operator }
  | { readonly kind: 'redirect'; readonly fd: number | undefined; readonly op: RedirectOp }
  | { readonly kind: 'newline' }
  | { readonly kind: 'end' };

/** A syntax error; `incomplete` when more input could finish it (an open quote, a missing `done`). */
export class SyntaxError extends Error {
  constructor(message: string, readonly incomplete = false) {
    super(message);
  }
}

/** Parses the command substitution starting at `start` (after `$(`) and returns it with the index after its `)`. */
export type NestedParser = (source: string, start: number) => { readonly script: Script; readonly end: number };

const BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const SPECIAL = new Set(['?', '#', '@', '*', '$', '!', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
const MODIFIERS = [':-', ':=', ':+', ':?', '-', '=', '+', '?'] as const;

export class Lexer {
  pos: number;

  constructor(private readonly src: string, private readonly nested: NestedParser, start = 0) {
    this.pos = start;
  }

  next(): Token {
    const { src } = this;
    for (;;) {
      const c = src[this.pos];
      if (c === ' ' || c === '\t') this.pos++;
      else if (c === '\\' && src[this.pos + 1] === '\n') this.pos += 2;
      else if (c === '#') while (this.pos < src.length && src[this.pos] !== '\n') this.pos++;
      else break;
    }
    if (this.pos >= src.length) return { kind: 'end' };
    const c = src[this.pos] as string;
    if (c === '\n') {
      this.pos++;
      return { kind: 'newline' };
    }
    const io = /^(\d+)(?=[<>])/.exec(src.slice(this.pos, this.pos + 12));
    if (io) {
      this.pos += (io[1] as string).length;
      return this.redirect(Number(io[1]));
    }
    if (c === '<' || c === '>') return this.redirect(undefined);
    const two = src.slice(this.pos, this.pos + 2);
    if (two === '&&' || two === '||' || two === ';;') {
      this.pos += 2;
      return { kind: 'operator', op: two };
    }
    if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
      this.pos++;
      return { kind: 'operator', op: c };
    }
    return this.word();
  }

  private redirect(fd: number | undefined): Token {
    const { src } = this;
    const c = src[this.pos];
    const n = src[this.pos + 1];
    if (c === '<' && n === '<') throw new Unsupported('here-documents (<<) are not supported by the simulated shell');
    let op: RedirectOp;
    if (c === '>') op = n === '>' ? '>>' : n === '&' ? '>&' : '>';
    else op = n === '&' ? '<&' : '<';
    this.pos += op.length;
    if (op === '>' && src[this.pos] === '|') this.pos++;
    return { kind: 'redirect', fd, op };
  }

  private word(): Token {
    const start = this.pos;
    const parts: WordPart[] = [];
    const { src } = this;
    let literal = '';
    const flush = (): void => {
      if (literal !== '') parts.push({ type: 'literal', text: literal, quoted: false });
      literal = '';
    };
    while (this.pos < src.length && !BREAK.has(src[this.pos] as string)) {
      const c = src[this.pos] as string;
      if (c === '\\') {
        flush();
        if (this.pos + 1 >= src.length) {
          this.pos++;
          parts.push({ type: 'literal', text: '\\', quoted: true });
        } else if (src[this.pos + 1] === '\n') this.pos += 2;
        else {
          parts.push({ type: 'literal', text: src[this.pos + 1] as string, quoted: true });
          this.pos += 2;
        }
      } else if (c === "'") {
        flush();
        const end = src.indexOf("'", this.pos + 1);
        if (end < 0) throw new SyntaxError('unterminated quoted string', true);
        parts.push({ type: 'literal', text: src.slice(this.pos + 1, end), quoted: true });
        this.pos = end + 1;
      } else if (c === '"') {
        flush();
        this.pos++;
        parts.push(...this.doubleQuoted());
      } else if (c === '$' || c === '`') {
        const part = this.expansion(false);
        if (part) {
          flush();
          parts.push(part);
        } else {
          literal += c;
          this.pos++;
        }
      } else {
        literal += c;
        this.pos++;
      }
    }
    flush();
    return { kind: 'word', word: { parts }, text: src.slice(start, this.pos) };
  }

  /** The parts of a double-quoted string, from after its opening quote to after its closing one. */
  private doubleQuoted(): WordPart[] {
    const { src } = this;
    const parts: WordPart[] = [];
    let text = '';
    for (;;) {
      if (this.pos >= src.length) throw new SyntaxError('unterminated quoted string', true);
      const c = src[this.pos] as string;
      if (c === '"') {
        this.pos++;
        break;
      }
      if (c === '\\' && '"\\$`\n'.includes(src[this.pos + 1] ?? '')) {
        if (src[this.pos + 1] !== '\n') text += src[this.pos + 1];
        this.pos += 2;
        continue;
      }
      const part = c === '$' || c === '`' ? this.expansion(true) : undefined;
      if (part) {
        if (text !== '') parts.push({ type: 'literal', text, quoted: true });
        text = '';
        parts.push(part);
      } else {
        text += c;
        this.pos++;
      }
    }
    // `""` is an empty word, not no word.
    if (text !== '' || parts.length === 0) parts.push({ type: 'literal', text, quoted: true });
    return parts;
  }

  /** The expansion at `pos` (`$...` or a backquote), or undefined for a lone `$` (then `pos` is unchanged). */
  private expansion(quoted: boolean): WordPart | undefined {
    const { src } = this;
    if (src[this.pos] === '`') return this.backquoted(quoted);
    const next = src[this.pos + 1];
    if (next === '(' && src[this.pos + 2] === '(') return this.arithmetic(quoted);
    if (next === '(') {
      const { script, end } = this.nested(src, this.pos + 2);
      this.pos = end;
      return { type: 'command', script, quoted };
    }
    if (next === '{') return this.braced(quoted);
    const name = NAME.exec(src.slice(this.pos + 1, this.pos + 256))?.[0] ?? (SPECIAL.has(next ?? '') ? next : undefined);
    if (name === undefined) return undefined;
    this.pos += 1 + name.length;
    return { type: 'parameter', name, quoted };
  }

  private backquoted(quoted: boolean): WordPart {
    const { src } = this;
    let inner = '';
    let i = this.pos + 1;
    for (; i < src.length && src[i] !== '`'; i++) {
      if (src[i] === '\\' && '`\\$'.includes(src[i + 1] ?? '')) i++;
      inner += src[i];
    }
    if (i >= src.length) throw new SyntaxError('unterminated `...` command substitution', true);
    this.pos = i + 1;
    // The inner text is parsed on its own: it ends where the source does.
    const { script } = this.nested(`${inner})`, 0);
    return { type: 'command', script, quoted };
  }

  private arithmetic(quoted: boolean): WordPart {
    const { src } = this;
    let depth = 0;
    for (let i = this.pos + 3; i < src.length; i++) {
      const c = src[i];
      if (c === '(') depth++;
      else if (c === ')' && depth > 0) depth--;
      else if (c === ')' && src[i + 1] === ')') {
        const expression = src.slice(this.pos + 3, i);
        this.pos = i + 2;
        return { type: 'arithmetic', expression, quoted };
      } else if (c === ')') throw new SyntaxError('unbalanced ) in $((...))');
    }
    throw new SyntaxError('unterminated $((...))', true);
  }

  /** `${NAME}`, `${#NAME}`, `${NAME:-word}` and the other modifiers. */
  private braced(quoted: boolean): WordPart {
    const { src } = this;
    let depth = 0;
    let end = -1;
    for (let i = this.pos + 2; i < src.length; i++) {
      if (src[i] === '\\') i++;
      else if (src[i] === '{') depth++;
      else if (src[i] === '}' && depth-- === 0) {
        end = i;
        break;
      }
    }
    if (end < 0) throw new SyntaxError('missing } in ${...}', true);
    const body = src.slice(this.pos + 2, end);
    this.pos = end + 1;
    const length = /^#([A-Za-z_][A-Za-z0-9_]*|[?#@*$!0-9])$/.exec(body);
    if (length) return { type: 'length', name: length[1] as string, quoted };
    const name = NAME.exec(body)?.[0] ?? (SPECIAL.has(body[0] ?? '') ? body[0] : undefined);
    if (name === undefined) throw new SyntaxError(`\${${body}}: bad substitution`);
    const rest = body.slice(name.length);
    if (rest === '') return { type: 'parameter', name, quoted };
    const op = MODIFIERS.find((m) => rest.startsWith(m));
    if (op === undefined) throw new SyntaxError(`\${${body}}: bad substitution`);
    const modifier: ParameterModifier = { op, word: this.subWord(rest.slice(op.length), quoted) };
    return { type: 'parameter', name, quoted, modifier };
  }

  /** The word of a `${NAME:-word}` modifier, lexed as a word of its own (quoted when the whole is). */
  private subWord(text: string, quoted: boolean): Word {
    if (text === '') return { parts: [] };
    const inner = new Lexer(quoted ? `"${text.replace(/"/g, '\\"')}"` : text.replace(/([ \t\n;&|()<>])/g, '\\$1'), this.nested);
    const token = inner.next();
    return token.kind === 'word' ? token.word : { parts: [{ type: 'literal', text, quoted }] };
  }
}
