/**
 * Builtins about the process and the machine: `sleep` (on the injected clock, `infinity` until a
 * signal), `date` (the injected clock, UTC, `+FORMAT`), `hostname`, `true`, `false`, `:`,
 * `stty size`, `expr`, `basename`, `dirname`, `uname`, and `tar`, which is not there.
 */
import { Unsupported, type Builtin } from './context.js';

const UNITS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };

/** `sleep N[smhd]...` summed, or `sleep infinity`. */
const sleep: Builtin = async (ctx) => {
  let seconds = 0;
  for (const arg of ctx.args) {
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
    if (arg === 'infinity' || arg === 'inf') seconds = Infinity;
    else if (m) seconds += Number(m[1]) * (UNITS[m[2] as string] ?? 1);
    else {
      await ctx.stderr(`sleep: invalid number '${arg}'\n`);
      return 1;
    }
  }
  if (ctx.args.length === 0) {
    await ctx.stderr('sleep: missing operand\n');
    return 1;
  }
  return ctx.shell.sleep(seconds === Infinity ? Infinity : seconds * 1000);
};

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The `date +FORMAT` directives, in UTC (a container's default time zone). */
export function formatDate(ms: number, format: string): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  const directives: Readonly<Record<string, () => string>> = {
    s: () => String(Math.floor(ms / 1000)),
    Y: () => String(d.getUTCFullYear()),
    y: () => two(d.getUTCFullYear() % 100),
    m: () => two(d.getUTCMonth() + 1),
    d: () => two(d.getUTCDate()),
    e: () => String(d.getUTCDate()).padStart(2),
    H: () => two(d.getUTCHours()),
    M: () => two(d.getUTCMinutes()),
    S: () => two(d.getUTCSeconds()),
    N: () => String(d.getUTCMilliseconds() * 1_000_000).padStart(9, '0'),
    a: () => DAYS[d.getUTCDay()] as string,
    b: () => MONTHS[d.getUTCMonth()] as string,
    j: () => String(Math.floor((ms - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1).padStart(3, '0'),
    F: () => `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`,
    T: () => `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`,
    Z: () => 'UTC',
    z: () => '+0000',
    n: () => '\n',
    t: () => '\t',
    '%': () => '%',
  };
  return format.replace(/%(.)/g, (match, c: string) => directives[c]?.() ?? match);
}

const date: Builtin = async (ctx) => {
  const now = ctx.shell.now();
  let format = '%a %b %e %T %Z %Y';
  for (const arg of ctx.args) {
    if (arg.startsWith('+')) format = arg.slice(1);
    else if (arg === '-I' || arg === '--iso-8601' || arg === '-Iseconds' || arg === '--iso-8601=seconds') format = arg.includes('seconds') ? '%FT%T+00:00' : '%F';
    else if (arg === '-R') format = '%a, %d %b %Y %T +0000';
    else if (arg !== '-u' && arg !== '--utc') throw new Unsupported(`date: option '${arg}' is not supported by the simulated shell (its date prints now: +FORMAT, -u, -I, -R)`);
  }
  await ctx.stdout(`${formatDate(now, format)}\n`);
  return 0;
};

const hostname: Builtin = async (ctx) => {
  await ctx.stdout(`${ctx.shell.hostname}\n`);
  return 0;
};

const stty: Builtin = async (ctx) => {
  if (!ctx.shell.tty) {
    await ctx.stderr('stty: standard input: Not a tty\n');
    return 1;
  }
  const size = ctx.shell.terminalSize();
  if (ctx.args[0] === 'size') await ctx.stdout(`${size?.height ?? 0} ${size?.width ?? 0}\n`);
  return 0;
};

/** `expr A OP B` over integers (`+ - * / % < <= = != >= >`) and `expr length S`; status 1 when the result is 0 or empty. */
const expr: Builtin = async (ctx) => {
  const [a, op, b] = ctx.args;
  let result: string;
  if (a === 'length' && op !== undefined && b === undefined) result = String(op.length);
  else if (a !== undefined && op === undefined) result = a;
  else if (a !== undefined && op !== undefined && b !== undefined && ctx.args.length === 3) {
    const x = Number(a);
    const y = Number(b);
    const numeric = /^-?\d+$/.test(a) && /^-?\d+$/.test(b);
    const compare = (r: boolean): string => (r ? '1' : '0');
    switch (op) {
      case '+': case '-': case '*': case '/': case '%': {
        if (!numeric) return (await ctx.stderr('expr: non-integer argument\n'), 2);
        if ((op === '/' || op === '%') && y === 0) return (await ctx.stderr('expr: division by zero\n'), 2);
        result = String(op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? Math.trunc(x / y) : x % y);
        break;
      }
      case '=': result = compare(numeric ? x === y : a === b); break;
      case '!=': result = compare(numeric ? x !== y : a !== b); break;
      case '<': result = compare(numeric ? x < y : a < b); break;
      case '<=': result = compare(numeric ? x <= y : a <= b); break;
      case '>': result = compare(numeric ? x > y : a > b); break;
      case '>=': result = compare(numeric ? x >= y : a >= b); break;
      default: return (await ctx.stderr(`expr: syntax error: unexpected argument '${op}'\n`), 2);
    }
  } else return (await ctx.stderr('expr: syntax error (the simulated expr takes A OP B or length S)\n'), 2);
  await ctx.stdout(`${result}\n`);
  return result === '0' || result === '' ? 1 : 0;
};

const basename: Builtin = async (ctx) => {
  const [path = '', suffix] = ctx.args;
  let base = path.replace(/\/+$/, '').split('/').pop() ?? '';
  if (suffix !== undefined && base.endsWith(suffix) && base !== suffix) base = base.slice(0, -suffix.length);
  await ctx.stdout(`${base || '/'}\n`);
  return 0;
};

const dirname: Builtin = async (ctx) => {
  const path = (ctx.args[0] ?? '').replace(/\/+$/, '');
  const at = path.lastIndexOf('/');
  await ctx.stdout(`${at < 0 ? '.' : at === 0 ? '/' : path.slice(0, at)}\n`);
  return 0;
};

const uname: Builtin = async (ctx) => {
  await ctx.stdout(ctx.args.includes('-a') ? `Linux ${ctx.shell.hostname} simulated\n` : ctx.args.includes('-n') ? `${ctx.shell.hostname}\n` : 'Linux\n');
  return 0;
};

const tar: Builtin = async (ctx) => {
  await ctx.stderr('sh: tar: not found (the simulated provider has no tar, so kubectl cp cannot copy files)\n');
  return 127;
};

const status = (code: number): Builtin => () => Promise.resolve(code);

export const SYSTEM_BUILTINS: ReadonlyMap<string, Builtin> = new Map([
  ['sleep', sleep], ['date', date], ['hostname', hostname], ['stty', stty], ['expr', expr],
  ['basename', basename], ['dirname', dirname], ['uname', uname], ['tar', tar],
  ['true', status(0)], [':', status(0)], ['false', status(1)],
]);
