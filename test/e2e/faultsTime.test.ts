/**
 * The fault matrix, its time half (issue 13; docs/reliability.md, "Time"): faults where nothing
 * answers rather than something failing. Each converges: host pods Running with the remote status
 * or NotReady while the remote is silent, no call hangs, and everything recovers.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import t from 'tap';
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClients } from '../../src/adapters/kubernetes/kubeClients.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { reportLogsOnFailure, startDedicatedCluster, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { bothReady, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface List<T> {
  items: T[];
}

t.test('the remote API server frozen (SIGSTOP): deadlines fire, the node goes NotReady, nothing hangs; SIGCONT: it recovers; then its etcd restarted: it converges', async (t) => {
  const { host } = await useSharedClusters(t);
  // Frozen below: this remote must be ours alone.
  const remote = await startDedicatedCluster(t, { name: 'frozen-remote' });
  reportLogsOnFailure(t, [host]);
  const clusterId = 'host1';
  const worker = startRemoteWorker(t, remote, { name: uniqueNamespace('frozen-worker'), podCIDR: '10.89.0.0/16' });
  const offloading = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('frozen'),
    hostClusterId: clusterId,
    provider: {
      pingTimeoutMs: 1_000,
      // Short deadlines, so the test sees them fire; the defaults are in adapters/kubernetes/call.ts.
      deadlines: { other: 3_000, list: 5_000, status: 3_000 },
      watch: { connectTimeoutMs: 3_000, listTimeoutMs: 5_000, watchdogMs: 20_000 },
    },
    node: {
      ping: { intervalMs: 1_000, timeoutMs: 2_000, failureThreshold: 2, successThreshold: 2 },
      lease: { renewIntervalMs: 2_000 },
      pod: { retry: { minMs: 500, maxMs: 3_000, factor: 2, jitter: 0.2 }, refetchMs: 500 },
    },
  });
  const virtualNodeName = offloading.name;
  let frozen = false;
  const apiserverPid = (): number => remote.describe().pids['kube-apiserver'];
  const signal = (sig: NodeJS.Signals): void => {
    process.kill(apiserverPid(), sig);
    frozen = sig === 'SIGSTOP';
  };
  // Before the Tethers stop (teardowns run last-in first-out): they could not reach a frozen remote.
  t.teardown(() => {
    if (frozen) signal('SIGCONT');
  });

  const ns = await testNamespace(t, host, 'frozen');
  const hostPods = async (): Promise<KubeObject[]> => (await getJson<List<KubeObject>>(host, ['pods', '-n', ns, '-l', 'app=web']))?.items ?? [];
  const nodeReady = async (): Promise<string | undefined> => condition(await getJson<KubeObject>(host, ['node', virtualNodeName]), 'Ready')?.status;
  const leaseRenewTime = async (): Promise<string | undefined> =>
    (await getJson<{ spec?: { renewTime?: string } }>(host, ['lease', virtualNodeName, '-n', 'kube-node-lease']))?.spec?.renewTime;

  await bothReady(host, offloading, remote, worker);
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: (JSON.parse(podManifest('web', ns, virtualNodeName)) as { spec: unknown }).spec } } };
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(deployment) });
  await waitFor('2 pods Running and Ready with remote IPs', async () => {
    const pods = (await hostPods()).filter((p) => p.status?.phase === 'Running' && p.status.podIP?.startsWith('10.89.') && condition(p, 'Ready')?.status === 'True');
    return pods.length === 2;
  }, { timeoutMs: 120_000, intervalMs: 1_000 });

  signal('SIGSTOP');
  const frozenAt = await leaseRenewTime();
  const down = await waitFor('the virtual node NotReady while its remote is frozen', async () => {
    const n = await getJson<KubeObject>(host, ['node', virtualNodeName]);
    return condition(n, 'Ready')?.status === 'False' ? n : undefined;
  }, { timeoutMs: 90_000 });
  t.match(condition(down, 'Ready')?.message, /timed out|unreachable|readyz/i, 'the reason names the silence');
  await waitFor('every pod Ready=False', async () => (await hostPods()).every((p) => condition(p, 'Ready')?.status === 'False'), { timeoutMs: 90_000 });
  // Nothing on the host side hangs behind the frozen remote: the node's heartbeat goes on.
  await waitFor('the node Lease still renewed during the freeze', async () => {
    const now = await leaseRenewTime();
    return now !== undefined && now !== frozenAt;
  }, { timeoutMs: 30_000 });
  t.ok(remote.isRunning('kube-apiserver'), 'the remote API server was frozen, not stopped');

  signal('SIGCONT');
  await waitFor('the virtual node Ready again', async () => (await nodeReady()) === 'True', { timeoutMs: 120_000 });
  const pods = await waitFor('pods Running and Ready again', async () => {
    const list = await hostPods();
    return list.length === 2 && list.every((p) => p.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True') ? list : undefined;
  }, { timeoutMs: 120_000, intervalMs: 1_000 });
  t.equal(pods.length, 2);
  const remotePods = async (): Promise<KubeObject[]> => (await getJson<List<KubeObject>>(remote, ['pods', '-n', `${ns}-${clusterId}`]))?.items ?? [];
  t.equal((await remotePods()).length, 2, 'no duplicate remote pods');

  // The remote's etcd restarted: the API server fails its requests and watches meanwhile, then
  // serves again; Tether's remote watches restart (re-list) and converge.
  await remote.stopEtcd();
  let etcdUp = false;
  t.teardown(async () => {
    if (!etcdUp) await remote.startEtcd();
  });
  await remote.startEtcd();
  etcdUp = true;
  await host.kubectl(['scale', 'deployment', 'web', '-n', ns, '--replicas=3']);
  await waitFor('3 pods Running and Ready after the etcd restart', async () => {
    const list = await hostPods();
    return list.length === 3 && list.every((p) => p.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True');
  }, { timeoutMs: 120_000, intervalMs: 1_000 });
  await waitFor('3 remote pods, no duplicates', async () => (await remotePods()).length === 3, { timeoutMs: 60_000 });
  t.equal(await nodeReady(), 'True', 'the node Ready after the etcd restart');
  await host.kubectl(['delete', 'deployment', 'web', '-n', ns, '--wait=false']);
  await waitFor('no host pods', async () => (await hostPods()).length === 0, { timeoutMs: 120_000, intervalMs: 1_000 });
});

t.test('the host kube-apiserver restarted: watches resume, and pods created afterwards run', async (t) => {
  // Stopped below: this host must be ours alone.
  const host = await startDedicatedCluster(t, { name: 'restarted-host' });
  const provider = new SimulatedProvider({ startLatencyMs: 200, podCIDR: '10.90.0.0/16' });
  const nodeName = uniqueNamespace('restarted');
  const tether = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider, statusIntervalMs: 5_000, lease: { renewIntervalMs: 2_000 } }],
  });
  let restarted = false;
  t.teardown(async () => {
    if (!restarted) await host.startApiServer().catch(() => undefined);
    await tether.stop({ deleteNodes: true });
    void provider.stop();
  });
  const ns = await testNamespace(t, host, 'restart');
  const phase = async (name: string): Promise<string | undefined> => (await getJson<KubeObject>(host, ['pod', name, '-n', ns]))?.status?.phase;
  // A fresh cluster (or one just restarted) may refuse a pod until its default ServiceAccount exists and admission is ready.
  const createPod = (name: string): Promise<boolean> =>
    waitFor(`pod ${name} accepted`, () => host.kubectl(['apply', '-f', '-'], { input: podManifest(name, ns, nodeName) }).then(() => true, () => false), { timeoutMs: 60_000, intervalMs: 1_000 });
  await waitFor('the node Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 90_000 });
  await createPod('before');
  await waitFor('before Running', async () => (await phase('before')) === 'Running', { timeoutMs: 90_000 });

  await host.stopApiServer();
  await host.startApiServer();
  restarted = true;
  await createPod('after');
  await waitFor('after Running: the pod watch resumed', async () => (await phase('after')) === 'Running', { timeoutMs: 120_000, intervalMs: 1_000 });
  t.equal(await phase('before'), 'Running', 'the pod from before the restart still runs');
  await waitFor('the node Ready after the restart', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 90_000 });
});

/**
 * A TCP proxy that can go silent: while frozen it forwards nothing in either direction and drops
 * what it reads, as a partition that drops packets (connections stay open, nothing answers).
 */
async function silenceableProxy(upstreamPort: number): Promise<{ port: number; freeze(): void; thaw(): void; silenceExisting(): void; close(): Promise<void> }> {
  let frozen = false;
  const sockets = new Set<net.Socket>();
  /** Connections silenced for good (a stalled watch): new ones still flow. */
  const silenced = new WeakSet<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
      sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (!frozen && !silenced.has(from)) to.write(chunk);
      });
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze: () => (frozen = true),
    thaw: () => (frozen = false),
    silenceExisting: () => {
      for (const s of sockets) silenced.add(s);
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const WRITE_VERBS = /^(patch|create|update|replace|delete|record) 2xx$/;
const acknowledgedWrites = (agent: TetherAgent): number =>
  [...agent.apiRequestCounts().values()].flatMap((counts) => [...counts]).filter(([key]) => WRITE_VERBS.test(key)).reduce((sum, [, n]) => sum + n, 0);

t.test('HA: the leader\'s API traffic goes silent: it stops driving (and writing) before the standby takes the node over', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const upstreamPort = Number(new URL(host.server).port);
  const proxy = await silenceableProxy(upstreamPort);
  const hostYaml = readFileSync(host.kubeconfigPath, 'utf8');
  const viaProxy = hostYaml.split(`127.0.0.1:${upstreamPort}`).join(`127.0.0.1:${proxy.port}`);
  const ns = await testNamespace(t, host, 'tether-ha');
  const nodeName = uniqueNamespace('ha');
  const election = { namespace: ns, leaseDurationMs: 8_000, renewDeadlineMs: 5_000, retryPeriodMs: 1_000 };
  const replica = (identity: string, source: { kind: 'string'; yaml: string } | { kind: 'file'; path: string }, provider: SimulatedProvider): TetherAgent =>
    TetherAgent.start({
      host: source,
      logger: silentLogger,
      leaderElection: { ...election, identity },
      nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider, statusIntervalMs: 2_000, lease: { renewIntervalMs: 2_000 } }],
    });
  const providerA = new SimulatedProvider({ startLatencyMs: 100 });
  const providerB = new SimulatedProvider({ startLatencyMs: 100 });
  const a = replica('replica-a', { kind: 'string', yaml: viaProxy }, providerA);
  await waitFor('replica a drives the node', () => a.nodes.length === 1, { timeoutMs: 60_000 });
  const b = replica('replica-b', { kind: 'file', path: host.kubeconfigPath }, providerB);
  t.teardown(async () => {
    proxy.thaw();
    await Promise.all([a.stop({ deadlineMs: 1500 }), b.stop({ deleteNodes: true })]);
    await proxy.close();
    void providerA.stop();
    void providerB.stop();
  });
  await waitFor('the node Ready, driven by a', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  t.equal(b.nodes.length, 0, 'b is the standby');

  proxy.freeze();
  // Both are polled together, so the order in which they happened is what they show.
  let aStoppedFirst: boolean | undefined;
  let writesAtLoss = 0;
  await waitFor('a gives the node up and b takes it', () => {
    if (aStoppedFirst === undefined && a.nodes.length === 0) {
      aStoppedFirst = b.nodes.length === 0;
      writesAtLoss = acknowledgedWrites(a);
    }
    return aStoppedFirst !== undefined && b.nodes.length === 1;
  }, { timeoutMs: 60_000, intervalMs: 50 });
  t.equal(aStoppedFirst, true, 'the silent leader stopped driving the node before the standby started');
  await waitFor('the node Ready, driven by b', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });

  // The partition heals: whatever a had queued for the node must not reach the API server now.
  proxy.thaw();
  const lock = async (): Promise<string | undefined> =>
    (await getJson<{ spec?: { holderIdentity?: string } }>(host, ['lease', `tether-node-${nodeName}`, '-n', ns]))?.spec?.holderIdentity;
  await waitFor('a looks at the lock again and sees b holding it', async () => {
    const counts = [...a.apiRequestCounts().values()][0];
    return (await lock()) === 'replica-b' && (counts?.get('get 2xx') ?? 0) > 0;
  }, { timeoutMs: 30_000 });
  const beforeLooks = [...a.apiRequestCounts().values()][0]?.get('get 2xx') ?? 0;
  await waitFor('a has looked a few more times', () => ([...a.apiRequestCounts().values()][0]?.get('get 2xx') ?? 0) >= beforeLooks + 3, { timeoutMs: 30_000 });
  t.equal(acknowledgedWrites(a), writesAtLoss, 'the API server acknowledged no write of a since it lost the lock');
  t.equal(a.nodes.length, 0, 'a stays a standby');
  t.equal(await lock(), 'replica-b');
});

t.test('a watch that stalls silently: the watchdog notices and re-lists, and what changed meanwhile arrives', async (t) => {
  const { host } = await useSharedClusters(t);
  const upstreamPort = Number(new URL(host.server).port);
  const proxy = await silenceableProxy(upstreamPort);
  const kc = new KubeConfig();
  kc.loadFromString(readFileSync(host.kubeconfigPath, 'utf8').split(`127.0.0.1:${upstreamPort}`).join(`127.0.0.1:${proxy.port}`));
  const nodeName = uniqueNamespace('stalled');
  // No connection reuse: a re-list must not ride on a silenced keep-alive socket.
  const clients = createKubeClients(kc, { nodeName, connectionPool: false, watch: { watchdogMs: 3_000, initialBackoffMs: 200, jitter: 0 }, deadlines: { list: 3_000 } });
  const watch = clients.watchPods();
  const seen = new Set<string>();
  let relists = 0;
  watch.events.subscribe((e) => {
    if ('pod' in e && e.type !== 'deleted') seen.add(e.pod.metadata?.name ?? '');
    if (e.type === 'synced') relists += 1;
  });
  t.teardown(async () => {
    void watch.stop();
    await clients.stop();
    await proxy.close();
  });
  watch.start();
  await waitFor('the watch synced', () => watch.hasSynced(), { timeoutMs: 30_000 });
  const ns = await testNamespace(t, host, 'stall');
  const pod = (name: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { nodeName, containers: [{ name: 'c', image: 'nginx:1.27' }] } });
  await host.kubectl(['apply', '-f', '-'], { input: pod('before') });
  await waitFor('the watch sees a pod bound to the node', () => seen.has('before'), { timeoutMs: 30_000 });
  const relistsBefore = relists;
  proxy.silenceExisting(); // the watch connection stays open and says nothing more
  await host.kubectl(['apply', '-f', '-'], { input: pod('during') });
  await waitFor('the watchdog re-listed and the pod created during the stall arrived', () => relists > relistsBefore && seen.has('during'), { timeoutMs: 60_000 });
  t.pass(`re-listed (${relists - relistsBefore} times) after the stall`);
  await host.kubectl(['delete', 'pod', '--all', '-n', ns, '--grace-period=0', '--force', '--wait=false']);
});
