/**
 * Bringing the sandbox up, step by step, with a progress line per step: the control-plane binaries
 * (built on first use, about 7 minutes), network namespaces when root, a host and a remote cluster,
 * the two Tether instances, metrics-server in the host cluster (when built and with network
 * namespaces), the demo. Everything started is torn down by `teardown()`, also when a
 * step fails half-way.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster } from '../harness/controlPlane.js';
import { startCluster } from '../harness/controlPlane.js';
import { kubeBinaries } from '../harness/kubeBinaries.js';
import { startMetricsServer, type MetricsServer } from '../harness/metricsServer.js';
import { metricsServerBinary } from '../harness/metricsServerBinary.js';
import { createNetworkNamespace, networkNamespaceSupport, type NetworkNamespace } from '../harness/networkNamespace.js';
import { GiveUp, waitFor } from '../harness/poll.js';
import { deployDemo, DEMO } from './demo.js';
import { startInstance, type Instance } from './instances.js';
import type { SandboxCluster, SandboxState } from './state.js';
import { writeState } from './state.js';
import { hostTetherConfig, introspectionUrl, remoteWorkerConfig, REMOTE_WORKER, toYaml, VIRTUAL_NODE } from './topology.js';
import { definedOnly, when } from '../lib/defaults.js';

export interface UpOptions {
  readonly stateDir: string;
  /** Run the Tether instances in network namespaces when possible (root). Default true. */
  readonly netns: boolean;
  readonly progress: (line: string) => void;
}

export class Sandbox {
  readonly state: SandboxState;
  private readonly clusters: Cluster[] = [];
  private readonly instances: Instance[] = [];
  private readonly namespaces: NetworkNamespace[] = [];
  private metricsServer: MetricsServer | undefined;
  private down = false;
  private readonly reported = new Set<string>();

  constructor(private readonly options: UpOptions) {
    this.state = {
      status: 'starting', supervisorPid: process.pid, stateDir: options.stateDir, startedAt: new Date().toISOString(),
      introspectionUrl: null,
    };
  }

  async up(): Promise<void> {
    const { stateDir, progress } = this.options;
    const started = Date.now();
    mkdirSync(stateDir, { recursive: true });
    writeState(this.state);

    progress('control-plane binaries: checking ~/.cache/tether/kube (the first build takes about 7 minutes; its progress follows)');
    const binaries = await kubeBinaries();
    this.state.kubectl = binaries.kubectl;
    progress(`control-plane binaries: ready (${binaries.kubectl.replace(/\/kubectl$/, '')})`);

    const [hostNs, remoteNs] = await this.networkNamespaces();
    const nsAddresses = [hostNs, remoteNs].filter((n): n is NetworkNamespace => n !== undefined).map((n) => n.hostAddress);
    progress('clusters: starting a host and a remote cluster (etcd, kube-apiserver, kube-controller-manager, kube-scheduler)');
    const clusterOptions = (name: string): Parameters<typeof startCluster>[0] => ({
      name: `sandbox-${name}`, dir: join(stateDir, 'clusters', name), binaries,
      ...when(nsAddresses.length > 0, () => ({ extraSans: nsAddresses, apiserverBindAddress: '0.0.0.0' })),
    });
    const [host, remote] = await Promise.all([startCluster(clusterOptions('host')), startCluster(clusterOptions('remote'))]);
    this.clusters.push(host, remote);
    this.state.clusters = { host: await this.describeCluster(host, 'host'), remote: await this.describeCluster(remote, 'remote') };
    writeState(this.state);
    progress(`clusters: host ${host.server}, remote ${remote.server} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

    const serverFor = (cluster: Cluster, ns: NetworkNamespace | undefined): string | undefined =>
      ns ? cluster.server.replace('127.0.0.1', ns.hostAddress) : undefined;
    const dir = join(stateDir, 'tether');
    mkdirSync(dir, { recursive: true });
    const kubeconfigFor = async (cluster: Cluster, ns: NetworkNamespace | undefined, file: string): Promise<string> => {
      const server = serverFor(cluster, ns);
      return cluster.writeKubeconfig(join(dir, file), server ? { server } : {});
    };

    progress(`tether: starting node '${REMOTE_WORKER}' in the remote cluster (simulated provider)${remoteNs ? ` in netns ${remoteNs.name}` : ''}`);
    const worker = startInstance({
      name: 'remote', dir, ...definedOnly({ netns: remoteNs }),
      configYaml: toYaml(remoteWorkerConfig({ clusterKubeconfig: await kubeconfigFor(remote, remoteNs, 'remote-worker.kubeconfig'), internalIP: remoteNs?.namespaceAddress ?? '127.0.0.1', clusterCA: remote.describe().caCertPath }), 'The remote cluster\'s worker: a Tether node with the simulated provider.'),
    });
    this.instances.push(worker);
    progress(`tether: starting virtual node '${VIRTUAL_NODE}' in the host cluster (Kubernetes provider → remote)${hostNs ? ` in netns ${hostNs.name}` : ''}`);
    const offloader = startInstance({
      name: 'host', dir, ...definedOnly({ netns: hostNs }),
      configYaml: toYaml(hostTetherConfig({
        clusterKubeconfig: await kubeconfigFor(host, hostNs, 'host.kubeconfig'),
        remoteKubeconfig: await kubeconfigFor(remote, hostNs, 'remote.kubeconfig'),
        internalIP: hostNs?.namespaceAddress ?? '127.0.0.1',
        clusterCA: host.describe().caCertPath,
      }), 'The host cluster\'s Tether: one virtual node offloading to the remote cluster.'),
    });
    this.instances.push(offloader);
    this.state.introspectionUrl = introspectionUrl(hostNs?.namespaceAddress ?? '127.0.0.1', 'host');
    this.state.tether = {
      remote: { pid: worker.process.pid, config: worker.configPath, log: worker.logPath, node: REMOTE_WORKER, ...definedOnly({ netns: remoteNs?.name }) },
      host: { pid: offloader.process.pid, config: offloader.configPath, log: offloader.logPath, node: VIRTUAL_NODE, ...definedOnly({ netns: hostNs?.name }) },
    };
    writeState(this.state);
    await Promise.all([this.nodeReady(remote, REMOTE_WORKER, worker), this.nodeReady(host, VIRTUAL_NODE, offloader)]);
    progress(`tether: both nodes Ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    await this.startMetricsServer(host, hostNs);

    progress(`demo: a Deployment '${DEMO.deployment}' of ${DEMO.replicas} replicas, a Service, Job '${DEMO.job}' and CronJob '${DEMO.cronJob}' in namespace '${DEMO.namespace}' of the host cluster`);
    await deployDemo(host, VIRTUAL_NODE);
    this.state.demo = DEMO;
    this.state.status = 'running';
    this.state.startupMs = Date.now() - started;
    writeState(this.state);
    progress(`demo: ${DEMO.replicas} pods Running on ${VIRTUAL_NODE} (${(this.state.startupMs / 1000).toFixed(1)} s in all)`);
  }

  /** Components that exited since the last check, once each (the sandbox keeps running; the user should know). */
  check(): string[] {
    const lines: string[] = [];
    for (const instance of this.instances) {
      if (instance.process.running || this.reported.has(instance.logPath)) continue;
      this.reported.add(instance.logPath);
      lines.push(`${instance.process.spec.name} exited ${JSON.stringify(instance.process.status)}; its log: ${instance.logPath}`);
    }
    return lines;
  }

  /** Stops the Tether instances, then the clusters, removes the namespaces and (unless kept) the state dir. */
  async teardown(options: { keepStateDir: boolean }): Promise<void> {
    if (this.down) return;
    this.down = true;
    this.state.status = 'stopping';
    try {
      writeState(this.state);
    } catch {
      // the state dir may already be gone
    }
    await Promise.all([...this.instances.map((i) => i.process.stop(8_000)), this.metricsServer?.process.stop(5_000)]);
    await Promise.all(this.clusters.map((c) => c.stop({ keepDir: true })));
    await Promise.all(this.namespaces.map((n) => n.remove()));
    if (!options.keepStateDir) rmSync(this.options.stateDir, { recursive: true, force: true });
  }

  /**
   * metrics-server in the host cluster, for `kubectl top` (through the Kubernetes provider's stats):
   * only when it is already built (the sandbox does not wait minutes for it) and with network
   * namespaces (the API server dials it at a non-loopback address). Not fatal: the summary says why not.
   */
  private async startMetricsServer(host: Cluster, hostNs: NetworkNamespace | undefined): Promise<void> {
    const { progress } = this.options;
    const binary = hostNs ? await metricsServerBinary({ cachedOnly: true }) : undefined;
    if (!hostNs || !binary?.available) {
      this.state.metricsServerUnavailable = binary?.available === false ? binary.reason : 'it needs network namespaces (a non-loopback address the API server dials)';
      progress(`metrics-server: not started (${this.state.metricsServerUnavailable})`);
      return;
    }
    progress(`metrics-server: starting in the host cluster at ${hostNs.hostAddress} (APIService v1beta1.metrics.k8s.io)`);
    try {
      this.metricsServer = await startMetricsServer(host, { address: hostNs.hostAddress, binary: binary.path, metricResolution: '15s' });
      this.state.metricsServer = { pid: this.metricsServer.process.pid, log: this.metricsServer.logPath };
      progress('metrics-server: Available (kubectl top shows usage after two scrapes, about 30 s)');
    } catch (error) {
      this.state.metricsServerUnavailable = `metrics-server did not start: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`;
      progress(`metrics-server: not started (${this.state.metricsServerUnavailable})`);
    }
    writeState(this.state);
  }

  private async networkNamespaces(): Promise<[NetworkNamespace | undefined, NetworkNamespace | undefined]> {
    if (!this.options.netns) {
      this.state.netnsUnavailable = 'turned off with --no-netns';
      return [undefined, undefined];
    }
    const support = await networkNamespaceSupport();
    if (!support.available) {
      this.state.netnsUnavailable = support.reason;
      this.options.progress(`network namespaces: unavailable (${support.reason}); the Tether instances run on 127.0.0.1`);
      return [undefined, undefined];
    }
    const hostNs = await createNetworkNamespace('sbx-host');
    this.namespaces.push(hostNs);
    const remoteNs = await createNetworkNamespace('sbx-remote');
    this.namespaces.push(remoteNs);
    this.state.netns = [hostNs.name, remoteNs.name];
    this.options.progress(`network namespaces: ${hostNs.name} (${hostNs.namespaceAddress}), ${remoteNs.name} (${remoteNs.namespaceAddress})`);
    return [hostNs, remoteNs];
  }

  private async describeCluster(cluster: Cluster, name: string): Promise<SandboxCluster> {
    const kubeconfig = await cluster.writeKubeconfig(join(this.options.stateDir, `${name}.kubeconfig`));
    const d = cluster.describe();
    return { server: d.server, kubeconfig, dir: d.dir, pids: d.pids };
  }

  private async nodeReady(cluster: Cluster, node: string, instance: Instance): Promise<void> {
    await waitFor(`node ${node} Ready in ${cluster.name}`, async () => {
      if (!instance.process.running) throw new GiveUp(`tether for ${node} exited:\n${instance.process.logTail(30)}`);
      const out = await cluster.kubectl(['get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}']).catch(() => '');
      return out.trim() === 'True';
    }, { timeoutMs: 120_000, intervalMs: 500 });
  }
}
