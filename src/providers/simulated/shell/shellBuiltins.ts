/**
 * The builtins that act on the shell itself: `exit`, `export`, `unset`, `set`, `shift`, `trap`,
 * `kill`, `wait`, `read`, `cd`, `pwd`, `eval`, `.`, `exec`, `break`, `continue`, `return`, and
 * `sh` (a child shell: `sh -c SCRIPT [NAME ARGS...]`, `sh FILE ARGS...`, or a script on stdin).
 */
import type { Builtin, CommandContext } from './context.js';
import { ExitRequest, LoopControl, ReturnRequest, SIGNALS, signalName, type SignalName } from './context.js';
import { normalizePath } from './fileSystem.js';

export const SHELL_NAMES = ['sh', 'bash', 'ash', 'dash', 'busybox sh'];

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

async function fail(ctx: CommandContext, message: string, code = 1): Promise<number> {
  await ctx.stderr(`sh: ${ctx.name}: ${message}\n`);
  return code;
}

function exitCode(ctx: CommandContext): Promise<number> | number {
  const [arg] = ctx.args;
  if (arg === undefined) return ctx.shell.status;
  return /^-?\d+$/.test(arg) ? ((Number(arg) % 256) + 256) % 256 : fail(ctx, `Illegal number: ${arg}`, 2);
}

const exit: Builtin = async (ctx) => {
  throw new ExitRequest(await exitCode(ctx));
};

const returnBuiltin: Builtin = async (ctx) => {
  throw new ReturnRequest(await exitCode(ctx));
};

const loopControl = (kind: 'break' | 'continue'): Builtin => async (ctx) => {
  const levels = Number(ctx.args[0] ?? '1');
  if (!Number.isInteger(levels) || levels < 1) return fail(ctx, `Illegal number: ${ctx.args[0] ?? ''}`, 2);
  throw new LoopControl(kind, levels);
};

/** `export A=1 B`, `readonly` alike (nothing is read-only here). */
const exportBuiltin: Builtin = async (ctx) => {
  const { shell } = ctx;
  if (ctx.args.length === 0 || ctx.args[0] === '-p') {
    for (const [k, v] of shell.environment()) await ctx.stdout(`export ${k}='${v.replace(/'/g, "'\\''")}'\n`);
    return 0;
  }
  for (const arg of ctx.args) {
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (!NAME.test(name)) return fail(ctx, `bad variable name: ${name}`, 2);
    if (eq >= 0) shell.setVariable(name, arg.slice(eq + 1));
    shell.markExported(name);
  }
  return 0;
};

/** `local A=1 B`: functions share the shell's variables here, so this only assigns. */
const local: Builtin = async (ctx) => {
  for (const arg of ctx.args) {
    const eq = arg.indexOf('=');
    if (eq >= 0) ctx.shell.setVariable(arg.slice(0, eq), arg.slice(eq + 1));
  }
  return 0;
};

const unset: Builtin = async (ctx) => {
  for (const name of ctx.args.filter((a) => a !== '-v' && a !== '-f')) ctx.shell.unsetVariable(name);
  return 0;
};

/** `set -e`/`+e`/`-o errexit` switch errexit; `set -- ARGS` (or `set ARGS`) sets the positional parameters; other options are accepted and not enforced. */
const set: Builtin = async (ctx) => {
  const args = [...ctx.args];
  if (args.length === 0) for (const [k, v] of ctx.shell.environment()) await ctx.stdout(`${k}='${v}'\n`);
  while (args[0] !== undefined && /^[-+]([a-zA-Z]+|o)$/.test(args[0])) {
    const flag = args.shift() as string;
    const on = flag.startsWith('-');
    if (flag.includes('e')) ctx.shell.errexit = on;
    if (flag.endsWith('o') && args.shift() === 'errexit') ctx.shell.errexit = on;
  }
  if (args[0] === '--') ctx.shell.positional = args.slice(1);
  else if (args.length > 0) ctx.shell.positional = args;
  return 0;
};

const shift: Builtin = async (ctx) => {
  const n = Number(ctx.args[0] ?? '1');
  if (!Number.isInteger(n) || n < 0 || n > ctx.shell.positional.length) return fail(ctx, `can't shift that many`, 2);
  ctx.shell.positional = ctx.shell.positional.slice(n);
  return 0;
};

/** `trap ACTION SIG...`, `trap - SIG` (default again), `trap '' SIG` (ignore), `trap` (list). */
const trap: Builtin = async (ctx) => {
  const { traps } = ctx.shell;
  if (ctx.args.length === 0 || ctx.args[0] === '-p') {
    for (const [signal, action] of traps) await ctx.stdout(`trap -- '${action.replace(/'/g, "'\\''")}' ${signal}\n`);
    return 0;
  }
  const [action, ...names] = /^\d+$/.test(ctx.args[0] as string) ? ['-', ...ctx.args] : ctx.args;
  for (const raw of names) {
    const signal: SignalName | 'EXIT' | undefined = raw === '0' || raw.toUpperCase() === 'EXIT' ? 'EXIT' : signalName(raw);
    if (signal === undefined || signal === 'KILL') return fail(ctx, `${raw}: bad trap`);
    if (action === '-') traps.delete(signal);
    else traps.set(signal, action as string);
  }
  return 0;
};

/** `kill [-s SIG | -SIG] PID...` (1 or `$$` is this shell, `$!` a background job), `kill -l`. */
const kill: Builtin = async (ctx) => {
  let signal: SignalName | 0 = 'TERM';
  const args = [...ctx.args];
  if (args[0] === '-l') {
    await ctx.stdout(`${Object.keys(SIGNALS).join(' ')}\n`);
    return 0;
  }
  if (args[0] === '-s') {
    args.shift();
    const named = signalName(args.shift() ?? '');
    if (!named) return fail(ctx, 'invalid signal');
    signal = named;
  } else if (args[0]?.startsWith('-') && args[0] !== '--') {
    const raw = (args.shift() as string).slice(1);
    const named = raw === '0' ? 0 : signalName(raw);
    if (named === undefined) return fail(ctx, `invalid signal: ${raw}`);
    signal = named;
  }
  if (args[0] === '--') args.shift();
  if (args.length === 0) return fail(ctx, 'usage: kill [-s SIGNAL | -SIGNAL] PID...', 2);
  let code = 0;
  for (const pid of args) {
    if (!/^-?\d+$/.test(pid)) code = await fail(ctx, `illegal pid: ${pid}`);
    else if (!ctx.shell.kill(Number(pid), signal)) code = await fail(ctx, `(${pid}) - No such process`);
  }
  return code;
};

const wait: Builtin = async (ctx) => {
  let status = 0;
  if (ctx.args.length === 0) return ctx.shell.wait();
  for (const pid of ctx.args) status = await ctx.shell.wait(Number(pid));
  return status;
};

/** `read [-r] [-p PROMPT] NAME...`: one line of stdin split over the names, the last taking the rest. */
const read: Builtin = async (ctx) => {
  const args = [...ctx.args];
  let raw = false;
  while (args[0]?.startsWith('-')) {
    const flag = args.shift();
    if (flag === '-r') raw = true;
    else if (flag === '-p') await ctx.stderr(args.shift() ?? '');
  }
  const names = args.length > 0 ? args : ['REPLY'];
  const waited = await ctx.shell.block(() => ctx.stdin.readLine(ctx.shell.limits.valueLength));
  if (waited === 'interrupted') return 128 + 15;
  const line = waited.value;
  if (line === undefined) {
    for (const name of names) ctx.shell.setVariable(name, '');
    return 1;
  }
  const text = raw ? line : line.replace(/\\(.)/g, '$1');
  const fields = text.trim().split(/[ \t]+/);
  names.forEach((name, i) => ctx.shell.setVariable(name, i === names.length - 1 ? fields.slice(i).join(' ') : fields[i] ?? ''));
  return 0;
};

const cd: Builtin = async (ctx) => {
  const target = normalizePath(ctx.args[0] ?? ctx.env.get('HOME') ?? '/', ctx.shell.cwd);
  if (!ctx.shell.fs.isDirectory(target)) return fail(ctx, `can't cd to ${ctx.args[0] ?? target}`, 2);
  ctx.shell.cwd = target;
  ctx.shell.setVariable('PWD', target);
  return 0;
};

const pwd: Builtin = async (ctx) => {
  await ctx.stdout(`${ctx.shell.cwd}\n`);
  return 0;
};

const evalBuiltin: Builtin = (ctx) => ctx.shell.runScript(ctx.args.join(' '), 'same', ctx);

const source: Builtin = async (ctx) => {
  const [file] = ctx.args;
  const text = file === undefined ? undefined : ctx.shell.fs.read(normalizePath(file, ctx.shell.cwd));
  if (text === undefined) return fail(ctx, `can't open ${file ?? ''}`, 2);
  return ctx.shell.runScript(text, 'same', ctx);
};

/** `exec CMD ARGS`: runs the command and ends the shell with its status (there is one process here). */
const exec: Builtin = async (ctx) => {
  if (ctx.args.length === 0) return 0;
  throw new ExitRequest(await ctx.shell.runArgv(ctx.args, ctx, ctx.env));
};

const sh: Builtin = async (ctx) => {
  const args = [...ctx.args];
  while (args[0] !== undefined && /^[-+][a-bd-z]+$/.test(args[0])) args.shift();
  if (args[0] === '-c' || /^-[a-z]*c[a-z]*$/.test(args[0] ?? '')) {
    const [, script, name, ...rest] = args;
    if (script === undefined) return fail(ctx, '-c requires an argument', 2);
    return ctx.shell.runScript(script, { name: name ?? ctx.name, args: rest }, ctx);
  }
  const [file, ...rest] = args;
  if (file === undefined || file === '-s') return ctx.shell.runScript(await ctx.stdin.readAll(ctx.shell.limits.scriptLength), { name: ctx.name, args: [] }, ctx);
  const text = ctx.shell.fs.read(normalizePath(file, ctx.shell.cwd));
  if (text === undefined) return fail(ctx, `can't open '${file}': No such file or directory`, 2);
  return ctx.shell.runScript(text.replace(/^#![^\n]*\n/, ''), { name: file, args: rest }, ctx);
};

export const SHELL_BUILTINS: ReadonlyMap<string, Builtin> = new Map([
  ...SHELL_NAMES.map((name) => [name, sh] as const),
  ['exit', exit], ['return', returnBuiltin], ['break', loopControl('break')], ['continue', loopControl('continue')],
  ['export', exportBuiltin], ['readonly', exportBuiltin], ['local', local], ['unset', unset], ['set', set], ['shift', shift],
  ['trap', trap], ['kill', kill], ['wait', wait], ['read', read], ['cd', cd], ['pwd', pwd],
  ['eval', evalBuiltin], ['.', source], ['source', source], ['exec', exec],
]);
