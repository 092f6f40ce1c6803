/**
 * Where the hostile-client cases (and `npm run bench:hostile`) run: a real `tether run` (its own
 * process) with two virtual nodes in the host cluster, their kubelet APIs on the host-side address
 * of a harness network namespace (the API server does not proxy to loopback):
 * - `simulated`: the simulated provider; pod `victim` (another user's: exec, port-forward, top) and
 *   pod `bait` (what the attacker's requests name);
 * - `offloading`: the Kubernetes provider, offloading to the remote cluster, whose only worker for
 *   these pods is a Tether node with the simulated provider (in this process), tainted so that no
 *   one else's remote pods land on it; pod `offloaded` runs there.
 * Leases renew every 2 s (lease 10 s), watched from outside (leaseWatch.ts). The attacker is a user
 * of its own (a client certificate signed by the host CA, allowed `get` and `create` on
 * `nodes/proxy`); the scraper is a ServiceAccount allowed what metrics-server is allowed, with a
 * token, as metrics-server in a cluster has one.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createAccessReviewer } from '../../src/adapters/kubernetes/accessReviewClient.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { mintClientCertificate } from '../../src/harness/certificates.js';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { createNetworkNamespace } from '../../src/harness/networkNamespace.js';
import { GiveUp, waitFor } from '../../src/harness/poll.js';
import { freePort } from '../../src/harness/ports.js';
import { startKubeletServer } from '../../src/kubelet/kubeletServer.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { uniqueNamespace } from '../harness/sharedClusters.js';
import type { KubeletAddress, ClientIdentity } from './hostileClients.js';
import { condition, getJson, podManifest, type KubeObject } from './kubectlJson.js';
import { LeaseWatch } from './leaseWatch.js';
import { execCheck, type PodRef } from './serviceChecks.js';
import { TetherProcess, type CliCommand } from './tetherProcess.js';

export const RENEW_INTERVAL_MS = 2_000;
const LEASE_SECONDS = 10;
/** The simulated pods' HTTP port (the simulated provider answers on every declared containerPort). */
export const POD_PORT = 8080;
const WORKER_TAINT = 'tether.dev/hostile-worker';

export interface NodeUnderTest {
  readonly name: string;
  readonly kubelet: KubeletAddress;
  readonly leases: LeaseWatch;
}

export interface HostileEnvironment {
  readonly host: ClusterAccess;
  readonly remote: ClusterAccess;
  readonly namespace: string;
  readonly tether: TetherProcess;
  readonly simulated: NodeUnderTest;
  readonly offloading: NodeUnderTest;
  /** The attacker's client certificate (no token review: only the SubjectAccessReview is asked). */
  readonly attacker: ClientIdentity;
  /** The attacker's ServiceAccount token (a TokenReview, then the SubjectAccessReview). */
  readonly attackerToken: ClientIdentity;
  readonly scraper: ClientIdentity;
  readonly victim: PodRef;
  readonly bait: PodRef;
  readonly offloaded: PodRef;
  /** The host-side address of the network namespace: where the kubelet APIs (and metrics-server) listen. */
  readonly address: string;
  /** Starts `tether run` again if it is not running (or `force`), and waits until its nodes and pods are back. */
  ensureTether(force?: boolean): Promise<'same' | 'restarted'>;
}

export interface HostileSetupOptions {
  readonly host: ClusterAccess;
  readonly remote: ClusterAccess;
  /** Where the config, the log and the attacker's certificate go. */
  readonly dir: string;
  readonly cli: CliCommand;
  /** Registers a clean-up; they run in reverse order. */
  readonly cleanup: (fn: () => unknown) => void;
  readonly log?: (line: string) => void;
}

const rbac = 'rbac.authorization.k8s.io/v1';

function clusterRole(name: string, subject: Record<string, string>, rules: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return [
    { apiVersion: rbac, kind: 'ClusterRole', metadata: { name }, rules },
    { apiVersion: rbac, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [subject] },
  ];
}

const pod = (name: string, namespace: string, node: string, ports: boolean): string => podManifest(name, namespace, node, {
  containers: [{
    name: 'app', image: 'nginx', ...(ports ? { ports: [{ containerPort: POD_PORT }] } : {}),
    resources: { requests: { cpu: '200m', memory: '64Mi' } },
  }],
});

/** The remote cluster's worker for the offloaded pod: a Tether node (simulated provider) in this process. */
async function startRemoteWorker(options: HostileSetupOptions, address: string, name: string): Promise<void> {
  const { remote, cleanup } = options;
  const provider = new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100, podCIDR: '10.89.0.0/16' });
  const kubelet = await startKubeletServer({
    nodeName: name, provider, address, port: 0,
    reviewer: createAccessReviewer(remote.kubeConfig()),
    clientCA: readFileSync(remote.describe().caCertPath, 'utf8'),
  });
  cleanup(() => kubelet.stop());
  const agent = TetherAgent.start({
    host: { kind: 'file', path: remote.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name, internalIP: address, kubeletPort: kubelet.port, provider, taints: [{ key: WORKER_TAINT, value: 'true', effect: 'NoSchedule' }] }],
  });
  cleanup(async () => {
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
}

function tetherConfig(options: HostileSetupOptions, at: { address: string; introspection: number; ports: [number, number] }, names: { sim: string; off: string; worker: string; clusterId: string }): Record<string, unknown> {
  const lease = { durationSeconds: LEASE_SECONDS, renewIntervalMs: RENEW_INTERVAL_MS };
  const ping = { intervalMs: 2_000, timeoutMs: 1_000, failureThreshold: 3, successThreshold: 1 };
  return {
    logLevel: 'warn',
    host: { kubeconfig: options.host.kubeconfigPath },
    ports: { introspection: { port: at.introspection, address: '127.0.0.1' } },
    kubeletApi: { address: at.address, clientCAFile: options.host.describe().caCertPath },
    // The Nodes stay across a restart (deleted at clean-up): the pod GC would take pods bound to a missing node.
    shutdown: { timeoutMs: 5_000, deleteNodeOnShutdown: false },
    nodes: [
      { name: names.sim, internalIP: at.address, kubeletPort: at.ports[0], lease, ping, provider: { type: 'simulated', startLatencyMs: 200, stopLatencyMs: 100 } },
      {
        name: names.off, internalIP: at.address, kubeletPort: at.ports[1], lease, ping,
        provider: {
          type: 'kubernetes', remote: { kubeconfig: options.remote.kubeconfigPath }, hostClusterId: names.clusterId,
          quota: { cpu: '16', memory: '64Gi', pods: '110' }, reflectedKinds: 'none',
          offloadingPatch: {
            nodeSelector: { 'kubernetes.io/hostname': names.worker },
            tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }],
          },
        },
      },
    ],
  };
}

export async function setUpHostileEnvironment(options: HostileSetupOptions): Promise<HostileEnvironment> {
  const { host, remote, cleanup, dir } = options;
  const log = options.log ?? (() => undefined);
  const netns = await createNetworkNamespace('hostil');
  cleanup(() => netns.remove());
  const address = netns.hostAddress;
  const id = uniqueNamespace('h').slice(2);
  const names = { sim: `hostile-sim-${id}`, off: `hostile-off-${id}`, worker: `hostile-worker-${id}`, clusterId: `h${id}` };

  const namespace = uniqueNamespace('hostile');
  await host.kubectl(['create', 'namespace', namespace]);
  cleanup(() => host.kubectl(['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined));
  cleanup(() => remote.kubectl(['delete', 'namespace', `${namespace}-${names.clusterId}`, '--wait=false', '--ignore-not-found']).catch(() => undefined));

  const attackerUser = `hostile-attacker-${id}`;
  const ca = host.describe().caCertPath;
  const attackerPair = await mintClientCertificate({ certPath: ca, keyPath: join(dirname(ca), 'ca.key') }, dir, { user: attackerUser, groups: [] });
  const attacker: ClientIdentity = { cert: readFileSync(attackerPair.certPath, 'utf8'), key: readFileSync(attackerPair.keyPath, 'utf8') };
  const roles = [
    ...clusterRole(`hostile-attacker-${id}`, { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: attackerUser },
      [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get', 'create'] }]),
    ...clusterRole(`hostile-attacker-sa-${id}`, { kind: 'ServiceAccount', name: 'attacker', namespace },
      [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get', 'create'] }]),
    ...clusterRole(`hostile-scraper-${id}`, { kind: 'ServiceAccount', name: 'scraper', namespace },
      [{ apiGroups: [''], resources: ['nodes/metrics', 'nodes/stats'], verbs: ['get'] }]),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'scraper', namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'attacker', namespace } },
  ];
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: roles }) });
  cleanup(() => host.kubectl(['delete', 'clusterrole,clusterrolebinding', `hostile-attacker-${id}`, `hostile-attacker-sa-${id}`, `hostile-scraper-${id}`, '--ignore-not-found']).catch(() => undefined));
  const token = async (sa: string): Promise<string> => (await host.kubectl(['create', 'token', sa, '-n', namespace, '--duration=2h'])).trim();
  const scraper: ClientIdentity = { token: await token('scraper') };
  const attackerToken: ClientIdentity = { token: await token('attacker') };

  log(`remote worker ${names.worker}`);
  await startRemoteWorker(options, address, names.worker);
  const ports: [number, number] = [await freePort(address), await freePort(address)];
  const tether = new TetherProcess({
    config: tetherConfig(options, { address, introspection: await freePort(), ports }, names),
    configPath: join(dir, 'tether.json'), logPath: join(dir, 'tether.log'), cli: options.cli,
  });
  cleanup(() => host.kubectl(['delete', 'node', names.sim, names.off, '--ignore-not-found', '--wait=false']).catch(() => undefined));
  cleanup(() => tether.stop());
  tether.start();
  log(`tether run (pid ${tether.pid}), nodes ${names.sim} and ${names.off}`);

  const victim = { namespace, pod: 'victim' };
  const bait = { namespace, pod: 'bait' };
  const offloaded = { namespace, pod: 'offloaded' };
  const nodesAndPodsReady = async (): Promise<void> => {
    const alive = (): void => {
      if (!tether.running()) throw new GiveUp(`tether run exited ${JSON.stringify(tether.exitStatus())}:\n${tether.logTail(30)}`);
    };
    await waitFor('both virtual nodes Ready', async () => {
      alive();
      const [a, b] = await Promise.all([names.sim, names.off].map((n) => getJson<KubeObject>(host, ['node', n])));
      return condition(a, 'Ready')?.status === 'True' && condition(b, 'Ready')?.status === 'True';
    }, { timeoutMs: 120_000, intervalMs: 500 });
    // Running, not Ready: after a restart the simulated provider gives its pods new IPs, which the
    // host refuses as a second podIP of the family (422), so Ready can stay False; exec is the test.
    await waitFor('victim, bait and offloaded Running', async () => {
      alive();
      const list = await getJson<{ items: KubeObject[] }>(host, ['pods', '-n', namespace]);
      const running = (list?.items ?? []).filter((p) => p.status?.phase === 'Running');
      return running.length === 3;
    }, { timeoutMs: 120_000, intervalMs: 500 });
    // Ready and Running may be what the previous process left: the new one serves when exec works.
    await waitFor('exec in victim and offloaded', async () => {
      alive();
      const results = await Promise.all([execCheck(host, victim), execCheck(host, offloaded)]);
      if (results.every((r) => r.ok)) return true;
      throw new Error(results.map((r) => `${r.pod}: ${r.detail}`).join('; '));
    }, { timeoutMs: 120_000, intervalMs: 1_000 });
  };
  await waitFor('the worker Ready in the remote cluster', async () => condition(await getJson<KubeObject>(remote, ['node', names.worker]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  await waitFor('both virtual nodes registered', async () => {
    if (!tether.running()) throw new GiveUp(`tether run exited:\n${tether.logTail(30)}`);
    return (await getJson(host, ['node', names.sim])) !== undefined && (await getJson(host, ['node', names.off])) !== undefined;
  }, { timeoutMs: 120_000, intervalMs: 500 });
  await host.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('victim', namespace, names.sim, true), pod('bait', namespace, names.sim, true), pod('offloaded', namespace, names.off, false)].map((m) => JSON.parse(m) as unknown) }),
  });
  await nodesAndPodsReady();
  const node = (name: string, port: number): NodeUnderTest => {
    const leases = new LeaseWatch(host, name);
    cleanup(() => leases.stop());
    return { name, kubelet: { address, port }, leases };
  };
  return {
    host, remote, namespace, tether, address, attacker, attackerToken, scraper, victim, bait, offloaded,
    simulated: node(names.sim, ports[0]),
    offloading: node(names.off, ports[1]),
    async ensureTether(force = false) {
      if (tether.running() && !force) return 'same';
      log(force ? 'restarting tether run' : `tether run had exited (${JSON.stringify(tether.exitStatus())}): starting it again`);
      await tether.restart();
      await nodesAndPodsReady();
      return 'restarted';
    },
  };
}
