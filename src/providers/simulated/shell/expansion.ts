/**
 * Word expansion as sh does it, in order: parameters (`$NAME`, `${NAME:-word}`, `$#`, `"$@"`),
 * command substitution (trailing newlines removed), arithmetic, then field splitting of the
 * unquoted results on spaces, tabs and newlines. No pathname expansion: `*` stays a `*`.
 */
import type { Script, Word, WordPart } from './ast.js';
import { evaluateArithmetic } from './arithmetic.js';
import { LimitExceeded } from './limits.js';

export interface ExpansionScope {
  /** A variable or special parameter (`?`, `#`, `$`, `!`, `0`–`9`); undefined when unset. */
  variable(name: string): string | undefined;
  setVariable(name: string, value: string): void;
  positional(): readonly string[];
  /** The stdout of `script` run in a subshell. */
  substitute(script: Script): Promise<string>;
  readonly maxLength: number;
}

/** An expansion failed (`${X:?}`, bad arithmetic): the command fails with this message. */
export class ExpansionError extends Error {}

/** Fields of one word being built. */
class Fields {
  readonly out: string[] = [];
  private current = '';
  private started = false;

  constructor(private readonly max: number) {}

  add(text: string, quoted: boolean): void {
    if (text === '' && !quoted) return;
    this.current += text;
    this.started = true;
    if (this.current.length > this.max) throw new LimitExceeded(`word longer than ${this.max} characters`);
  }

  /** Unquoted expansion results split on whitespace; leading/trailing whitespace ends fields. */
  split(text: string): void {
    if (text === '') return;
    const pieces = text.split(/[ \t\n]+/);
    pieces.forEach((piece, i) => {
      if (i > 0) this.flush();
      if (piece !== '') this.add(piece, false);
    });
  }

  flush(): void {
    if (this.started) this.out.push(this.current);
    this.current = '';
    this.started = false;
  }
}

async function parameterValue(part: Extract<WordPart, { type: 'parameter' }>, scope: ExpansionScope): Promise<string> {
  const value = part.name === '@' || part.name === '*' ? (scope.positional().length > 0 ? scope.positional().join(' ') : undefined) : scope.variable(part.name);
  const modifier = part.modifier;
  if (!modifier) return value ?? '';
  const colon = modifier.op.startsWith(':');
  const missing = value === undefined || (colon && value === '');
  const word = async (): Promise<string> => expandToString(modifier.word, scope);
  switch (modifier.op.replace(':', '')) {
    case '-': return missing ? word() : value ?? '';
    case '=': {
      if (!missing) return value ?? '';
      const assigned = await word();
      scope.setVariable(part.name, assigned);
      return assigned;
    }
    case '+': return missing ? '' : word();
    default: {
      if (!missing) return value ?? '';
      const message = await word();
      throw new ExpansionError(`${part.name}: ${message === '' ? 'parameter not set' : message}`);
    }
  }
}

async function partValue(part: WordPart, scope: ExpansionScope): Promise<string> {
  switch (part.type) {
    case 'literal': return part.text;
    case 'parameter': return parameterValue(part, scope);
    case 'length': return String((part.name === '@' || part.name === '*' ? String(scope.positional().length) : scope.variable(part.name) ?? '').length);
    case 'command': return (await scope.substitute(part.script)).replace(/\n+$/, '');
    case 'arithmetic': {
      // Parameters inside are expanded first, as sh does; bare names are read by the evaluator.
      const expression = part.expression.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*|[?#$!0-9])\}?/g, (_m, name: string) => scope.variable(name) ?? '');
      const result = evaluateArithmetic(expression, { get: (n) => scope.variable(n), set: (n, v) => scope.setVariable(n, v) });
      if ('error' in result) throw new ExpansionError(`arithmetic: ${result.error}`);
      return String(result.value);
    }
  }
}

/** The fields of `words` after expansion and splitting (an unquoted empty expansion is no field). */
export async function expandWords(words: readonly Word[], scope: ExpansionScope): Promise<string[]> {
  const out: string[] = [];
  for (const word of words) {
    const fields = new Fields(scope.maxLength);
    for (const part of word.parts) {
      if (part.type === 'parameter' && part.name === '@' && part.quoted && !part.modifier) {
        // "$@": one field per argument, joined to the text around it at both ends.
        scope.positional().forEach((arg, i) => {
          if (i > 0) fields.flush();
          fields.add(arg, true);
        });
        continue;
      }
      const value = await partValue(part, scope);
      if (part.quoted || part.type === 'literal') fields.add(value, part.quoted);
      else fields.split(value);
    }
    fields.flush();
    out.push(...fields.out);
  }
  return out;
}

/** One word expanded without splitting: an assignment's value, a redirection's target. */
export async function expandToString(word: Word, scope: ExpansionScope): Promise<string> {
  let text = '';
  for (const part of word.parts) {
    text += await partValue(part, scope);
    if (text.length > scope.maxLength) throw new LimitExceeded(`word longer than ${scope.maxLength} characters`);
  }
  return text;
}
