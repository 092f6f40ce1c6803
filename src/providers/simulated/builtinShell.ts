/**
 * The commands a simulated container can run, for demos and tests of exec: `echo`, `env`,
 * `printenv`, `cat` (files of the container's ConfigMap, Secret and downward-API volumes, or
 * stdin), `ls`, `hostname`, `pwd`, `sleep`, `true`, `false`, `exit N`, `stty size` (the
 * terminal's last reported size, to see resizes), and `sh -c SCRIPT` (or
 * `sh` reading lines from stdin) over those, with `;`, `&&`, `||`, quotes and `$VAR`/`${VAR}`/`$?`.
 * Everything else exits 127 with the shell's "not found" message; there is no `tar`, so `kubectl
 * cp` fails with a message saying so. No pipes, redirections or globs: a simulator, not a shell.
 */
import type { TerminalSize } from '../provider.js';
import type { ContainerView } from './containerView.js';

export interface ShellIO {
  readonly view: ContainerView;
  readonly stdin?: AsyncIterable<Buffer>;
  readonly stdout: (chunk: string) => Promise<void>;
  readonly stderr: (chunk: string) => Promise<void>;
  readonly tty: boolean;
  /** The terminal's latest size (from the client's resizes), if any. */
  readonly terminalSize?: () => TerminalSize | undefined;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly signal?: AbortSignal;
}

/** `exit N` inside a script: unwinds to the script's caller. */
class ExitRequest {
  constructor(readonly code: number) {}
}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', '/bin/sh', '/bin/bash', '/bin/ash', '/usr/bin/bash']);

export const BUILTIN_COMMANDS = ['echo', 'env', 'printenv', 'cat', 'ls', 'hostname', 'pwd', 'sleep', 'true', 'false', 'exit', 'stty size', 'sh -c'] as const;

type Connector = ';' | '&&' | '||';
interface Step {
  readonly words: string[];
  /** How this step joins the previous one. */
  readonly after: Connector;
}

const VARIABLE = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*|\?))/;

/** The text of a double-quoted string starting at `start` (after the quote), and its closing quote's index. */
function doubleQuoted(script: string, start: number, variable: (name: string) => string): { text: string; end: number } | undefined {
  let text = '';
  for (let j = start; j < script.length; j++) {
    const c = script[j] as string;
    if (c === '"') return { text, end: j };
    if (c === '\\' && j + 1 < script.length && '"\\$'.includes(script[j + 1] as string)) {
      text += script[++j];
      continue;
    }
    const m = c === '$' ? VARIABLE.exec(script.slice(j)) : null;
    if (m) {
      text += variable((m[1] ?? m[2]) as string);
      j += m[0].length - 1;
    } else text += c;
  }
  return undefined;
}

/** Splits a script into commands joined by `;`, `&&`, `||` or newlines, expanding variables. */
export function parseScript(script: string, env: ReadonlyMap<string, string>, lastStatus: () => number): Step[] | string {
  const steps: Step[] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let after: Connector = ';';
  const variable = (name: string): string => (name === '?' ? String(lastStatus()) : env.get(name) ?? '');
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endStep = (next: Connector): void => {
    endWord();
    if (words.length > 0) steps.push({ words, after });
    words = [];
    after = next;
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i] as string;
    if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end < 0) return 'unterminated quoted string';
      word += script.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      const quoted = doubleQuoted(script, i + 1, variable);
      if (quoted === undefined) return 'unterminated quoted string';
      word += quoted.text;
      inWord = true;
      i = quoted.end;
    } else if (c === '$') {
      const m = VARIABLE.exec(script.slice(i));
      if (m) {
        word += variable((m[1] ?? m[2]) as string);
        i += m[0].length - 1;
      } else word += '$';
      inWord = true;
    } else if (c === '\\' && i + 1 < script.length) {
      word += script[++i];
      inWord = true;
    } else if (c === ';' || c === '\n') endStep(';');
    else if (c === '&' && script[i + 1] === '&') {
      endStep('&&');
      i++;
    } else if (c === '|' && script[i + 1] === '|') {
      endStep('||');
      i++;
    } else if (c === '|' || c === '>' || c === '<' || c === '&') return `${c}: pipes, redirections and background jobs are not supported by the simulated shell`;
    else if (c === ' ' || c === '\t') endWord();
    else {
      word += c;
      inWord = true;
    }
  }
  endStep(';');
  return steps;
}

function directoryEntries(files: ReadonlyMap<string, string>, dir: string): string[] | undefined {
  const prefix = dir === '/' ? '/' : `${dir.replace(/\/+$/, '')}/`;
  const entries = new Set<string>();
  for (const path of files.keys()) if (path.startsWith(prefix)) entries.add(path.slice(prefix.length).split('/')[0] as string);
  return entries.size > 0 ? [...entries].sort() : undefined;
}

/** Copies stdin to `write`, taking the next chunk only once the last is written (as a pipe would); stops when `signal` aborts. */
async function readAll(stdin: AsyncIterable<Buffer> | undefined, write: (s: string) => Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!stdin) return;
  for await (const chunk of stdin) {
    signal?.throwIfAborted();
    await write(chunk.toString('utf8'));
  }
}

export class BuiltinShell {
  private status = 0;

  constructor(private readonly io: ShellIO) {}

  /** Runs argv as an exec would and returns the exit code. */
  async run(argv: readonly string[]): Promise<number> {
    try {
      return await this.command(argv);
    } catch (error) {
      if (error instanceof ExitRequest) return error.code;
      throw error;
    }
  }

  private async script(text: string): Promise<number> {
    const steps = parseScript(text, this.io.view.env, () => this.status);
    if (typeof steps === 'string') {
      await this.io.stderr(`sh: syntax error: ${steps}\n`);
      return 2;
    }
    for (const step of steps) {
      if (step.after === '&&' && this.status !== 0) continue;
      if (step.after === '||' && this.status === 0) continue;
      this.status = await this.command(step.words);
    }
    return this.status;
  }

  /** `sh` with no -c: one script line at a time from stdin, echoing it back on a terminal. */
  private async interactive(): Promise<number> {
    const { stdin, tty } = this.io;
    if (!stdin) return 0;
    if (tty) await this.io.stdout('# ');
    let line = '';
    for await (const chunk of stdin) {
      this.io.signal?.throwIfAborted();
      for (const c of chunk.toString('utf8')) {
        if (c === '\r' || c === '\n') {
          if (tty) await this.io.stdout('\r\n');
          await this.script(line);
          line = '';
          if (tty) await this.io.stdout('# ');
        } else if (c === '\u0004' && line === '') return this.status;
        else if (c === '\u007f') {
          if (line.length > 0 && tty) await this.io.stdout('\b \b');
          line = line.slice(0, -1);
        } else {
          line += c;
          if (tty) await this.io.stdout(c);
        }
      }
    }
    if (line !== '') await this.script(line);
    return this.status;
  }

  private async command(argv: readonly string[]): Promise<number> {
    const { io } = this;
    const { view } = io;
    const [name, ...args] = argv;
    if (name === undefined) return 0;
    io.signal?.throwIfAborted();
    if (SHELLS.has(name)) {
      if (args[0] === '-c') return args[1] === undefined ? (await io.stderr('sh: -c requires an argument\n'), 2) : this.script(args[1]);
      if (args.length === 0) return this.interactive();
      await io.stderr(`sh: can't open '${args[0] ?? ''}': the simulated shell runs only -c scripts and stdin\n`);
      return 2;
    }
    switch (name) {
      case 'echo': {
        const newline = args[0] !== '-n';
        await io.stdout(`${(newline ? args : args.slice(1)).join(' ')}${newline ? '\n' : ''}`);
        return 0;
      }
      case 'env':
        await io.stdout([...view.env].map(([k, v]) => `${k}=${v}\n`).join(''));
        return 0;
      case 'printenv': {
        if (args.length === 0) return this.command(['env']);
        let code = 0;
        for (const k of args) {
          const v = view.env.get(k);
          if (v === undefined) code = 1;
          else await io.stdout(`${v}\n`);
        }
        return code;
      }
      case 'cat': {
        if (args.length === 0 || (args.length === 1 && args[0] === '-')) {
          await readAll(io.stdin, io.stdout, io.signal);
          return 0;
        }
        let code = 0;
        for (const path of args) {
          const content = view.files.get(path);
          if (content !== undefined) await io.stdout(content);
          else {
            const isDir = directoryEntries(view.files, path) !== undefined;
            await io.stderr(`cat: ${path}: ${isDir ? 'Is a directory' : 'No such file or directory'}\n`);
            code = 1;
          }
        }
        return code;
      }
      case 'ls': {
        const paths = args.filter((a) => !a.startsWith('-'));
        let code = 0;
        for (const path of paths.length > 0 ? paths : ['/']) {
          const entries = directoryEntries(view.files, path);
          if (entries) await io.stdout(`${paths.length > 1 ? `${path}:\n` : ''}${entries.join('\n')}\n`);
          else if (view.files.has(path)) await io.stdout(`${path}\n`);
          else {
            await io.stderr(`ls: cannot access '${path}': No such file or directory\n`);
            code = 2;
          }
        }
        return code;
      }
      case 'hostname':
        await io.stdout(`${view.hostname}\n`);
        return 0;
      case 'pwd':
        await io.stdout('/\n');
        return 0;
      case 'true':
        return 0;
      case 'false':
        return 1;
      case 'sleep': {
        const seconds = Number(args[0]);
        if (args.length !== 1 || !Number.isFinite(seconds) || seconds < 0) {
          await io.stderr(`sleep: invalid time interval '${args[0] ?? ''}'\n`);
          return 1;
        }
        await io.sleep(seconds * 1000, io.signal);
        return 0;
      }
      case 'exit': {
        const code = args[0] === undefined ? this.status : Number(args[0]);
        if (!Number.isInteger(code)) {
          await io.stderr(`sh: exit: Illegal number: ${args[0] ?? ''}\n`);
          throw new ExitRequest(2);
        }
        throw new ExitRequest(((code % 256) + 256) % 256);
      }
      case 'stty': {
        const size = io.tty ? io.terminalSize?.() : undefined;
        if (!io.tty) {
          await io.stderr('stty: standard input: Not a tty\n');
          return 1;
        }
        if (args[0] === 'size') await io.stdout(`${size?.height ?? 0} ${size?.width ?? 0}\n`);
        return 0;
      }
      case 'tar':
        await io.stderr('sh: tar: not found (the simulated provider has no tar, so kubectl cp cannot copy files)\n');
        return 127;
      default:
        await io.stderr(`sh: ${name}: not found\n`);
        return 127;
    }
  }
}
