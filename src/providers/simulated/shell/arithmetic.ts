/**
 * `$((...))`: integer arithmetic as sh does it, by precedence climbing: `+ - * / %`, comparisons,
 * `== !=`, `&& || !`, `? :`, parentheses, variables by name (unset or empty is 0), and the
 * assignments `= += -= *= /= %=`. Division truncates; dividing by zero is an error, not Infinity.
 */

export interface ArithmeticScope {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
}

class ArithmeticError extends Error {}

const TOKEN = /\s*(0x[0-9a-fA-F]+|\d+|[A-Za-z_][A-Za-z0-9_]*|\*\*|<=|>=|==|!=|&&|\|\||[+\-*/%]=|[-+*/%()<>!?:=])/y;
const BINARY: Readonly<Record<string, number>> = { '||': 1, '&&': 2, '==': 3, '!=': 3, '<': 4, '<=': 4, '>': 4, '>=': 4, '+': 5, '-': 5, '*': 6, '/': 6, '%': 6 };

function tokens(expression: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    if (/^\s*$/.test(expression.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(expression);
    if (!m) throw new ArithmeticError(`syntax error: invalid arithmetic operator (error token is "${expression.slice(at).trim()}")`);
    out.push(m[1] as string);
  }
  return out;
}

function truthy(n: number): number {
  return n !== 0 ? 1 : 0;
}

class Evaluator {
  private i = 0;

  constructor(private readonly list: string[], private readonly scope: ArithmeticScope) {}

  run(): number {
    if (this.list.length === 0) return 0;
    const value = this.assignment();
    if (this.i < this.list.length) throw new ArithmeticError(`syntax error in expression (error token is "${this.list[this.i] ?? ''}")`);
    return value;
  }

  private peek(): string | undefined {
    return this.list[this.i];
  }

  private assignment(): number {
    const name = this.peek();
    const op = this.list[this.i + 1];
    if (name !== undefined && /^[A-Za-z_]/.test(name) && op !== undefined && /^[+\-*/%]?=$/.test(op)) {
      this.i += 2;
      const right = this.assignment();
      const value = op === '=' ? right : this.apply(op.slice(0, -1), this.variable(name), right);
      this.scope.set(name, String(value));
      return value;
    }
    return this.ternary();
  }

  private ternary(): number {
    const condition = this.binary(1);
    if (this.peek() !== '?') return condition;
    this.i++;
    const yes = this.assignment();
    if (this.list[this.i++] !== ':') throw new ArithmeticError('syntax error: expected : in ?:');
    const no = this.assignment();
    return condition !== 0 ? yes : no;
  }

  private binary(min: number): number {
    let left = this.unary();
    for (let op = this.peek(); op !== undefined && (BINARY[op] ?? 0) >= min; op = this.peek()) {
      this.i++;
      const right = this.binary((BINARY[op] ?? 0) + 1);
      left = this.apply(op, left, right);
    }
    return left;
  }

  private apply(op: string, a: number, b: number): number {
    switch (op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/':
      case '%':
        if (b === 0) throw new ArithmeticError('division by zero');
        return op === '/' ? Math.trunc(a / b) : a % b;
      case '<': return a < b ? 1 : 0;
      case '<=': return a <= b ? 1 : 0;
      case '>': return a > b ? 1 : 0;
      case '>=': return a >= b ? 1 : 0;
      case '==': return a === b ? 1 : 0;
      case '!=': return a !== b ? 1 : 0;
      case '&&': return truthy(a) & truthy(b);
      case '||': return truthy(a) | truthy(b);
      default: throw new ArithmeticError(`unknown operator ${op}`);
    }
  }

  private unary(): number {
    const token = this.list[this.i++];
    if (token === undefined) throw new ArithmeticError('syntax error: operand expected');
    if (token === '-') return -this.unary();
    if (token === '+') return this.unary();
    if (token === '!') return this.unary() === 0 ? 1 : 0;
    if (token === '(') {
      const value = this.assignment();
      if (this.list[this.i++] !== ')') throw new ArithmeticError('syntax error: missing )');
      return value;
    }
    if (/^\d/.test(token)) return Number(token);
    if (/^[A-Za-z_]/.test(token)) return this.variable(token);
    throw new ArithmeticError(`syntax error: operand expected (error token is "${token}")`);
  }

  private variable(name: string): number {
    const raw = (this.scope.get(name) ?? '').trim();
    if (raw === '') return 0;
    const value = Number(raw);
    if (!Number.isInteger(value)) throw new ArithmeticError(`${raw}: expression recursion or bad number`);
    return value;
  }
}

/** The expression's value, or the error sh would print after `sh: arithmetic: `. */
export function evaluateArithmetic(expression: string, scope: ArithmeticScope): { value: number } | { error: string } {
  try {
    const value = new Evaluator(tokens(expression), scope).run();
    return { value: Number.isSafeInteger(value) ? value : Math.trunc(value) };
  } catch (error) {
    if (error instanceof ArithmeticError) return { error: error.message };
    if (error instanceof RangeError) return { error: 'expression nested too deeply' };
    throw error;
  }
}
