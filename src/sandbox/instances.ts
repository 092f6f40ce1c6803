/**
 * The sandbox's Tether instances are ordinary `tether run --config FILE` processes, started with
 * the same Node.js, loader flags and entry point as this process (so it works from source and
 * from dist/), each in its own process group with its own log, inside a network namespace when
 * one is given.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NetworkNamespace } from '../harness/networkNamespace.js';
import { startProcess, type ManagedProcess } from '../harness/processes.js';

export interface InstanceSpec {
  readonly name: string;
  readonly dir: string;
  readonly configYaml: string;
  readonly netns?: NetworkNamespace;
}

export interface Instance {
  readonly process: ManagedProcess;
  readonly configPath: string;
  readonly logPath: string;
}

/** The command line that runs this very CLI: node, its flags (e.g. a TypeScript loader), the script. */
export function selfCommand(args: readonly string[]): { command: string; args: string[] } {
  const script = process.argv[1];
  if (script === undefined) throw new Error('cannot tell which script is running (process.argv[1] is empty)');
  return { command: process.execPath, args: [...process.execArgv, script, ...args] };
}

export function startInstance(spec: InstanceSpec): Instance {
  const configPath = join(spec.dir, `${spec.name}.yaml`);
  const logPath = join(spec.dir, `${spec.name}.log`);
  writeFileSync(configPath, spec.configYaml);
  const self = selfCommand(['run', '--config', configPath]);
  const command = spec.netns ? spec.netns.wrap(self.command, self.args) : self;
  const proc = startProcess({ name: `tether-${spec.name}`, command: command.command, args: command.args, logPath, cwd: process.cwd() });
  return { process: proc, configPath, logPath };
}
