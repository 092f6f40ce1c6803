/**
 * `tether sandbox`: the whole system on this machine (see docs/sandbox.md). In the foreground it
 * runs until Ctrl-C and then removes everything it started; `--detach` runs the same thing in the
 * background and returns once the demo pods are Running; `--down` stops a detached one.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { alive, sandboxDown } from '../../sandbox/down.js';
import { selfCommand } from '../../sandbox/instances.js';
import { absoluteStateDir, DEFAULT_STATE_DIR, readState, type SandboxState } from '../../sandbox/state.js';
import { summary } from '../../sandbox/summary.js';
import { Sandbox } from '../../sandbox/up.js';
import { EXIT_FAILED, EXIT_OK, EXIT_REFUSED, usageError, type Io } from '../io.js';

export const sandboxHelp = `Usage: tether sandbox [--state-dir DIR] [--detach | --down] [--no-netns] [--keep-state]

Starts the whole system on this machine: builds or reuses the control-plane binaries (the first
build takes about 7 minutes and prints its progress), starts a host and a remote cluster, runs a
Tether node in the remote cluster (simulated provider, so pods really run there) and a Tether in
the host cluster whose virtual node offloads to the remote cluster, deploys a demo Deployment and
Service, and prints the kubeconfig paths and kubectl commands to paste.

In the foreground, Ctrl-C stops everything and removes what it started.

Options:
  --state-dir DIR  where the kubeconfigs, logs and state.json go (default ${DEFAULT_STATE_DIR})
  --detach         start in the background; return once the demo pods are Running
  --down           stop the sandbox recorded in the state dir and remove what it started
  --no-netns       do not use network namespaces even when root
  --keep-state     keep the state dir (logs, cluster data) after stopping
  -h, --help       this help

Exit status: 0 when up (or, in the foreground, after Ctrl-C); 1 when a step failed (its logs stay
in the state dir); 2 on bad usage or when a sandbox is already running in the state dir.`;

interface SandboxArgs {
  stateDir: string;
  stateDirArg: string;
  detach: boolean;
  down: boolean;
  netns: boolean;
  keepState: boolean;
}

export async function sandboxCommand(args: readonly string[], io: Io): Promise<number> {
  let parsed: SandboxArgs;
  try {
    const { values } = parseArgs({
      args: [...args], strict: true,
      options: {
        'state-dir': { type: 'string' }, detach: { type: 'boolean' }, down: { type: 'boolean' },
        'no-netns': { type: 'boolean' }, 'keep-state': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.out(sandboxHelp);
      return EXIT_OK;
    }
    if (values.detach && values.down) throw new Error('--detach and --down exclude each other');
    const given = values['state-dir'];
    parsed = {
      stateDir: absoluteStateDir(given), stateDirArg: given !== undefined ? ` --state-dir ${given}` : '',
      detach: values.detach ?? false, down: values.down ?? false, netns: !(values['no-netns'] ?? false), keepState: values['keep-state'] ?? false,
    };
  } catch (error) {
    return usageError(io, 'sandbox', error);
  }
  if (parsed.down) return down(parsed, io);
  const existing = readState(parsed.stateDir);
  if (existing && alive(existing.supervisorPid) && existing.supervisorPid !== process.pid) {
    io.err(`tether sandbox: a sandbox is already ${existing.status} in ${parsed.stateDir} (pid ${existing.supervisorPid}); stop it with: tether sandbox --down${parsed.stateDirArg}`);
    return EXIT_REFUSED;
  }
  return parsed.detach ? detach(parsed, io) : foreground(parsed, io);
}

async function down(a: SandboxArgs, io: Io): Promise<number> {
  const result = await sandboxDown(a.stateDir, (line) => io.err(`sandbox: ${line}`));
  if (!result.found) {
    io.out(`no sandbox recorded in ${a.stateDir}`);
    return EXIT_OK;
  }
  io.out(`sandbox stopped${result.killed.length > 0 ? ` (killed leftover process groups ${result.killed.join(', ')})` : ''}; removed ${a.stateDir}`);
  return EXIT_OK;
}

async function foreground(a: SandboxArgs, io: Io): Promise<number> {
  const progress = (line: string): void => io.err(`sandbox: ${line}`);
  const sandbox = new Sandbox({ stateDir: a.stateDir, netns: a.netns, progress });
  let stopping: Promise<number> | undefined;
  const stop = (why: string, code: number): Promise<number> => {
    stopping ??= (async () => {
      progress(`${why}: stopping everything`);
      await sandbox.teardown({ keepStateDir: a.keepState || code !== EXIT_OK });
      progress(code === EXIT_OK ? 'stopped; nothing is left running' : `stopped; logs kept in ${a.stateDir}`);
      return code;
    })();
    return stopping;
  };
  const signalled = new Promise<number>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => resolve(stop(`${signal}`, EXIT_OK)));
  });
  const started = sandbox.up().then(
    () => {
      io.out(summary(sandbox.state, { detached: isDetachedChild(), stateDirArg: a.stateDirArg }));
      // Every child is unref'd: this timer keeps the process (and so the sandbox) alive until a signal.
      const watch = setInterval(() => {
        for (const line of sandbox.check()) progress(line);
      }, 2_000);
      void signalled.finally(() => clearInterval(watch));
      return new Promise<number>(() => undefined);
    },
    async (error: unknown) => {
      sandbox.state.status = 'failed';
      sandbox.state.message = error instanceof Error ? error.message : String(error);
      io.err(`tether sandbox: failed: ${sandbox.state.message}`);
      return stop('a step failed', EXIT_FAILED);
    },
  );
  return Promise.race([started, signalled]);
}

const DETACHED_ENV = 'TETHER_SANDBOX_DETACHED';

function isDetachedChild(): boolean {
  return process.env[DETACHED_ENV] === '1';
}

/** Starts the foreground sandbox as a background process and follows its log until it is up. */
async function detach(a: SandboxArgs, io: Io): Promise<number> {
  mkdirSync(a.stateDir, { recursive: true });
  const logPath = join(a.stateDir, 'sandbox.log');
  const log = openSync(logPath, 'w');
  const self = selfCommand(['sandbox', '--state-dir', a.stateDir, ...(a.netns ? [] : ['--no-netns']), ...(a.keepState ? ['--keep-state'] : [])]);
  const child = spawn(self.command, self.args, { detached: true, stdio: ['ignore', log, log], env: { ...process.env, [DETACHED_ENV]: '1' } });
  closeSync(log);
  child.unref();
  const pid = child.pid ?? 0;
  io.err(`sandbox: started in the background (pid ${pid}); following ${logPath}`);
  let offset = 0;
  const follow = (): void => {
    const size = statSync(logPath, { throwIfNoEntry: false })?.size ?? 0;
    if (size <= offset) return;
    const fd = openSync(logPath, 'r');
    const buffer = Buffer.alloc(size - offset);
    readSync(fd, buffer, 0, buffer.length, offset);
    closeSync(fd);
    offset = size;
    for (const line of buffer.toString('utf8').split('\n')) if (line.startsWith('sandbox: ') || line.startsWith('tether sandbox: ') || line.startsWith('[kube-build')) io.err(line);
  };
  for (;;) {
    follow();
    const state: SandboxState | undefined = readState(a.stateDir);
    if (state?.status === 'running' && state.supervisorPid === pid) {
      io.out(summary(state, { detached: true, stateDirArg: a.stateDirArg }));
      return EXIT_OK;
    }
    if (!alive(pid) || state?.status === 'failed') {
      follow();
      io.err(`tether sandbox: the background sandbox failed; see ${logPath}`);
      return EXIT_FAILED;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
