/** `tether validate FILE`: checks a config file and prints every problem; exit 2 if there is any. */
import { parseArgs } from 'node:util';
import { loadConfigFile, type TetherConfig } from '../../config/index.js';
import { hostKubeconfigSource } from '../../config/hostKubeconfig.js';
import { checkProvider } from '../../app/providerFactory.js';
import { silentLogger } from '../../adapters/logger.js';
import { VIRTUAL_NODE_AFFINITY_HINT } from '../../actors/admission/daemonSets.js';
import { parseApiServerAddress } from '../../providers/kubernetes/pods/hostAccess.js';
import { EXIT_OK, EXIT_REFUSED, usageError, type Io } from '../io.js';

export const validateHelp = `Usage: tether validate FILE [--quiet]

Checks a Tether config file (YAML) against the schema and the cross-field rules, and prints every
problem found, one a line: the file (or the flag/variable that set the field), the field path,
what is expected and what was found, e.g.

  tether.yaml: nodes[1].ping.intervalMs: expected a positive number, got -5 (line 12)

Exit status: 0 when the file is valid, 2 when it has problems or cannot be read.
Environment variables (TETHER_*) that override fields are applied, as 'tether run' would.

Options:
  -q, --quiet     print nothing when the file is valid
      --clusters  also read the clusters (host and each node's remote) for what 'tether run'
                  would refuse or warn about at a node's start: overlapping pod CIDRs, a changed
                  namespaceStrategy or hostClusterId with pods still running; printed as
                  warnings (exit 0)
  -h, --help      this help`;

export function validateCommand(args: readonly string[], io: Io, env: NodeJS.ProcessEnv = process.env): number | Promise<number> {
  let file: string | undefined;
  let quiet = false;
  let clusters = false;
  try {
    const { values, positionals } = parseArgs({
      args: [...args], allowPositionals: true, strict: true,
      options: { help: { type: 'boolean', short: 'h' }, quiet: { type: 'boolean', short: 'q' }, clusters: { type: 'boolean' } },
    });
    if (values.help) {
      io.out(validateHelp);
      return EXIT_OK;
    }
    if (positionals.length !== 1) throw new Error(positionals.length === 0 ? 'a config FILE is required' : `one FILE expected, got ${positionals.length}`);
    file = positionals[0];
    quiet = values.quiet ?? false;
    clusters = values.clusters ?? false;
  } catch (error) {
    return usageError(io, 'validate', error);
  }
  const result = loadConfigFile(file ?? '', { env });
  if (!result.ok) {
    for (const problem of result.problems) io.err(problem);
    io.err(`${result.file}: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}`);
    return EXIT_REFUSED;
  }
  if (quiet) return clusters ? checkClusters(result.config, io, env) : EXIT_OK;
  io.out(`${result.file}: valid (${result.config.nodes.length} virtual node${result.config.nodes.length === 1 ? '' : 's'}: ${result.config.nodes.map((n) => `${n.name} (${n.provider.type})`).join(', ')})`);
  // DaemonSet pods: rejected by default, and a rejected pod stalls its DaemonSet's rolling update, so say how to avoid it.
  for (const node of result.config.nodes) {
    io.out(node.admission?.daemonSets === 'admit'
      ? `  ${node.name}: admission.daemonSets admit: DaemonSet pods that tolerate the node's taint are offloaded like any pod`
      : `  ${node.name}: admission.daemonSets reject (the default): DaemonSet pods are Failed here (DaemonSetPodNotAdmitted), and a rolling update of a DaemonSet that tolerates the node's taint waits on it; to keep a DaemonSet off virtual nodes, ${VIRTUAL_NODE_AFFINITY_HINT} (docs/kubelet-api.md, "DaemonSet rollouts")`);
  }
  // The id every remote mark carries: validate runs offline, so a derived one is only named here.
  for (const node of result.config.nodes) {
    if (node.provider.type !== 'kubernetes') continue;
    const id = node.provider.hostClusterId;
    io.out(id === undefined
      ? `  ${node.name}: hostClusterId derived at start from the host cluster (the UID of its kube-system namespace)`
      : `  ${node.name}: hostClusterId ${id} (configured)`);
    const access = node.provider.hostServiceAccountAccess;
    io.out(access?.enabled === true
      ? `  ${node.name}: hostServiceAccountAccess on: each offloaded pod gets a token of its host ServiceAccount (bound to the pod, readable by whoever reads Secrets in its remote namespace) and reaches the host API server at ${access.apiServerAddress ?? '?'} as ${hostAccessName(access)}; the agent needs create on serviceaccounts/token in the host (docs/security.md)`
      : `  ${node.name}: hostServiceAccountAccess off (the default): no host credential reaches the remote cluster`);
  }
  return clusters ? checkClusters(result.config, io, env) : EXIT_OK;
}

/** The providers' start checks, read from the clusters; each finding a warning line, since nothing starts here. */
async function checkClusters(config: TetherConfig, io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const host = hostKubeconfigSource(config.host, env);
  for (const node of config.nodes) {
    try {
      const findings = await checkProvider(node.provider, { nodeName: node.name, internalIP: node.internalIP, host, logger: silentLogger });
      for (const finding of findings) io.err(`warning: ${finding}`);
    } catch (error) {
      io.err(`warning: node ${node.name}: cannot check against the clusters: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
  return EXIT_OK;
}

/** The name the offloaded pods use for the host API server: a hostname address itself, else the serverName (pods/hostAccess.ts). */
function hostAccessName(access: { readonly apiServerAddress?: string | undefined; readonly serverName?: string | undefined }): string {
  const address = access.apiServerAddress === undefined ? undefined : parseApiServerAddress(access.apiServerAddress);
  return address !== undefined && 'hostname' in address ? address.hostname : access.serverName ?? 'kubernetes.default.svc';
}
