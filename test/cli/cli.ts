/**
 * Runs the `tether` CLI from source: in this process (`runMain`: `main()` with its own argv, io and
 * env, for what the commands print and return) or as a child process with this test process's own
 * TypeScript loader (tap's), so tests never depend on a stale dist/ (`runCli`/`startCli`: for what
 * only a process shows, exit codes and signals; those tests live in test/e2e/). Both resolve with
 * the exit code and the output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MAIN = join(REPO, 'src', 'cli', 'main.ts');
const LOADER = '--import=@isaacs/ts-node-temp-fork-for-pr-2009/import';

export function cliCommand(args: readonly string[]): { command: string; args: string[] } {
  const loaderFlags = process.execArgv.some((a) => a.includes('ts-node') || a.includes('tsx')) ? process.execArgv : [LOADER];
  return { command: process.execPath, args: [...loaderFlags, MAIN, ...args] };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
  /** Output so far. */
  output(): { stdout: string; stderr: string };
}

export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const { command, args: full } = cliCommand(args);
  const child = spawn(command, full, { cwd: REPO, env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<CliResult>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, output: () => ({ stdout, stderr }) };
}

export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/**
 * `tether ARGS` as `main()` in this process: the output as the process would have written it (each
 * line then a newline), and only `env` as the environment (no leak of the test runner's).
 */
export async function runMain(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { out: (line) => (stdout += line + '\n'), err: (line) => (stderr += line + '\n') }, env);
  return { code, signal: null, stdout, stderr };
}
