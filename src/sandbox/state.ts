/**
 * The sandbox's description of itself, for scripts and CI: `<stateDir>/state.json` holds the
 * kubeconfig paths, API server URLs, every component's process id, the introspection URL and the
 * status (starting → running, or failed; stopping on the way down). Written atomically.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DEFAULT_STATE_DIR = join('.tether', 'sandbox');

export type SandboxStatus = 'starting' | 'running' | 'failed' | 'stopping';

export interface SandboxCluster {
  readonly server: string;
  /** Admin kubeconfig for the user (loopback address). */
  readonly kubeconfig: string;
  readonly dir: string;
  readonly pids: Readonly<Record<string, number>>;
}

export interface SandboxTether {
  readonly pid: number;
  readonly config: string;
  readonly log: string;
  /** The virtual node this instance runs. */
  readonly node: string;
  /** The network namespace it runs in, when run as root. */
  readonly netns?: string;
}

export interface SandboxState {
  status: SandboxStatus;
  message?: string;
  /** The `tether sandbox` process that owns everything below. */
  supervisorPid: number;
  stateDir: string;
  startedAt: string;
  startupMs?: number;
  kubectl?: string;
  clusters?: { host?: SandboxCluster; remote?: SandboxCluster };
  tether?: { host?: SandboxTether; remote?: SandboxTether };
  /** Network namespaces created (root only); `netnsUnavailable` says why there are none. */
  netns?: string[];
  netnsUnavailable?: string;
  introspectionUrl: string | null;
  introspectionUnavailable?: string;
  demo?: { namespace: string; deployment: string; service: string; replicas: number; job?: string; cronJob?: string };
  /** metrics-server in the host cluster (`kubectl top`), or why there is none. */
  metricsServer?: { pid: number; log: string };
  metricsServerUnavailable?: string;
}

export function stateFile(stateDir: string): string {
  return join(stateDir, 'state.json');
}

export function readState(stateDir: string): SandboxState | undefined {
  const file = stateFile(stateDir);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SandboxState;
  } catch {
    return undefined; // being rewritten, or truncated: the caller polls again
  }
}

export function writeState(state: SandboxState): void {
  const file = stateFile(state.stateDir);
  writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 2) + '\n');
  renameSync(`${file}.tmp`, file);
}

/** Every process id the state names (supervisor, control-plane components, Tether instances, metrics-server). */
export function recordedPids(state: SandboxState): number[] {
  const clusters = Object.values(state.clusters ?? {}).flatMap((c) => Object.values(c?.pids ?? {}));
  const tethers = Object.values(state.tether ?? {}).map((t) => t?.pid ?? 0);
  return [state.supervisorPid, ...clusters, ...tethers, state.metricsServer?.pid ?? 0].filter((pid) => pid > 0);
}

export function absoluteStateDir(dir: string | undefined): string {
  return resolve(dir ?? DEFAULT_STATE_DIR);
}
