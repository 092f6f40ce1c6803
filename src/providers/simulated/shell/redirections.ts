/**
 * `>`, `>>`, `<`, `N>&M` and `N>&-` applied left to right to a command's three descriptors, as
 * sh does (`>/dev/null 2>&1` silences both; `2>&1 >/dev/null` keeps stderr on the old stdout).
 * Files are written through the file system as the command writes, so a reader sees them grow.
 */
import type { Redirection } from './ast.js';
import type { CommandIO } from './context.js';
import type { ShellFileSystem } from './fileSystem.js';
import { LimitExceeded } from './limits.js';
import { Input, type Output } from './streams.js';

const discard: Output = () => Promise.resolve();

function fileOutput(fs: ShellFileSystem, path: string): Output {
  return (chunk) => {
    const failed = fs.write(path, chunk, { append: true });
    return failed === undefined ? Promise.resolve() : Promise.reject(new LimitExceeded(`write error: ${path}: ${failed}`));
  };
}

/** The descriptors after `redirections`, or the message sh prints when one cannot be opened. */
export function redirect(
  io: CommandIO,
  redirections: readonly { readonly redirection: Redirection; readonly target: string }[],
  fs: ShellFileSystem,
  cwd: (path: string) => string,
): CommandIO | string {
  let stdin = io.stdin;
  const outputs: Output[] = [io.stdout, io.stderr];
  for (const { redirection, target } of redirections) {
    const { fd, op } = redirection;
    if (fd > 2) return `${fd}: only descriptors 0, 1 and 2 exist in the simulated shell`;
    switch (op) {
      case '<': {
        const content = fs.read(cwd(target));
        if (content === undefined) return `can't open ${target}: ${fs.isDirectory(cwd(target)) ? 'Is a directory' : 'No such file or directory'}`;
        if (fd === 0) stdin = Input.of(content);
        break;
      }
      case '>':
      case '>>': {
        const path = cwd(target);
        const failed = op === '>' ? fs.write(path, '') : fs.write(path, '', { append: true });
        if (failed !== undefined) return `can't create ${target}: ${failed}`;
        const out = fileOutput(fs, path);
        if (fd === 0) return `${target}: cannot redirect stdin to a file for writing`;
        outputs[fd - 1] = out;
        break;
      }
      case '>&':
      case '<&': {
        if (target === '-') {
          if (fd === 0) stdin = Input.empty();
          else outputs[fd - 1] = discard;
          break;
        }
        const from = Number(target);
        if (!/^[0-2]$/.test(target)) return `${target}: bad file descriptor`;
        if (fd === 0) {
          if (from !== 0) return `${target}: bad file descriptor`;
          break;
        }
        if (from === 0) return '0: bad file descriptor';
        outputs[fd - 1] = outputs[from - 1] as Output;
        break;
      }
    }
  }
  return { stdin, stdout: outputs[0] as Output, stderr: outputs[1] as Output };
}
