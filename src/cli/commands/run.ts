/**
 * `tether run --config FILE`: the agent. A config with problems is refused (exit 2, every problem
 * listed). SIGTERM or SIGINT shuts down within `shutdown.timeoutMs`: leases stop renewing, watches
 * stop, in-flight API writes and Events finish, providers close; then exit 0 (1 if the bound ran
 * out). A second signal exits at once.
 */
import { parseArgs } from 'node:util';
import { KubeconfigError } from '../../adapters/kubernetes/kubeconfig.js';
import { pinoLogger } from '../../adapters/pinoLogger.js';
import { startAgentFromConfig, type RunningAgent } from '../../app/agentFromConfig.js';
import { ProviderSetupError } from '../../app/providerFactory.js';
import { CONFIG_ENV, DEFAULT_LOG_LEVEL, DEFAULT_SHUTDOWN_TIMEOUT_MS, loadConfigFile, OVERRIDES, type FlagValues } from '../../config/index.js';
import { TetherMetrics } from '../../observability/metrics.js';
import { EXIT_FAILED, EXIT_OK, EXIT_REFUSED, usageError, type Io } from '../io.js';
import { installProcessErrorPolicy } from '../processErrorPolicy.js';

const overrideHelp = OVERRIDES.map((o) => `  --${`${o.flag} ${o.kind === 'boolean' ? '' : 'VALUE'}`.padEnd(28)} ${o.field.join('.')}: ${o.help} [${o.env}]`).join('\n');

export const runHelp = `Usage: tether run --config FILE [overrides]

Runs the agent: registers the config file's virtual nodes with the host cluster and runs their pods
at their providers, until SIGTERM or SIGINT.

Options:
  -c, --config FILE              the config file (YAML) [${CONFIG_ENV}]
  -h, --help                     this help

Overrides (a flag beats its environment variable, which beats the file):
${overrideHelp}

Exit status: 0 after a clean shutdown; 2 when the config is refused (every problem is printed)
or the host kubeconfig is unusable; 1 when the agent fails or the shutdown overruns its bound.`;

export interface RunDeps {
  readonly env?: NodeJS.ProcessEnv;
  /** Where signals come from; the process by default. */
  readonly signals?: Pick<NodeJS.Process, 'on' | 'off'>;
  /** Where uncaught errors come from (processErrorPolicy.ts); the process by default. */
  readonly errors?: Pick<NodeJS.Process, 'on' | 'off'>;
}

export async function runCommand(args: readonly string[], io: Io, deps: RunDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  let file: string | undefined;
  let flags: FlagValues = {};
  try {
    const { values, positionals } = parseArgs({
      args: [...args], strict: true, allowPositionals: false,
      options: {
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(OVERRIDES.map((o) => [o.flag, { type: o.kind === 'boolean' ? 'boolean' : 'string' } as const])),
      },
    });
    void positionals;
    if (values.help) {
      io.out(runHelp);
      return EXIT_OK;
    }
    file = (values.config as string | undefined) ?? env[CONFIG_ENV];
    if (file === undefined || file === '') throw new Error(`a config file is required: --config FILE or ${CONFIG_ENV}`);
    flags = values as FlagValues;
  } catch (error) {
    return usageError(io, 'run', error);
  }

  const loaded = loadConfigFile(file, { env, flags });
  if (!loaded.ok) {
    for (const problem of loaded.problems) io.err(problem);
    io.err(`tether run: refusing to start: ${loaded.problems.length} problem${loaded.problems.length === 1 ? '' : 's'} in ${file}`);
    return EXIT_REFUSED;
  }
  const config = loaded.config;

  let fatal: ((error: unknown) => void) | undefined;
  const failed = new Promise<number>((resolve) => {
    fatal = (error) => {
      io.err(`tether run: the agent cannot continue: ${error instanceof Error ? error.message : String(error)}`);
      resolve(EXIT_FAILED);
    };
  });
  const logger = pinoLogger({ level: config.logLevel ?? DEFAULT_LOG_LEVEL });
  const metrics = new TetherMetrics();
  // From here on, an error nothing caught is logged and counted; only a failed invariant shuts down.
  const uninstall = installProcessErrorPolicy({
    target: deps.errors ?? process,
    logger,
    count: (kind) => metrics.recordUncaughtError(kind),
    onInvariantFailure: (e) => fatal?.(e),
    exit: (exitCode) => process.exit(exitCode),
  });
  let running: RunningAgent;
  try {
    running = await startAgentFromConfig(config, { env, logger, metrics, onFatal: (e) => fatal?.(e) });
  } catch (error) {
    uninstall();
    const refused = error instanceof KubeconfigError || error instanceof ProviderSetupError;
    io.err(`tether run: ${refused ? 'refusing to start: ' : ''}${error instanceof Error ? error.message : String(error)}`);
    return refused ? EXIT_REFUSED : EXIT_FAILED;
  }
  running.logger.info('tether running', { config: file, nodes: config.nodes.map((n) => `${n.name} (${n.provider.type})`) });
  for (const [name, server] of Object.entries(config.ports ?? {})) {
    if (server && server.port > 0) running.logger.info(`${name} port configured`, { port: server.port, address: server.address ?? '0.0.0.0' });
  }
  const code = await Promise.race([untilSignal(deps.signals ?? process), failed]);
  const timeoutMs = config.shutdown?.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  running.logger.info('shutting down', { timeoutMs, deleteNodes: config.shutdown?.deleteNodeOnShutdown ?? false });
  const startedAt = Date.now();
  const outcome = await running.stop();
  running.logger.info(outcome === 'clean' ? 'stopped' : 'shutdown bound reached; exiting anyway', { ms: Date.now() - startedAt });
  uninstall();
  if (code !== EXIT_OK) return code;
  return outcome === 'clean' ? EXIT_OK : EXIT_FAILED;
}

/** Resolves at the first SIGTERM or SIGINT; a second one exits the process at once. */
function untilSignal(signals: Pick<NodeJS.Process, 'on' | 'off'>): Promise<number> {
  return new Promise((resolve) => {
    let seen = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (seen) {
        process.stderr.write(`tether run: second ${signal}: exiting now\n`);
        process.exit(EXIT_FAILED);
      }
      seen = true;
      resolve(EXIT_OK);
    };
    signals.on('SIGTERM', onSignal);
    signals.on('SIGINT', onSignal);
  });
}
