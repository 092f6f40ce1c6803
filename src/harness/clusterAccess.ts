/**
 * What a test needs to use a running cluster, whoever started it: its description (serialisable,
 * so a cluster started by tap's `before` script can be used from every test process), a kubectl
 * bound to its admin kubeconfig, a client-node KubeConfig, and its component logs.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { TokenIdentity } from './certificates.js';
import { readLogTail } from './processes.js';

export const CONTROL_PLANE_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export type ControlPlaneComponent = (typeof CONTROL_PLANE_COMPONENTS)[number];

export interface ClusterDescription {
  name: string;
  dir: string;
  /** https://host:port of the API server as reached from this machine's loopback. */
  server: string;
  kubeconfigPath: string;
  caCertPath: string;
  adminToken: string;
  tokens: readonly TokenIdentity[];
  /** Process ids; each component leads its own process group. */
  pids: Readonly<Record<ControlPlaneComponent, number>>;
  kubectlPath: string;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (e.g. a manifest for `apply -f -`). */
  input?: string;
  timeoutMs?: number;
}

export class KubectlError extends Error {
  constructor(readonly args: readonly string[], readonly code: number | string | null, readonly stderr: string) {
    super(`kubectl ${args.join(' ')} failed (${code}): ${stderr.trim()}`);
    this.name = 'KubectlError';
  }
}

export class ClusterAccess {
  constructor(protected description: ClusterDescription) {}

  get name(): string {
    return this.description.name;
  }

  get dir(): string {
    return this.description.dir;
  }

  get server(): string {
    return this.description.server;
  }

  get kubeconfigPath(): string {
    return this.description.kubeconfigPath;
  }

  describe(): ClusterDescription {
    return this.description;
  }

  /** A fresh client-node KubeConfig for the admin identity. */
  kubeConfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromFile(this.description.kubeconfigPath);
    return config;
  }

  /** Runs the built kubectl against this cluster as admin; resolves to stdout, rejects with stderr. */
  kubectl(args: readonly string[], options: KubectlOptions = {}): Promise<string> {
    const fullArgs = [`--kubeconfig=${this.description.kubeconfigPath}`, ...args];
    return new Promise((resolve, reject) => {
      const child = execFile(this.description.kubectlPath, fullArgs, { timeout: options.timeoutMs ?? 60_000, maxBuffer: 32 << 20 },
        (error, stdout, stderr) => {
          if (error) reject(new KubectlError(args, error.code ?? error.signal ?? null, stderr || error.message));
          else resolve(stdout);
        });
      // A kubectl that exits before reading its input (an API server refusing at once) breaks the
      // pipe; execFile's callback reports that call, so the write error must not go uncaught.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.input ?? '');
    });
  }

  /**
   * Writes a kubeconfig for this cluster at `path`: the admin one, optionally with another server
   * address (e.g. the API server as seen from a network namespace) or a token user instead.
   */
  async writeKubeconfig(path: string, options: { server?: string; token?: string } = {}): Promise<string> {
    const config = JSON.parse(await readFile(this.description.kubeconfigPath, 'utf8')) as {
      clusters: { cluster: { server: string } }[];
      users: { user: Record<string, string> }[];
    };
    for (const entry of config.clusters) entry.cluster.server = options.server ?? entry.cluster.server;
    if (options.token !== undefined) for (const entry of config.users) entry.user = { token: options.token };
    await writeFile(path, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
    return path;
  }

  logPath(component: ControlPlaneComponent): string {
    return componentLogPath(this.description.dir, component);
  }

  /** The tail of one component's log, for failure reports. */
  logs(component: ControlPlaneComponent, lines = 40): string {
    return readLogTail(this.logPath(component), lines);
  }

  /** Every component's log tail, headed by component name. */
  logReport(lines = 30): string {
    return CONTROL_PLANE_COMPONENTS.map((c) => `--- ${this.name}/${c} (${this.logPath(c)}) ---\n${this.logs(c, lines)}`).join('\n');
  }
}

export function componentLogPath(dir: string, component: ControlPlaneComponent): string {
  return join(dir, 'logs', `${component}.log`);
}

/** Access to a cluster someone else started and will stop. */
export function attachCluster(description: ClusterDescription): ClusterAccess {
  return new ClusterAccess(description);
}
