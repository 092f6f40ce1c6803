/**
 * A real Kubernetes control plane for tests and the sandbox: etcd, kube-apiserver,
 * kube-controller-manager and kube-scheduler as child processes on free loopback ports, with their
 * own credentials, data and logs under one directory. Two clusters share nothing but the machine.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClusterCredentials, mintClientCertificate, readPem, type ClusterCredentials, type Identity } from './certificates.js';
import { ClusterAccess, componentLogPath, type ClusterDescription, type ControlPlaneComponent } from './clusterAccess.js';
import {
  apiserverArgs, controllerManagerArgs, etcdArgs, schedulerArgs, schedulerConfig, TEST_NODE_LIFECYCLE,
  type ClusterLayout, type NodeLifecycleTuning,
} from './componentFlags.js';
import { isHealthy, type ProbeTls } from './healthProbe.js';
import { kubeBinaries, type KubeBinaries } from './kubeBinaries.js';
import { renderKubeconfig } from './kubeconfig.js';
import { describeError, GiveUp, waitFor } from './poll.js';
import { freePort } from './ports.js';
import { definedOnly } from '../lib/defaults.js';
import { startProcess, stopProcessGroup, type ManagedProcess } from './processes.js';

export interface StartClusterOptions {
  name: string;
  /** Defaults to a fresh directory under the OS temp dir, removed again by `stop()`. */
  dir?: string;
  /** Extra IP addresses for the serving certificate (e.g. a network namespace's host-side address). */
  extraSans?: readonly string[];
  /** Where the API server listens; 0.0.0.0 when a network namespace must reach it. */
  apiserverBindAddress?: string;
  serviceClusterIpRange?: string;
  /** Pod CIDR handed out to Nodes as `spec.podCIDRs` (componentFlags.ts); default none, as the shared test clusters run. */
  clusterCidr?: string;
  nodeLifecycle?: NodeLifecycleTuning;
  tokenIdentities?: readonly Identity[];
  binaries?: KubeBinaries;
  /** Per component; the API server's first start dominates (about 10 s on 2 cores). */
  readyTimeoutMs?: number;
}

type Processes = Partial<Record<ControlPlaneComponent, ManagedProcess>>;

/**
 * Restarted when they exit unexpectedly, as the kubelet restarts static pods: the controller
 * manager exits for good if the API server goes away while it is still starting its controllers.
 */
const RESTARTED_ON_EXIT: ReadonlySet<ControlPlaneComponent> = new Set(['kube-controller-manager', 'kube-scheduler']);

/** Test clusters hold nothing worth a long graceful shutdown; components normally exit within ~1 s. */
const STOP_GRACE_MS = 5_000;

/** What `prepareCluster` works out before anything runs. */
interface ClusterSetup {
  layout: ClusterLayout;
  binaries: KubeBinaries;
  readyTimeoutMs: number;
  ownsDir: boolean;
  /** The same object as `description.pids`, kept current as components (re)start. */
  pids: Record<ControlPlaneComponent, number>;
  description: ClusterDescription;
}

export class Cluster extends ClusterAccess {
  private readonly processes: Processes = {};
  private stopping = false;
  private readonly layout: ClusterLayout;

  constructor(private readonly setup: ClusterSetup) {
    super(setup.description);
    this.layout = setup.layout;
  }

  get credentials(): ClusterCredentials {
    return this.layout.credentials;
  }

  /** Starts all four components in order, each once its dependency is ready. */
  async start(): Promise<void> {
    await this.startComponent('etcd', etcdArgs(this.layout), `http://127.0.0.1:${this.layout.ports.etcdClient}/health`);
    await this.startApiServer();
    await Promise.all([
      this.startComponent('kube-controller-manager', controllerManagerArgs(this.layout),
        `https://127.0.0.1:${this.layout.ports.controllerManager}/healthz`),
      this.startComponent('kube-scheduler', schedulerArgs(this.layout), `https://127.0.0.1:${this.layout.ports.scheduler}/healthz`),
    ]);
  }

  /** Stops the API server only (etcd and the rest keep running), to simulate an outage. */
  async stopApiServer(): Promise<void> {
    await this.stopComponent('kube-apiserver');
  }

  /** (Re)starts the API server on the same port against the same etcd, and waits for /readyz. */
  async startApiServer(): Promise<void> {
    await this.startComponent('kube-apiserver', apiserverArgs(this.layout), `${this.readyzBase()}/readyz`);
  }

  /** Stops etcd only (the API server keeps running and fails its requests), to simulate an etcd outage. */
  async stopEtcd(): Promise<void> {
    await this.stopComponent('etcd');
  }

  /** (Re)starts etcd on the same ports and data directory, and waits for its /health. */
  async startEtcd(): Promise<void> {
    await this.startComponent('etcd', etcdArgs(this.layout), `http://127.0.0.1:${this.layout.ports.etcdClient}/health`);
  }

  /** Hands the processes' lifetime to whoever holds the description (see `stopDescribedCluster`). */
  release(): ClusterDescription {
    this.stopping = true; // nobody here will restart anything any more
    for (const proc of Object.values(this.processes)) proc.release();
    return this.describe();
  }

  /** Stops every component (scheduler and controller manager first, etcd last); removes an owned dir. */
  async stop(options: { keepDir?: boolean } = {}): Promise<void> {
    this.stopping = true;
    await Promise.all([this.stopComponent('kube-scheduler'), this.stopComponent('kube-controller-manager')]);
    await this.stopComponent('kube-apiserver');
    await this.stopComponent('etcd');
    if (this.setup.ownsDir && !options.keepDir && !process.env.TETHER_KEEP_CLUSTER_DIRS) {
      await rm(this.dir, { recursive: true, force: true });
    }
  }

  isRunning(component: ControlPlaneComponent): boolean {
    return this.processes[component]?.running ?? false;
  }

  private async stopComponent(component: ControlPlaneComponent): Promise<void> {
    await this.processes[component]?.stop(STOP_GRACE_MS);
    delete this.processes[component];
  }

  private readyzBase(): string {
    return `https://127.0.0.1:${this.layout.ports.apiserver}`;
  }

  private async startComponent(component: ControlPlaneComponent, args: string[], healthUrl: string): Promise<void> {
    if (this.processes[component]?.running) throw new Error(`${this.name}: ${component} is already running`);
    this.stopping = false;
    const proc = this.spawn(component, args);
    const tls = healthUrl.startsWith('https:') ? await this.adminTls() : undefined;
    await waitFor(`${this.name}: ${component} healthy at ${healthUrl}`, async () => {
      if (!proc.running) {
        throw new GiveUp(`${this.name}: ${component} exited (${JSON.stringify(proc.status)}) before becoming healthy:\n${proc.logTail(30)}`);
      }
      return isHealthy(healthUrl, tls);
    }, { timeoutMs: this.setup.readyTimeoutMs, intervalMs: 100 });
  }

  private spawn(component: ControlPlaneComponent, args: string[]): ManagedProcess {
    const logPath = componentLogPath(this.dir, component);
    const proc = startProcess({ name: component, command: this.setup.binaries[component], args, logPath, cwd: this.dir });
    this.processes[component] = proc;
    this.setup.pids[component] = proc.pid;
    if (RESTARTED_ON_EXIT.has(component)) {
      void proc.exited.then((status) => {
        if (this.stopping || this.processes[component] !== proc) return;
        appendFileSync(logPath, `--- tether harness: ${component} exited ${JSON.stringify(status)}; restarting in 1s ---\n`);
        setTimeout(() => {
          if (!this.stopping && this.processes[component] === proc) this.spawn(component, args);
        }, 1_000);
      });
    }
    return proc;
  }

  private async adminTls(): Promise<ProbeTls> {
    const c = this.layout.credentials;
    const [ca, cert, key] = await Promise.all([readPem(c.ca.certPath), readPem(c.admin.certPath), readPem(c.admin.keyPath)]);
    return { ca, cert, key };
  }
}

/** Starts a cluster and waits until every component is healthy. Retries once on a lost port race. */
export async function startCluster(options: StartClusterOptions): Promise<Cluster> {
  const binaries = options.binaries ?? (await kubeBinaries());
  for (let attempt = 1; ; attempt++) {
    const cluster = await prepareCluster(options, binaries);
    try {
      await cluster.start();
      return cluster;
    } catch (error) {
      const report = cluster.logReport(20);
      const portTaken = report.includes('address already in use');
      await cluster.stop({ keepDir: !portTaken });
      if (!portTaken || attempt >= 3) {
        throw new Error(`cluster ${cluster.name} did not start: ${describeError(error)}\n${report}`, { cause: error });
      }
    }
  }
}

async function prepareCluster(options: StartClusterOptions, binaries: KubeBinaries): Promise<Cluster> {
  const name = options.name.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const ownsDir = options.dir === undefined;
  const dir = options.dir ?? join(tmpdir(), 'tether-clusters', `${name}-${randomBytes(4).toString('hex')}`);
  await ensureEmptyDir(dir);
  await mkdir(join(dir, 'logs'), { recursive: true });

  const bindAddress = options.apiserverBindAddress ?? '127.0.0.1';
  const serviceClusterIpRange = options.serviceClusterIpRange ?? '10.0.0.0/24';
  const credentials = await createClusterCredentials(join(dir, 'pki'), {
    clusterName: name,
    sans: {
      ips: unique(['127.0.0.1', firstServiceIp(serviceClusterIpRange), ...(options.extraSans ?? [])]),
      dns: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
    },
    tokenIdentities: options.tokenIdentities,
  });
  const ports = {
    etcdClient: await freePort(),
    etcdPeer: await freePort(),
    apiserver: await freePort(bindAddress === '0.0.0.0' ? '0.0.0.0' : bindAddress),
    controllerManager: await freePort(),
    scheduler: await freePort(),
  };
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const caPem = await readPem(credentials.ca.certPath);

  const kubeconfigFor = async (file: string, identity: Identity, pair = undefined as undefined | { certPath: string; keyPath: string }): Promise<string> => {
    const keyPair = pair ?? (await mintClientCertificate(credentials.ca, credentials.dir, identity));
    const [certPem, keyPem] = await Promise.all([readPem(keyPair.certPath), readPem(keyPair.keyPath)]);
    const path = join(dir, file);
    await writeFile(path, renderKubeconfig({ name, server, caPem, user: { kind: 'certificate', certPem, keyPem } }), { mode: 0o600 });
    return path;
  };
  const kubeconfigPath = await kubeconfigFor('admin.kubeconfig', { user: 'tether-admin', groups: ['system:masters'] }, credentials.admin);
  // The identities kubeadm gives these components; the bootstrap RBAC policy grants them their roles.
  const controllerManagerKubeconfig = await kubeconfigFor('controller-manager.kubeconfig', { user: 'system:kube-controller-manager', groups: [] });
  const schedulerKubeconfig = await kubeconfigFor('scheduler.kubeconfig', { user: 'system:kube-scheduler', groups: [] });
  const schedulerConfigPath = join(dir, 'scheduler-config.json');
  await writeFile(schedulerConfigPath, schedulerConfig(schedulerKubeconfig));

  const layout: ClusterLayout = {
    name, dir, ports, credentials, serviceClusterIpRange,
    ...definedOnly({ clusterCidr: options.clusterCidr }),
    apiserverBindAddress: bindAddress,
    etcdDataDir: join(dir, 'etcd'),
    controllerManagerKubeconfig,
    schedulerKubeconfig,
    schedulerConfigPath,
    nodeLifecycle: options.nodeLifecycle ?? TEST_NODE_LIFECYCLE,
  };
  const pids = { 'etcd': 0, 'kube-apiserver': 0, 'kube-controller-manager': 0, 'kube-scheduler': 0 };
  const description: ClusterDescription = {
    name, dir, server, kubeconfigPath, pids,
    caCertPath: credentials.ca.certPath,
    adminToken: credentials.adminToken,
    tokens: credentials.tokens,
    kubectlPath: binaries.kubectl,
  };
  return new Cluster({ layout, binaries, readyTimeoutMs: options.readyTimeoutMs ?? 90_000, ownsDir, pids, description });
}

/** Stops a cluster from its description alone (the cluster was started by another process). */
export async function stopDescribedCluster(description: ClusterDescription, options: { removeDir?: boolean } = {}): Promise<void> {
  const { pids } = description;
  const stopIfStarted = (pid: number): Promise<void> => (pid > 0 ? stopProcessGroup(pid, STOP_GRACE_MS) : Promise.resolve());
  await Promise.all([stopIfStarted(pids['kube-scheduler']), stopIfStarted(pids['kube-controller-manager'])]);
  await stopIfStarted(pids['kube-apiserver']);
  await stopIfStarted(pids.etcd);
  if (options.removeDir) await rm(description.dir, { recursive: true, force: true });
}

/** The first address of the service range: the `kubernetes` Service's ClusterIP. */
export function firstServiceIp(cidr: string): string {
  const [base] = cidr.split('/');
  const octets = (base ?? '').split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) {
    throw new Error(`not an IPv4 CIDR: ${cidr}`);
  }
  const value = (((octets[0] ?? 0) << 24) | ((octets[1] ?? 0) << 16) | ((octets[2] ?? 0) << 8) | (octets[3] ?? 0)) >>> 0;
  const next = (value + 1) >>> 0;
  return [next >>> 24, (next >>> 16) & 255, (next >>> 8) & 255, next & 255].join('.');
}

async function ensureEmptyDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const entries = await readdir(dir);
  // A reused directory (e.g. .tether/test-clusters/host) starts clean: no stale etcd data or pki.
  await Promise.all(entries.map((entry) => rm(join(dir, entry), { recursive: true, force: true })));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
