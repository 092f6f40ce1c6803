/** Builtins over the file system: `ls`, `touch`, `mkdir [-p]`, `rm [-r] [-f]`. */
import type { Builtin, CommandContext } from './context.js';
import { normalizePath } from './fileSystem.js';

function split(args: readonly string[]): { flags: string; operands: string[] } {
  const operands = args.filter((a) => !a.startsWith('-') || a === '-');
  return { flags: args.filter((a) => a.startsWith('-') && a !== '-').join(''), operands };
}

const path = (ctx: CommandContext, p: string): string => normalizePath(p, ctx.shell.cwd);

const ls: Builtin = async (ctx) => {
  const { flags, operands } = split(ctx.args);
  const { fs } = ctx.shell;
  let code = 0;
  const targets = operands.length > 0 ? operands : [ctx.shell.cwd];
  for (const target of targets) {
    const entries = fs.list(path(ctx, target));
    const shown = entries?.filter((e) => flags.includes('a') || !e.startsWith('.'));
    if (shown) await ctx.stdout(`${targets.length > 1 ? `${target}:\n` : ''}${shown.map((e) => `${e}\n`).join('')}`);
    else if (fs.read(path(ctx, target)) !== undefined) await ctx.stdout(`${target}\n`);
    else {
      await ctx.stderr(`ls: cannot access '${target}': No such file or directory\n`);
      code = 2;
    }
  }
  return code;
};

const touch: Builtin = async (ctx) => {
  let code = 0;
  for (const file of split(ctx.args).operands) {
    const failed = ctx.shell.fs.isDirectory(path(ctx, file)) ? undefined : ctx.shell.fs.write(path(ctx, file), '', { append: true });
    if (failed !== undefined) code = (await ctx.stderr(`touch: ${file}: ${failed}\n`), 1);
  }
  return code;
};

const mkdir: Builtin = async (ctx) => {
  const { flags, operands } = split(ctx.args);
  let code = 0;
  for (const dir of operands) {
    const failed = ctx.shell.fs.makeDirectory(path(ctx, dir), { parents: flags.includes('p') });
    if (failed !== undefined) code = (await ctx.stderr(`mkdir: can't create directory '${dir}': ${failed}\n`), 1);
  }
  return code;
};

const rm: Builtin = async (ctx) => {
  const { flags, operands } = split(ctx.args);
  const force = flags.includes('f');
  const recursive = flags.includes('r') || flags.includes('R');
  let code = 0;
  for (const file of operands) {
    const failed = ctx.shell.fs.remove(path(ctx, file), { recursive });
    if (failed === undefined || (force && failed === 'No such file or directory')) continue;
    await ctx.stderr(`rm: can't remove '${file}': ${failed}\n`);
    code = 1;
  }
  return code;
};

export const FILE_BUILTINS: ReadonlyMap<string, Builtin> = new Map([['ls', ls], ['touch', touch], ['mkdir', mkdir], ['rm', rm]]);
