/**
 * The virtual node against a real control plane (issue 4): registration, scheduling, lease,
 * health, conditions written by others, re-creation, several nodes per process.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

t.test('a virtual node in a real cluster', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('vnode');
  const provider = new SimulatedProvider({ startLatencyMs: 100 });
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider, labels: { team: 'platform' }, ping: { intervalMs: 500, timeoutMs: 1_000, failureThreshold: 2, successThreshold: 2 }, statusIntervalMs: 3_000 }],
  });
  t.teardown(async () => {
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  const node = (): Promise<KubeObject | undefined> => getJson<KubeObject>(host, ['node', nodeName]);

  await t.test('registers with labels, taint, capacity, addresses and Ready', async (t) => {
    const n = await waitFor('the Node is Ready', async () => {
      const got = await node();
      return condition(got, 'Ready')?.status === 'True' ? got : undefined;
    }, { timeoutMs: 60_000 });
    t.match(n.metadata.labels, { type: 'virtual-kubelet', 'kubernetes.io/role': 'agent', 'node.kubernetes.io/exclude-from-external-load-balancers': 'true', team: 'platform', 'kubernetes.io/hostname': nodeName });
    t.match(n.spec?.taints, [{ key: 'virtual-kubelet.io/provider', effect: 'NoSchedule' }]);
    t.match(n.status?.capacity, { cpu: '20', memory: '100Gi', pods: '10k' });
    t.match(n.status?.['addresses'], [{ type: 'InternalIP', address: '127.0.0.1' }]);
    t.match(n.status?.['nodeInfo'], { kubeletVersion: /^v1\.36\.3\+tether/ });
    t.match(n.status?.['daemonEndpoints'], { kubeletEndpoint: { Port: 10250 } });
  });

  await t.test('the scheduler places a tolerating pod on it and refuses a non-tolerating one', async (t) => {
    const ns = await testNamespace(t, host, 'sched');
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('tolerates', ns, nodeName) });
    const intolerant = JSON.parse(podManifest('intolerant', ns, nodeName)) as { spec: { tolerations?: unknown } };
    delete intolerant.spec.tolerations;
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(intolerant) });
    const placed = await waitFor('the tolerating pod runs on the virtual node', async () => {
      const p = await getJson<KubeObject>(host, ['pod', 'tolerates', '-n', ns]);
      return p?.status?.phase === 'Running' ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.equal(placed.spec?.nodeName, nodeName);
    const refused = await waitFor('the intolerant pod is unschedulable', async () => {
      const p = await getJson<KubeObject>(host, ['pod', 'intolerant', '-n', ns]);
      return condition(p, 'PodScheduled')?.reason === 'Unschedulable' ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.match(condition(refused, 'PodScheduled')?.message, /untolerated taint/);
  });

  await t.test("a condition written by another writer survives Tether's status updates", async (t) => {
    const patch = JSON.stringify({ status: { conditions: [{ type: 'ExampleDiskHealthy', status: 'True', reason: 'ProbeSaysSo', message: 'written by another controller', lastHeartbeatTime: new Date().toISOString(), lastTransitionTime: new Date().toISOString() }] } });
    const before = condition(await node(), 'Ready')?.lastHeartbeatTime ?? '';
    await host.kubectl(['patch', 'node', nodeName, '--subresource=status', '--type=strategic', '-p', patch]);
    const after = await waitFor('Tether wrote the node status again', async () => {
      const n = await node();
      const beat = condition(n, 'Ready')?.lastHeartbeatTime ?? '';
      return beat > before ? n : undefined;
    }, { timeoutMs: 30_000 });
    t.match(condition(after, 'ExampleDiskHealthy'), { status: 'True', reason: 'ProbeSaysSo' });
  });

  await t.test('stays Ready past the node monitor grace period: the lease renews', async (t) => {
    const lease = async (): Promise<KubeObject | undefined> => getJson<KubeObject>(host, ['lease', nodeName, '-n', 'kube-node-lease']);
    // The owner reference is added by the first renewal after the Node is registered.
    const first = await waitFor('the lease exists, owned by the Node', async () => {
      const l = await lease();
      return (l?.metadata as { ownerReferences?: unknown[] } | undefined)?.ownerReferences ? l : undefined;
    }, { timeoutMs: 30_000 });
    t.match(first.spec, { holderIdentity: nodeName, leaseDurationSeconds: 40 });
    t.match((first.metadata as { ownerReferences?: unknown[] }).ownerReferences, [{ kind: 'Node', name: nodeName }]);
    const readySince = condition(await node(), 'Ready')?.lastTransitionTime;
    const start = Date.parse(String(first.spec?.['renewTime']));
    // The controller manager's grace period is 20 s: wait for renewals spanning more than that.
    await waitFor('renewals spanning 25 s', async () => Date.parse(String((await lease())?.spec?.['renewTime'])) - start > 25_000, { timeoutMs: 60_000, intervalMs: 1_000 });
    const ready = condition(await node(), 'Ready');
    t.equal(ready?.status, 'True', 'never marked Unknown by the node lifecycle controller');
    t.equal(ready?.lastTransitionTime, readySince, 'no transition in between');
  });

  await t.test('failing pings turn it NotReady and tainted; recovery turns it back', async (t) => {
    provider.faults.setPingFailing(true);
    const down = await waitFor('NotReady with the not-ready taint', async () => {
      const n = await node();
      const notReady = condition(n, 'Ready')?.status === 'False';
      const tainted = n?.spec?.taints?.some((x) => x.key === 'node.kubernetes.io/not-ready');
      return notReady && tainted ? n : undefined;
    }, { timeoutMs: 60_000 });
    t.match(condition(down, 'Ready'), { reason: 'ProviderUnreachable', message: /ping/i });
    provider.faults.setPingFailing(false);
    await waitFor('Ready again and untainted', async () => {
      const n = await node();
      return condition(n, 'Ready')?.status === 'True' && !n?.spec?.taints?.some((x) => x.key.startsWith('node.kubernetes.io/not-ready'));
    }, { timeoutMs: 60_000 });
    t.pass('recovered');
  });

  await t.test('a deleted Node is re-created', async (t) => {
    const uid = (await node())?.metadata.uid;
    await host.kubectl(['delete', 'node', nodeName, '--wait=false']);
    const back = await waitFor('the Node is back', async () => {
      const n = await node();
      return n && n.metadata.uid !== uid && condition(n, 'Ready')?.status === 'True' ? n : undefined;
    }, { timeoutMs: 60_000 });
    t.match(back.metadata.labels, { type: 'virtual-kubelet' });
  });
});

t.test('two virtual nodes in one process: a crashing provider stops only its own node', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const healthyName = uniqueNamespace('vn-ok');
  const brokenName = uniqueNamespace('vn-bad');
  const healthy = new SimulatedProvider({});
  const broken = new SimulatedProvider({});
  const fast = { intervalMs: 300, timeoutMs: 1_000, failureThreshold: 2, successThreshold: 1 };
  const quickPolicy = { strategy: 'one-for-one', restart: 'permanent', intensity: { maxRestarts: 3, withinMs: 60_000 }, backoff: { minMs: 50, maxMs: 200, factor: 2, jitter: 0, resetAfterMs: 60_000 } } as const;
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    rootPolicy: { ...quickPolicy, intensity: undefined, childIntensity: { maxRestarts: 2, withinMs: 60_000 } },
    nodes: [
      { name: healthyName, internalIP: '127.0.0.1', provider: healthy, ping: fast, statusIntervalMs: 3_000 },
      { name: brokenName, internalIP: '127.0.0.1', provider: broken, ping: fast, statusIntervalMs: 3_000, nodePolicy: quickPolicy },
    ],
  });
  t.teardown(async () => {
    void healthy.stop();
    void broken.stop();
    await agent.stop({ deleteNodes: true });
    await host.kubectl(['delete', 'node', brokenName, '--ignore-not-found']);
  });
  const ready = async (name: string): Promise<string | undefined> => condition(await getJson<KubeObject>(host, ['node', name]), 'Ready')?.status;
  await waitFor('both nodes Ready', async () => (await ready(healthyName)) === 'True' && (await ready(brokenName)) === 'True', { timeoutMs: 60_000 });

  // The broken provider's ping now throws an unclassified error: a bug, so its node actor crashes.
  broken.ping = () => Promise.reject(new Error('provider bug: null dereference'));
  await waitFor('the broken node subtree is given up', () => agent.system.snapshot().some((s) => s.path.endsWith(`node-${brokenName}`) && s.status === 'failed'), { timeoutMs: 60_000 });
  t.equal(agent.system.snapshot().find((s) => s.path.endsWith(`node-${healthyName}`))?.status, 'running', 'the other node keeps running');
  t.equal(await ready(healthyName), 'True');
  t.equal(agent.system.root.snapshot().status, 'running', 'the process carries on');
});
