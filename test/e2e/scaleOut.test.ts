/**
 * Scale-out (issue 28): three `tether run` processes share nine Kubernetes-provider virtual nodes
 * through their Lease locks and their membership Leases (src/ha/membership.ts), on the real
 * control plane, with a pod on every node running at a remote worker.
 *
 * - healthy: 3/3/3 (each replica at most ⌈9/3⌉);
 * - one replica killed with SIGKILL: the other two drive its nodes (the time is reported; its
 *   bound, the lock duration plus the looks' retry periods, is asserted in test/ha/scaleOut.test.ts
 *   on a manual clock; an expired lock goes by hash order alone, so one survivor may take
 *   more than its share for a moment), settle at 5/4 by give-back, and no pod on any node is
 *   seen Ready=False meanwhile (the node controller's grace is far longer than the takeover);
 * - it comes back: nodes are given back one at a time until 3/3/3, and no host pod is written
 *   (every pod's resourceVersion unchanged): the hand-over moves only Leases.
 */
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { nodeIsReady, startRemoteWorker } from '../support/offloadingTopology.js';
import { replicaProcesses } from '../support/replicaProcesses.js';

const LEASE_DURATION_MS = 6_000;
const RETRY_PERIOD_MS = 1_000;
const WORKER_TAINT = 'tether.test/scale-out-worker';
const REPLICAS = ['replica-a', 'replica-b', 'replica-c'] as const;

interface List<T> {
  items: T[];
}
interface LeaseObject {
  metadata: { name: string };
  spec?: { holderIdentity?: string };
}

t.test('three replicas, nine virtual nodes: 3/3/3; kill -9 one: the others take its nodes with no pod NotReady and settle 5/4; it returns: 3/3/3 with no pod written', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const worker = startRemoteWorker(t, remote, {
    name: uniqueNamespace('scale-out-worker'), podCIDR: '10.84.0.0/16',
    taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }], deleteNodeOnStop: true,
  });
  const ns = await testNamespace(t, host, 'scaleout');
  const clusterId = `s${randomBytes(3).toString('hex')}`;
  t.teardown(() => remote.kubectl(['delete', 'namespace', `${ns}-${clusterId}`, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
  const nodes = Array.from({ length: 9 }, (_, i) => uniqueNamespace(`vn-so${i + 1}`));
  t.teardown(() => host.kubectl(['delete', 'node', ...nodes, '--ignore-not-found', '--wait=false']).catch(() => undefined));
  const replicas = replicaProcesses(t, {
    hostKubeconfig: host.kubeconfigPath, ns,
    timings: { leaseDurationMs: LEASE_DURATION_MS, renewDeadlineMs: 4_000, retryPeriodMs: RETRY_PERIOD_MS },
    nodeLines: nodes.flatMap((name) => [
      `  - name: ${name}`,
      '    internalIP: 127.0.0.1',
      '    statusIntervalMs: 5000',
      '    pod: { retry: { minMs: 300, maxMs: 2000 } }',
      '    provider:',
      '      type: kubernetes',
      `      remote: { kubeconfig: ${JSON.stringify(remote.kubeconfigPath)} }`,
      `      hostClusterId: ${clusterId}`,
      `      offloadingPatch: { tolerations: [{ key: ${WORKER_TAINT}, operator: Exists, effect: NoSchedule }] }`,
      // A fixed capacity: the nine nodes share one worker, and none should wait on its sum being read.
      '      quota: { cpu: "8", memory: 16Gi, pods: "20" }',
    ]),
  });
  t.teardown(async () => {
    if (t.passing()) return;
    console.error(await host.kubectl(['get', 'pods,leases', '-n', ns, '-o', 'wide']).catch(String));
    console.error(await host.kubectl(['describe', 'pod', 'p1', '-n', ns]).catch(String));
    console.error(await remote.kubectl(['get', 'pods', '-A', '-o', 'wide']).catch(String));
  });

  /** Nodes per holder, from the node locks as the API server has them. */
  const spread = async (): Promise<Map<string, string[]>> => {
    const leases = (await getJson<List<LeaseObject>>(host, ['leases', '-n', ns]))?.items ?? [];
    const by = new Map<string, string[]>();
    for (const node of nodes) {
      const holder = leases.find((l) => l.metadata.name === `tether-node-${node}`)?.spec?.holderIdentity || '-';
      by.set(holder, [...(by.get(holder) ?? []), node]);
    }
    return by;
  };
  const rv = (p: KubeObject): string | undefined => (p.metadata as { resourceVersion?: string }).resourceVersion;
  const counts = (by: Map<string, string[]>, ids: readonly string[]): number[] => ids.map((id) => by.get(id)?.length ?? 0);
  /** Every pod's Ready condition and resourceVersion. */
  const pods = async (): Promise<KubeObject[]> => (await getJson<List<KubeObject>>(host, ['pods', '-n', ns]))?.items ?? [];

  for (const id of REPLICAS) replicas.start(id);
  await waitFor('3/3/3 over the node locks', async () => counts(await spread(), REPLICAS).join() === '3,3,3', { timeoutMs: 120_000, intervalMs: 1_000 });
  await waitFor('the nine virtual nodes and the worker Ready', async () =>
    (await Promise.all([...nodes, worker.name].map((n, i) => nodeIsReady(i < nodes.length ? host : remote, n)))).every(Boolean), { timeoutMs: 120_000, intervalMs: 1_000 });
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: nodes.map((n, i) => JSON.parse(podManifest(`p${i + 1}`, ns, n)) as unknown) }) });
  await waitFor('a pod Running and Ready on every node', async () => {
    const all = await pods();
    return all.length === 9 && all.every((p) => p.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True');
  }, { timeoutMs: 120_000, intervalMs: 1_000 });
  t.same(counts(await spread(), REPLICAS), [3, 3, 3], 'still 3/3/3 with the pods running');

  // From here on, every look at the pods checks that none is Ready=False, and every look at the locks that no replica is above its share.
  const notReady: string[] = [];
  let maxHeld = 0;
  const lookAtPods = async (): Promise<KubeObject[]> => {
    const all = await pods();
    for (const p of all) if (condition(p, 'Ready')?.status !== 'True') notReady.push(`${p.metadata.name} at ${new Date().toISOString()}`);
    return all;
  };
  const lookAtLocks = async (ids: readonly string[]): Promise<number[]> => {
    const c = counts(await spread(), ids);
    maxHeld = Math.max(maxHeld, ...c);
    await lookAtPods();
    return c;
  };

  const victim = 'replica-c';
  const survivors = ['replica-a', 'replica-b'];
  const theirs = (await spread()).get(victim) ?? [];
  const killedAt = Date.now();
  replicas.get(victim)?.child.kill('SIGKILL');
  await replicas.get(victim)?.done;
  await waitFor(`the nodes of ${victim} held by the others`, async () => {
    const by = await spread();
    await lookAtLocks(survivors);
    return theirs.every((n) => survivors.some((s) => by.get(s)?.includes(n)));
  }, { timeoutMs: 60_000, intervalMs: 500 });
  const tookMs = Date.now() - killedAt;
  // Wall time is reported, not asserted (the bound is asserted on a manual clock in test/ha/scaleOut.test.ts).
  t.comment(`its nodes held by the survivors ${tookMs} ms after the kill (lock duration ${LEASE_DURATION_MS} ms, retry ${RETRY_PERIOD_MS} ms)`);
  await waitFor('the survivors settle at 5/4', async () => (await lookAtLocks(survivors)).sort().join() === '4,5', { timeoutMs: 90_000, intervalMs: 1_000 });
  await waitFor('every pod Running and Ready under the survivors', async () => (await lookAtPods()).every((p) => p.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True'), { timeoutMs: 60_000, intervalMs: 1_000 });
  t.comment(`during the takeover a survivor held at most ${maxHeld} (expired locks go by hash order, then give-back rebalances)`);
  maxHeld = 0;
  const givenBack = (): number[] => survivors.map((id) => (replicas.get(id)?.output().stderr.match(/giving the node back/g) ?? []).length);
  const givenBefore = givenBack();

  const versions = new Map((await pods()).map((p) => [p.metadata.name, rv(p)]));
  replicas.start(victim);
  await waitFor('3/3/3 again after the replica returns', async () => (await lookAtLocks(REPLICAS)).join() === '3,3,3', { timeoutMs: 120_000, intervalMs: 1_000 });
  await waitFor('its nodes Ready under it', async () => (await Promise.all(((await spread()).get(victim) ?? []).map((n) => nodeIsReady(host, n)))).every(Boolean), { timeoutMs: 60_000, intervalMs: 1_000 });
  const after = await lookAtPods();
  t.same(new Map(after.map((p) => [p.metadata.name, rv(p)])), versions, 'no host pod was written while the nodes were handed back');
  t.same(notReady, [], 'no pod was seen Ready=False at any point after the kill');
  t.ok(maxHeld <= 5, `while it returned no replica held more than ⌈9/2⌉ (at most ${maxHeld})`);
  const gaveBack = givenBack().map((n, i) => n - (givenBefore[i] ?? 0));
  t.equal(gaveBack.reduce((a, b) => a + b, 0), 3, `three nodes given back to it, the three it needed (${gaveBack.join(' + ')})`);
});
