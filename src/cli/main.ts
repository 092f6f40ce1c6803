#!/usr/bin/env node
/**
 * `tether`: one program, four subcommands, `--help` on each.
 *   tether run --config FILE     the agent
 *   tether sandbox [...]         the whole system on this machine (two clusters, two Tethers, a demo)
 *   tether validate FILE         every problem in a config file (exit 2 if any)
 *   tether version
 * Built to dist/src/cli/main.js (the package's bin). From source, run it with tap's TypeScript
 * loader: `node --import=@isaacs/ts-node-temp-fork-for-pr-2009/import src/cli/main.ts` (see docs/cli.md).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT_OK, EXIT_REFUSED, processIo, type Io } from './io.js';

export const mainHelp = `Usage: tether COMMAND [options]

Tether runs virtual Kubernetes nodes whose pods run at a provider (another cluster, or a simulator).

Commands:
  run --config FILE   run the agent from a config file
  sandbox             start a host and a remote cluster, two Tethers and a demo on this machine
  validate FILE       check a config file and print every problem (exit 2 if any)
  version             print the version

Run 'tether COMMAND --help' for a command's options. See docs/cli.md.`;

/** Each command's module is loaded only when it runs: `validate` never loads the Kubernetes client. */
const helps: Record<string, () => Promise<string>> = {
  run: async () => (await import('./commands/run.js')).runHelp,
  sandbox: async () => (await import('./commands/sandbox.js')).sandboxHelp,
  validate: async () => (await import('./commands/validate.js')).validateHelp,
  version: async () => (await import('./commands/version.js')).versionHelp,
};

/** `io` and `env` are the process's by default; tests run a command in process with their own. */
export async function main(argv: readonly string[], io: Io = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return (await import('./commands/run.js')).runCommand(rest, io, { env });
    case 'sandbox':
      return (await import('./commands/sandbox.js')).sandboxCommand(rest, io);
    case 'validate':
      return (await import('./commands/validate.js')).validateCommand(rest, io, env);
    case 'version':
    case '--version':
      return (await import('./commands/version.js')).versionCommand(rest, io);
    case 'help': {
      const help = rest[0] !== undefined ? helps[rest[0]] : undefined;
      io.out(help ? await help() : mainHelp);
      return EXIT_OK;
    }
    case undefined:
    case '-h':
    case '--help':
      io.out(mainHelp);
      return EXIT_OK;
    default:
      io.err(`tether: unknown command '${command}'`);
      io.err(mainHelp);
      return EXIT_REFUSED;
  }
}

function invokedDirectly(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`tether: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
