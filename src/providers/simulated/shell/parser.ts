/**
 * The shell grammar, by recursive descent over the lexer's tokens: lists, `&&`/`||`, pipelines,
 * simple commands with assignments and redirections, `if`, `while`/`until`, `for`, `{ }`, `( )`
 * and `name() { }`. `parse` never throws: bad input is an answer (`ok: false`) with the message a
 * shell would print, and the script length and nesting depth are bounded.
 */
import type { AndOr, Assignment, Command, List, Pipeline, Redirection, Script, Word } from './ast.js';
import { Unsupported } from './context.js';
import { Lexer, SyntaxError, type Token } from './lexer.js';
import { definedOnly } from '../../../lib/defaults.js';
import { DEFAULT_LIMITS, type ShellLimits } from './limits.js';

export type ParseResult =
  | { readonly ok: true; readonly script: Script }
  | { readonly ok: false; readonly error: string; readonly incomplete: boolean; readonly unsupported?: true };

const RESERVED = new Set(['if', 'then', 'elif', 'else', 'fi', 'while', 'until', 'for', 'in', 'do', 'done', '{', '}', '!', 'case', 'esac']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/;

/** The word's text when it is a plain unquoted literal (a reserved word can only be one). */
function plain(token: Token): string | undefined {
  if (token.kind !== 'word') return undefined;
  const [only, ...more] = token.word.parts;
  return only?.type === 'literal' && !only.quoted && more.length === 0 ? only.text : undefined;
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'word': return token.text;
    case 'operator': return token.op;
    case 'redirect': return `${token.fd ?? ''}${token.op}`;
    case 'newline': return 'newline';
    case 'end': return 'end of file';
  }
}

class Parser {
  private readonly lexer: Lexer;
  private peeked: Token | undefined;
  private depth: number;

  constructor(private readonly src: string, private readonly limits: ShellLimits, start: number, depth: number) {
    this.depth = depth;
    this.lexer = new Lexer(src, (source, at) => this.nested(source, at), start);
  }

  get position(): number {
    return this.lexer.pos;
  }

  script(): Script {
    const body = this.list(new Set());
    const left = this.peek();
    if (left.kind !== 'end') this.unexpected(left);
    return { type: 'script', body };
  }

  /** A `$(...)` from `start`: a list up to its `)`, which it consumes without looking further. */
  closedByParen(): Script {
    const body = this.list(new Set());
    const close = this.take();
    if (close.kind === 'end') throw new SyntaxError('missing ) of $(...)', true);
    if (close.kind !== 'operator' || close.op !== ')') this.unexpected(close);
    return { type: 'script', body };
  }

  private nested(source: string, start: number): { script: Script; end: number } {
    const inner = new Parser(source, this.limits, start, this.enter());
    const script = inner.closedByParen();
    this.depth--;
    return { script, end: inner.position };
  }

  private enter(): number {
    if (++this.depth > this.limits.depth) throw new SyntaxError(`nesting deeper than ${this.limits.depth} levels`);
    return this.depth;
  }

  private peek(): Token {
    this.peeked ??= this.lexer.next();
    return this.peeked;
  }

  private take(): Token {
    const token = this.peek();
    this.peeked = undefined;
    return token;
  }

  private unexpected(token: Token): never {
    throw new SyntaxError(`unexpected ${describe(token)}`, token.kind === 'end');
  }

  private skipNewlines(): void {
    while (this.peek().kind === 'newline') this.take();
  }

  private expectWord(word: string): void {
    this.skipNewlines();
    const token = this.take();
    if (plain(token) !== word) {
      if (token.kind === 'end') throw new SyntaxError(`missing ${word}`, true);
      this.unexpected(token);
    }
  }

  /** Items until a reserved word of `stop`, a `)`, or the end. */
  private list(stop: ReadonlySet<string>, inCase = false): List {
    const items: { andOr: AndOr; background: boolean }[] = [];
    for (;;) {
      this.skipNewlines();
      const token = this.peek();
      const word = plain(token);
      if (token.kind === 'end' || (token.kind === 'operator' && (token.op === ')' || (inCase && token.op === ';;'))) || (word !== undefined && stop.has(word))) break;
      const andOr = this.andOr();
      const sep = this.peek();
      const background = sep.kind === 'operator' && sep.op === '&';
      items.push({ andOr, background });
      if (sep.kind === 'operator' && (sep.op === ';' || sep.op === '&')) this.take();
      else if (sep.kind !== 'newline' && sep.kind !== 'end' && !(sep.kind === 'operator' && (sep.op === ')' || (inCase && sep.op === ';;'))) && !(plain(sep) !== undefined && stop.has(plain(sep) as string))) this.unexpected(sep);
    }
    return { items };
  }

  private andOr(): AndOr {
    const first = this.pipeline();
    const rest: { op: '&&' | '||'; pipeline: Pipeline }[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'operator' || (token.op !== '&&' && token.op !== '||')) return { first, rest };
      this.take();
      this.skipNewlines();
      rest.push({ op: token.op, pipeline: this.pipeline() });
    }
  }

  private pipeline(): Pipeline {
    let negated = false;
    if (plain(this.peek()) === '!') {
      this.take();
      negated = true;
    }
    const commands = [this.command()];
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'operator' || token.op !== '|') return { negated, commands };
      this.take();
      this.skipNewlines();
      commands.push(this.command());
    }
  }

  private command(): Command {
    const token = this.peek();
    const word = plain(token);
    if (token.kind === 'operator' && token.op === '(') {
      this.take();
      this.enter();
      const body = this.list(new Set());
      const close = this.take();
      if (close.kind !== 'operator' || close.op !== ')') {
        if (close.kind === 'end') throw new SyntaxError('missing )', true);
        this.unexpected(close);
      }
      this.depth--;
      return { type: 'subshell', body, redirections: this.redirections() };
    }
    if (word === 'if' || word === 'while' || word === 'until' || word === 'for' || word === '{' || word === 'case') {
      this.take();
      this.enter();
      const made = this.compound(word);
      this.depth--;
      return made;
    }
    if (word !== undefined && RESERVED.has(word)) this.unexpected(token);
    return this.simple();
  }

  private compound(word: 'if' | 'while' | 'until' | 'for' | '{' | 'case'): Command {
    switch (word) {
      case 'case': return this.caseCommand();
      case 'if': {
        const branches: { condition: List; body: List }[] = [];
        let otherwise: List | undefined;
        for (let more = true; more;) {
          const condition = this.list(new Set(['then']));
          this.expectWord('then');
          const body = this.list(new Set(['elif', 'else', 'fi']));
          branches.push({ condition, body });
          const next = plain(this.take());
          if (next === 'else') {
            otherwise = this.list(new Set(['fi']));
            this.expectWord('fi');
            more = false;
          } else if (next === 'fi') more = false;
          else if (next !== 'elif') throw new SyntaxError('missing fi', true);
        }
        return { type: 'if', branches, ...definedOnly({ otherwise }), redirections: this.redirections() };
      }
      case 'while':
      case 'until': {
        const condition = this.list(new Set(['do']));
        this.expectWord('do');
        const body = this.doneBody();
        return { type: 'loop', until: word === 'until', condition, body, redirections: this.redirections() };
      }
      case 'for': {
        const name = plain(this.take());
        if (name === undefined || !NAME.test(name)) throw new SyntaxError('bad for loop variable');
        let items: Word[] | undefined;
        this.skipNewlines();
        if (plain(this.peek()) === 'in') {
          this.take();
          items = [];
          for (let t = this.peek(); t.kind === 'word'; t = this.peek()) items.push((this.take() as { word: Word }).word);
          const sep = this.peek();
          if (sep.kind === 'operator' && sep.op === ';') this.take();
        } else if (this.peek().kind === 'operator') this.take();
        this.expectWord('do');
        const body = this.doneBody();
        return { type: 'for', name, ...definedOnly({ items }), body, redirections: this.redirections() };
      }
      case '{': {
        const body = this.list(new Set(['}']));
        this.expectWord('}');
        return { type: 'group', body, redirections: this.redirections() };
      }
    }
  }

  /** `case WORD in [(]PATTERN[|PATTERN]) LIST ;; ... esac`. */
  private caseCommand(): Command {
    const subject = this.take();
    if (subject.kind !== 'word') throw new SyntaxError('missing word after case', subject.kind === 'end');
    this.expectWord('in');
    const arms: { patterns: Word[]; body: List }[] = [];
    for (;;) {
      this.skipNewlines();
      let token = this.take();
      if (plain(token) === 'esac') break;
      if (token.kind === 'operator' && token.op === '(') token = this.take();
      const patterns: Word[] = [];
      for (;;) {
        if (token.kind !== 'word') throw new SyntaxError(token.kind === 'end' ? 'missing esac' : `unexpected ${describe(token)} in case`, token.kind === 'end');
        patterns.push(token.word);
        const next = this.take();
        if (next.kind === 'operator' && next.op === ')') break;
        if (next.kind !== 'operator' || next.op !== '|') this.unexpected(next);
        token = this.take();
      }
      const body = this.list(new Set(['esac']), true);
      arms.push({ patterns, body });
      const end = this.peek();
      if (end.kind === 'operator' && end.op === ';;') this.take();
      else if (plain(end) !== 'esac') throw new SyntaxError('missing ;; or esac', end.kind === 'end');
    }
    return { type: 'case', subject: subject.word, arms, redirections: this.redirections() };
  }

  private doneBody(): List {
    const body = this.list(new Set(['done']));
    this.expectWord('done');
    return body;
  }

  private redirections(): Redirection[] {
    const out: Redirection[] = [];
    while (this.peek().kind === 'redirect') out.push(this.redirection());
    return out;
  }

  private redirection(): Redirection {
    const token = this.take();
    if (token.kind !== 'redirect') this.unexpected(token);
    const target = this.take();
    if (target.kind !== 'word') throw new SyntaxError(`missing file name after ${token.op}`, target.kind === 'end');
    const fd = token.fd ?? (token.op === '<' || token.op === '<&' ? 0 : 1);
    return { fd, op: token.op, target: target.word };
  }

  private simple(): Command {
    const assignments: Assignment[] = [];
    const words: Word[] = [];
    const redirections: Redirection[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind === 'redirect') {
        redirections.push(this.redirection());
        continue;
      }
      if (token.kind !== 'word') break;
      this.take();
      const first = token.word.parts[0];
      const assignment = words.length === 0 && first?.type === 'literal' && !first.quoted ? ASSIGNMENT.exec(first.text) : null;
      if (assignment) {
        const name = assignment[1] as string;
        const rest = first?.type === 'literal' ? first.text.slice(name.length + 1) : '';
        const parts = [...(rest === '' ? [] : [{ type: 'literal' as const, text: rest, quoted: false }]), ...token.word.parts.slice(1)];
        assignments.push({ name, value: { parts } });
        continue;
      }
      const next = this.peek();
      if (words.length === 0 && assignments.length === 0 && next.kind === 'operator' && next.op === '(' && plain(token) !== undefined && NAME.test(plain(token) as string)) {
        return this.functionDefinition(plain(token) as string);
      }
      words.push(token.word);
    }
    if (words.length === 0 && assignments.length === 0 && redirections.length === 0) this.unexpected(this.peek());
    return { type: 'simple', assignments, words, redirections };
  }

  private functionDefinition(name: string): Command {
    this.take();
    const close = this.take();
    if (close.kind !== 'operator' || close.op !== ')') this.unexpected(close);
    this.skipNewlines();
    const body = this.command();
    if (body.type === 'simple') throw new SyntaxError(`function ${name}: the body must be a compound command such as { ...; }`);
    return { type: 'function', name, body, redirections: [] };
  }
}

/** The script's syntax tree, or the error a shell would report. */
export function parse(source: string, limits: ShellLimits = DEFAULT_LIMITS): ParseResult {
  if (source.length > limits.scriptLength) return { ok: false, error: `script longer than ${limits.scriptLength} characters`, incomplete: false };
  try {
    return { ok: true, script: new Parser(source, limits, 0, 0).script() };
  } catch (error) {
    if (error instanceof SyntaxError) return { ok: false, error: error.message, incomplete: error.incomplete };
    if (error instanceof Unsupported) return { ok: false, error: error.message, incomplete: false, unsupported: true };
    // A stack overflow from input the depth bound did not catch is still an answer, never a crash.
    if (error instanceof RangeError) return { ok: false, error: 'script nested too deeply', incomplete: false };
    throw error;
  }
}
