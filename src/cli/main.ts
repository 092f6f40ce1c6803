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
import { runCommand, runHelp } from './commands/run.js';
import { sandboxCommand, sandboxHelp } from './commands/sandbox.js';
import { validateCommand, validateHelp } from './commands/validate.js';
import { versionCommand, versionHelp } from './commands/version.js';
import { EXIT_OK, EXIT_REFUSED, processIo, type Io } from './io.js';

export const mainHelp = `Usage: tether COMMAND [options]

Tether runs virtual Kubernetes nodes whose pods run at a provider (another cluster, or a simulator).

Commands:
  run --config FILE   run the agent from a config file
  sandbox             start a host and a remote cluster, two Tethers and a demo on this machine
  validate FILE       check a config file and print every problem (exit 2 if any)
  version             print the version

Run 'tether COMMAND --help' for a command's options. See docs/cli.md.`;

const helps: Record<string, string> = { run: runHelp, sandbox: sandboxHelp, validate: validateHelp, version: versionHelp };

export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return runCommand(rest, io);
    case 'sandbox':
      return sandboxCommand(rest, io);
    case 'validate':
      return validateCommand(rest, io);
    case 'version':
    case '--version':
      return versionCommand(rest, io);
    case 'help':
      io.out(rest[0] !== undefined && helps[rest[0]] ? (helps[rest[0]] ?? mainHelp) : mainHelp);
      return EXIT_OK;
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
