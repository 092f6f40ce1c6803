/**
 * High availability (issue 8): two `tether run` processes share one virtual node through its
 * Lease lock. The leader is killed with SIGKILL; the other takes the lock once it has gone
 * unrenewed for the lock's duration, rebuilds the node from the cluster (the pod that ran on the
 * dead replica's provider is created again at its own) and offloads the pod created during the gap.
 *
 * "No pod handled twice", checked where it can be seen from outside the processes: at every moment
 * at most one replica drives the node (each logs 'node lock acquired' once; the standby's comes
 * after the kill, and the lock's leaseTransitions is 1), so only one provider ever holds a pod;
 * the dead replica cannot write after SIGKILL, so every status after the takeover is the survivor's.
 */
import t from 'tap';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { replicaProcesses } from '../support/replicaProcesses.js';

const LEASE_DURATION_MS = 6_000;
const RETRY_PERIOD_MS = 1_000;

interface LockLease {
  spec?: { holderIdentity?: string; leaseTransitions?: number; renewTime?: string };
}

t.test('two tether processes, one virtual node: kill -9 the leader, the other takes over', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const ns = await testNamespace(t, host, 'ha');
  const nodeName = uniqueNamespace('vn-ha');
  t.teardown(() => host.kubectl(['delete', 'node', nodeName, '--ignore-not-found', '--wait=false']).catch(() => undefined));
  const replicas = replicaProcesses(t, {
    hostKubeconfig: host.kubeconfigPath, ns,
    timings: { leaseDurationMs: LEASE_DURATION_MS, renewDeadlineMs: 4_000, retryPeriodMs: RETRY_PERIOD_MS },
    nodeLines: [
      `  - name: ${nodeName}`,
      '    internalIP: 127.0.0.1',
      '    ping: { intervalMs: 1000, timeoutMs: 500, failureThreshold: 2, successThreshold: 1 }',
      '    pod: { retry: { minMs: 300, maxMs: 1000 } }',
      '    provider: { type: simulated, startLatencyMs: 100 }',
    ],
  });
  for (const identity of ['replica-a', 'replica-b']) replicas.start(identity);
  const acquisitions = (id: string): number => (replicas.get(id)?.output().stderr.match(/node lock acquired/g) ?? []).length;
  const lock = (): Promise<LockLease | undefined> => getJson<LockLease>(host, ['lease', `tether-node-${nodeName}`, '-n', ns]);

  const leader = await waitFor('one replica holds the node lock', async () => (await lock())?.spec?.holderIdentity || undefined, { timeoutMs: 60_000 });
  const standby = leader === 'replica-a' ? 'replica-b' : 'replica-a';
  await waitFor('the node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('before', ns, nodeName) });
  await waitFor('the first pod Running', async () => (await getJson<KubeObject>(host, ['pod', 'before', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
  t.equal(acquisitions(leader), 1, 'the leader took the lock once');
  t.equal(acquisitions(standby), 0, 'the standby drove nothing while the leader lived');

  const beforeIP = (await getJson<KubeObject>(host, ['pod', 'before', '-n', ns]))?.status?.podIP;
  const killedAt = Date.now();
  replicas.get(leader)?.child.kill('SIGKILL');
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('during', ns, nodeName) });

  await waitFor('the standby holds the lock', async () => (await lock())?.spec?.holderIdentity === standby, { timeoutMs: 4 * LEASE_DURATION_MS });
  const tookMs = Date.now() - killedAt;
  t.ok(tookMs <= LEASE_DURATION_MS + 3 * RETRY_PERIOD_MS, `took over ${tookMs} ms after the kill (lock duration ${LEASE_DURATION_MS} ms, retry ${RETRY_PERIOD_MS} ms)`);
  t.equal((await lock())?.spec?.leaseTransitions, 1, 'one hand-over');
  await waitFor('the pod created during the gap Running', async () => (await getJson<KubeObject>(host, ['pod', 'during', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
  const before = await waitFor('the first pod Running at the new replica', async () => {
    const pod = await getJson<KubeObject>(host, ['pod', 'before', '-n', ns]);
    return pod?.status?.phase === 'Running' && condition(pod, 'Ready')?.status === 'True' ? pod : undefined;
  }, { timeoutMs: 60_000 });
  t.ok(before.status?.podIP, `rebuilt from the cluster (IP ${String(beforeIP)} → ${String(before.status?.podIP)})`);
  await waitFor('the node Ready under the new replica', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 30_000 });
  t.equal(acquisitions(standby), 1, 'the standby took the lock once, after the kill');

  await host.kubectl(['delete', 'pod', 'during', '-n', ns, '--wait=false']);
  await waitFor('the gap pod deleted through the new replica', async () => (await getJson<KubeObject>(host, ['pod', 'during', '-n', ns])) === undefined, { timeoutMs: 60_000 });
});
