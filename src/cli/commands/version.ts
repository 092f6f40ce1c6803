/** `tether version`: Tether's version, the kubelet version its nodes report, and Node's. */
import { parseArgs } from 'node:util';
import { DEFAULT_KUBELET_VERSION } from '../../actors/node/config.js';
import { EXIT_OK, usageError, type Io } from '../io.js';
import { tetherVersion } from '../version.js';

export const versionHelp = `Usage: tether version [--json]

Prints Tether's version, the kubelet version its virtual nodes report, and the Node.js version.

Options:
  --json      one JSON object instead of text
  -h, --help  this help`;

export function versionCommand(args: readonly string[], io: Io): number {
  let json = false;
  try {
    const { values } = parseArgs({ args: [...args], options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true });
    if (values.help) {
      io.out(versionHelp);
      return EXIT_OK;
    }
    json = values.json ?? false;
  } catch (error) {
    return usageError(io, 'version', error);
  }
  const info = { tether: tetherVersion(), kubeletVersion: DEFAULT_KUBELET_VERSION, node: process.version };
  io.out(json ? JSON.stringify(info) : `tether ${info.tether} (kubelet ${info.kubeletVersion}, node ${info.node})`);
  return EXIT_OK;
}
