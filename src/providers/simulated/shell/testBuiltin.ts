/**
 * `test EXPR` and `[ EXPR ]`: `! ( ) -a -o`, the file tests `-e -f -d -s -r -w -x`, the string
 * tests `-z -n = == !=`, and the integer comparisons `-eq -ne -lt -le -gt -ge`. Status 0 true,
 * 1 false, 2 for a malformed expression (with sh's message).
 */
import type { Builtin } from './context.js';
import { normalizePath, type ShellFileSystem } from './fileSystem.js';

class TestError extends Error {}

const FILE_TESTS = new Set(['-e', '-f', '-d', '-s', '-r', '-w', '-x', '-h', '-L']);
const INTEGER_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const STRING_TESTS = new Set(['=', '==', '!=', '<', '>']);

function integer(text: string): number {
  if (!/^\s*[-+]?\d+\s*$/.test(text)) throw new TestError(`${text === '' ? "''" : text}: integer expression expected`);
  return Number(text);
}

class TestParser {
  private i = 0;

  constructor(private readonly args: readonly string[], private readonly fs: ShellFileSystem, private readonly cwd: string) {}

  run(): boolean {
    if (this.args.length === 0) return false;
    const value = this.or();
    if (this.i < this.args.length) throw new TestError(`${this.args[this.i] ?? ''}: unexpected operator`);
    return value;
  }

  private or(): boolean {
    let value = this.and();
    while (this.args[this.i] === '-o') {
      this.i++;
      value = this.and() || value;
    }
    return value;
  }

  private and(): boolean {
    let value = this.not();
    while (this.args[this.i] === '-a') {
      this.i++;
      value = this.not() && value;
    }
    return value;
  }

  private not(): boolean {
    // `! x` negates, unless `!` is the left side of a binary operator (`[ ! = x ]`).
    if (this.args[this.i] === '!' && !this.binaryAt(this.i + 1)) {
      this.i++;
      return !this.not();
    }
    return this.primary();
  }

  private binaryAt(i: number): boolean {
    const op = this.args[i];
    return op !== undefined && (STRING_TESTS.has(op) || INTEGER_TESTS.has(op)) && this.args[i + 1] !== undefined;
  }

  private primary(): boolean {
    const arg = this.args[this.i];
    if (arg === undefined) throw new TestError('argument expected');
    if (arg === '(' && !this.binaryAt(this.i + 1)) {
      this.i++;
      const value = this.or();
      if (this.args[this.i++] !== ')') throw new TestError('missing )');
      return value;
    }
    if (this.binaryAt(this.i + 1)) {
      const op = this.args[this.i + 1] as string;
      const right = this.args[this.i + 2] as string;
      this.i += 3;
      return this.binary(arg, op, right);
    }
    const operand = this.args[this.i + 1];
    if ((FILE_TESTS.has(arg) || arg === '-z' || arg === '-n') && operand !== undefined) {
      this.i += 2;
      return this.unary(arg, operand);
    }
    this.i++;
    return arg !== '';
  }

  private unary(op: string, operand: string): boolean {
    if (op === '-z') return operand === '';
    if (op === '-n') return operand !== '';
    const path = normalizePath(operand, this.cwd);
    const content = this.fs.read(path);
    const directory = this.fs.isDirectory(path);
    switch (op) {
      case '-f': return content !== undefined;
      case '-d': return directory;
      case '-s': return content !== undefined && content !== '';
      case '-h':
      case '-L': return false;
      default: return content !== undefined || directory;
    }
  }

  private binary(left: string, op: string, right: string): boolean {
    switch (op) {
      case '=':
      case '==': return left === right;
      case '!=': return left !== right;
      case '<': return left < right;
      case '>': return left > right;
      default: {
        const a = integer(left);
        const b = integer(right);
        return op === '-eq' ? a === b : op === '-ne' ? a !== b : op === '-lt' ? a < b : op === '-le' ? a <= b : op === '-gt' ? a > b : a >= b;
      }
    }
  }
}

/** Whether the expression holds, or the message of a malformed one. */
export function evaluateTest(args: readonly string[], fs: ShellFileSystem, cwd = '/'): boolean | string {
  try {
    return new TestParser(args, fs, cwd).run();
  } catch (error) {
    if (error instanceof TestError) return error.message;
    throw error;
  }
}

export const test: Builtin = async (ctx) => {
  let args = ctx.args;
  if (ctx.name === '[') {
    if (args[args.length - 1] !== ']') {
      await ctx.stderr('sh: [: missing ]\n');
      return 2;
    }
    args = args.slice(0, -1);
  }
  const result = evaluateTest(args, ctx.shell.fs, ctx.shell.cwd);
  if (typeof result === 'string') {
    await ctx.stderr(`sh: ${ctx.name}: ${result}\n`);
    return 2;
  }
  return result ? 0 : 1;
};
