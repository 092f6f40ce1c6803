/**
 * Builtins that read and write text: `echo`, `printf`, `cat`, `tee`, `wc`, `grep`, `head`,
 * `tail`, `seq`, `env`, `printenv`. Files are read through the shell's file system; with no file
 * (or `-`) they read stdin. Messages follow busybox's.
 */
import { Unsupported, type Builtin, type CommandContext } from './context.js';
import { normalizePath } from './fileSystem.js';

/** Flags before the operands (`-n 3`, `-n3`, `-3`, `-vi`), and the operands. */
function options(args: readonly string[], withValue: ReadonlySet<string>): { flags: Map<string, string>; operands: string[] } {
  const flags = new Map<string, string>();
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-') || arg === '-') break;
    if (/^-\d+$/.test(arg)) {
      flags.set('n', arg.slice(1));
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const flag = arg[j] as string;
      if (withValue.has(flag)) {
        flags.set(flag, arg.slice(j + 1) || (args[++i] ?? ''));
        break;
      }
      flags.set(flag, '');
    }
  }
  return { flags, operands: args.slice(i) };
}

/** Each source's text (stdin for none or `-`), or undefined after printing the error for a missing one. */
async function* sources(ctx: CommandContext, files: readonly string[]): AsyncGenerator<{ name: string; text: string | undefined }> {
  const max = ctx.shell.limits.outputBytes;
  for (const file of files.length === 0 ? ['-'] : files) {
    if (file === '-') {
      yield { name: file, text: await ctx.stdin.readAll(max) };
      continue;
    }
    const path = normalizePath(file, ctx.shell.cwd);
    const text = ctx.shell.fs.read(path);
    if (text === undefined) await ctx.stderr(`${ctx.name}: ${file}: ${ctx.shell.fs.isDirectory(path) ? 'Is a directory' : 'No such file or directory'}\n`);
    yield { name: file, text };
  }
}

function lines(text: string): string[] {
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  return all;
}

const echo: Builtin = async (ctx) => {
  let args = ctx.args;
  let newline = true;
  let escapes = false;
  while (args[0] !== undefined && /^-[neE]+$/.test(args[0])) {
    if (args[0].includes('n')) newline = false;
    if (args[0].includes('e')) escapes = true;
    args = args.slice(1);
  }
  const text = args.join(' ');
  await ctx.stdout(`${escapes ? unescape(text) : text}${newline ? '\n' : ''}`);
  return 0;
};

function unescape(text: string): string {
  return text.replace(/\\([nt\\r0]|x[0-9a-fA-F]{1,2})/g, (_m, e: string) => (e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e === '0' ? '' : e === '\\' ? '\\' : String.fromCharCode(parseInt(e.slice(1), 16))));
}

const CONVERSION = /%([-+ 0#]*)(\d*)(?:\.(\d*))?([sdiuxXocb%])/g;

/** `printf FORMAT ARGS...`: %s %d %i %u %x %X %o %c %b %% with flags, width and precision; the format repeats while arguments remain. */
const printf: Builtin = async (ctx) => {
  const [format, ...args] = ctx.args;
  if (format === undefined) {
    await ctx.stderr('printf: usage: printf FORMAT [ARGUMENT...]\n');
    return 2;
  }
  let out = '';
  let next = 0;
  let code = 0;
  do {
    const before = next;
    out += unescape(format).replace(CONVERSION, (_m, flags: string, width: string, precision: string | undefined, conv: string) => {
      if (conv === '%') return '%';
      const arg = args[next++] ?? '';
      let text: string;
      if ('diuxXo'.includes(conv)) {
        const n = arg === '' ? 0 : Number(arg);
        if (!Number.isFinite(n)) {
          code = 1;
          void ctx.stderr(`printf: invalid number '${arg}'\n`).catch(() => undefined);
        }
        const int = Math.trunc(Number.isFinite(n) ? n : 0);
        text = conv === 'x' ? int.toString(16) : conv === 'X' ? int.toString(16).toUpperCase() : conv === 'o' ? int.toString(8) : String(int);
        if (flags.includes('+') && int >= 0 && 'di'.includes(conv)) text = `+${text}`;
      } else if (conv === 'c') text = arg.slice(0, 1);
      else text = conv === 'b' ? unescape(arg) : arg;
      if (precision !== undefined && 'sb'.includes(conv)) text = text.slice(0, Number(precision || '0'));
      const w = Number(width || '0');
      if (text.length < w) text = flags.includes('-') ? text.padEnd(w) : flags.includes('0') && !'sbc'.includes(conv) ? text.padStart(w, '0') : text.padStart(w);
      return text;
    });
    if (next === before) break;
  } while (next < args.length);
  await ctx.stdout(out);
  return code;
};

const cat: Builtin = async (ctx) => {
  let code = 0;
  const files = ctx.args.filter((a) => a === '-' || !a.startsWith('-'));
  if (files.length === 0 || (files.length === 1 && files[0] === '-')) {
    for (let chunk = await ctx.stdin.read(); chunk !== undefined; chunk = await ctx.stdin.read()) await ctx.stdout(chunk);
    return 0;
  }
  for await (const { text } of sources(ctx, files)) {
    if (text === undefined) code = 1;
    else await ctx.stdout(text);
  }
  return code;
};

const tee: Builtin = async (ctx) => {
  const { flags, operands } = options(ctx.args, new Set());
  const append = flags.has('a');
  let code = 0;
  for (const file of operands) {
    const failed = ctx.shell.fs.write(normalizePath(file, ctx.shell.cwd), '', { append });
    if (failed !== undefined) code = (await ctx.stderr(`tee: ${file}: ${failed}\n`), 1);
  }
  for (let chunk = await ctx.stdin.read(); chunk !== undefined; chunk = await ctx.stdin.read()) {
    for (const file of operands) ctx.shell.fs.write(normalizePath(file, ctx.shell.cwd), chunk, { append: true });
    await ctx.stdout(chunk);
  }
  return code;
};

/** `wc [-l] [-w] [-c] [FILE...]`: counts alone for stdin, with the file name for a file. */
const wc: Builtin = async (ctx) => {
  const { flags, operands } = options(ctx.args, new Set());
  const wanted = ['l', 'w', 'c'].filter((f) => flags.has(f) || (f === 'c' && flags.has('m')));
  const shown = wanted.length > 0 ? wanted : ['l', 'w', 'c'];
  let code = 0;
  for await (const { name, text } of sources(ctx, operands)) {
    if (text === undefined) {
      code = 1;
      continue;
    }
    const counts: Record<string, number> = { l: (text.match(/\n/g) ?? []).length, w: text.split(/\s+/).filter(Boolean).length, c: Buffer.byteLength(text) };
    const figures = shown.map((f) => String(counts[f]));
    const row = shown.length === 1 ? figures.join(' ') : figures.map((f) => f.padStart(7)).join(' ');
    await ctx.stdout(`${row}${name === '-' ? '' : ` ${name}`}\n`);
  }
  return code;
};

/** A pattern that cannot backtrack for ever on a long line: nested quantifiers are refused. */
const NESTED_QUANTIFIER = /\([^)]*[+*}][^)]*\)[+*{]/;

/** `grep [-v] [-c] [-q] [-i] [-n] [-E] [-F] PATTERN [FILE...]`: status 0 on a match, 1 on none, 2 on an error. */
const grep: Builtin = async (ctx) => {
  const { flags, operands } = options(ctx.args, new Set(['e']));
  const pattern = flags.get('e') ?? operands.shift();
  if (pattern === undefined) {
    await ctx.stderr('grep: usage: grep [-vcqinEF] PATTERN [FILE...]\n');
    return 2;
  }
  if (NESTED_QUANTIFIER.test(pattern)) throw new Unsupported(`grep: ${pattern}: nested quantifiers are not supported by the simulated shell`);
  // A basic regular expression's \( \) \| \+ are the extended ones' ( ) | +.
  const source = flags.has('F') ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : flags.has('E') ? pattern : pattern.replace(/\\([()|+?{}])/g, '$1');
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags.has('i') ? 'i' : '');
  } catch {
    regex = new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags.has('i') ? 'i' : '');
  }
  let matched = 0;
  let code = 0;
  const several = operands.length > 1;
  for await (const { name, text } of sources(ctx, operands)) {
    if (text === undefined) {
      code = 2;
      continue;
    }
    let count = 0;
    for (const [i, line] of lines(text).entries()) {
      if (regex.test(line) === flags.has('v')) continue;
      count++;
      if (flags.has('q')) return 0;
      if (!flags.has('c')) await ctx.stdout(`${several ? `${name}:` : ''}${flags.has('n') ? `${i + 1}:` : ''}${line}\n`);
    }
    if (flags.has('c')) await ctx.stdout(`${several ? `${name}:` : ''}${count}\n`);
    matched += count;
  }
  return code === 2 && matched === 0 ? 2 : matched > 0 ? 0 : 1;
};

function count(flags: Map<string, string>): number | undefined {
  const n = Number(flags.get('n') ?? '10');
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** `head [-n N] [FILE]`: on stdin it stops reading after N lines, so the writer before it sees a broken pipe. */
const head: Builtin = async (ctx) => {
  const { flags, operands } = options(ctx.args, new Set(['n']));
  const n = count(flags);
  if (n === undefined) return (await ctx.stderr(`head: invalid number of lines: ${flags.get('n') ?? ''}\n`), 1);
  if (operands.length === 0) {
    for (let i = 0; i < n; i++) {
      const line = await ctx.stdin.readLine(ctx.shell.limits.valueLength);
      if (line === undefined) break;
      await ctx.stdout(`${line}\n`);
    }
    ctx.stdin.close();
    return 0;
  }
  let code = 0;
  for await (const { text } of sources(ctx, operands)) {
    if (text === undefined) code = 1;
    else await ctx.stdout(lines(text).slice(0, n).map((l) => `${l}\n`).join(''));
  }
  return code;
};

/** `tail [-n N | -n +N] [FILE]`. */
const tail: Builtin = async (ctx) => {
  const { flags, operands } = options(ctx.args, new Set(['n']));
  const raw = flags.get('n') ?? '10';
  const fromStart = raw.startsWith('+');
  const n = Number(fromStart ? raw.slice(1) : raw);
  if (!Number.isInteger(n) || n < 0) return (await ctx.stderr(`tail: invalid number of lines: ${raw}\n`), 1);
  if (flags.has('f')) throw new Unsupported('tail: -f is not supported by the simulated shell');
  let code = 0;
  for await (const { text } of sources(ctx, operands)) {
    if (text === undefined) {
      code = 1;
      continue;
    }
    const all = lines(text);
    const kept = fromStart ? all.slice(Math.max(0, n - 1)) : n === 0 ? [] : all.slice(-n);
    await ctx.stdout(kept.map((l) => `${l}\n`).join(''));
  }
  return code;
};

/** `seq [FIRST [STEP]] LAST`, integers or decimals; bounded by the output cap. */
const seq: Builtin = async (ctx) => {
  const numbers = ctx.args.map(Number);
  if (numbers.length < 1 || numbers.length > 3 || numbers.some((n) => !Number.isFinite(n))) {
    await ctx.stderr(`seq: invalid argument: ${ctx.args.join(' ')}\n`);
    return 1;
  }
  const [first, step, last] = numbers.length === 1 ? [1, 1, numbers[0] as number] : numbers.length === 2 ? [numbers[0] as number, 1, numbers[1] as number] : (numbers as [number, number, number]);
  if (step === 0) return (await ctx.stderr('seq: increment must not be 0\n'), 1);
  let batch = '';
  for (let x = first; step > 0 ? x <= last : x >= last; x += step) {
    batch += `${Number(x.toFixed(10))}\n`;
    if (batch.length >= 4096) {
      await ctx.stdout(batch);
      batch = '';
    }
  }
  await ctx.stdout(batch);
  return 0;
};

const env: Builtin = async (ctx) => {
  const args = [...ctx.args];
  const extra = new Map(ctx.env);
  while (args[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[0])) {
    const arg = args.shift() as string;
    extra.set(arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1));
  }
  if (args.length > 0) return ctx.shell.runArgv(args, ctx, extra);
  await ctx.stdout([...extra].map(([k, v]) => `${k}=${v}\n`).join(''));
  return 0;
};

const printenv: Builtin = async (ctx) => {
  if (ctx.args.length === 0) return env({ ...ctx, args: [] });
  let code = 0;
  for (const name of ctx.args) {
    const value = ctx.env.get(name);
    if (value === undefined) code = 1;
    else await ctx.stdout(`${value}\n`);
  }
  return code;
};

export const TEXT_BUILTINS: ReadonlyMap<string, Builtin> = new Map([
  ['echo', echo], ['printf', printf], ['cat', cat], ['tee', tee], ['wc', wc], ['grep', grep],
  ['head', head], ['tail', tail], ['seq', seq], ['env', env], ['printenv', printenv],
]);
