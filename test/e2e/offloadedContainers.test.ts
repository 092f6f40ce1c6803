/**
 * The simulated node's behaviour through offloading (issue 25), as the sandbox runs it: the host
 * pod is offloaded to the remote cluster, where a simulated Tether node runs its containers, and
 * what happens there shows on the HOST pod: a failing readiness probe keeps it not Ready (and a
 * passing one, once the probed file is written, makes it Ready), a liveness failure shows as its restartCount, and a Job failing twice then succeeding (a counter
 * in an emptyDir file) completes on the host.
 *
 * The shared host and remote clusters are used, isolated by namespace; the remote's worker is
 * tainted so that only this test's offloaded pods (which tolerate it through the offloading
 * patch) land on it.
 */
import t from 'tap';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { bothReady, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';

interface ContainerStatusJson {
  restartCount?: number;
  ready?: boolean;
  state?: { running?: unknown; waiting?: { reason?: string } };
}

type PodJson = KubeObject & { status?: { containerStatuses?: ContainerStatusJson[] } };

const WORKER_TAINT = 'tether.test/offloaded-containers-worker';

t.test('the simulated node\'s containers, through offloading', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const worker = startRemoteWorker(t, remote, {
    name: uniqueNamespace('containers-worker'),
    podCIDR: '10.91.0.0/16',
    taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }],
    deleteNodeOnStop: true,
  });
  const node = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('vk-containers'),
    hostClusterId: 'host1',
    provider: { offloadingPatch: { tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }] } },
    node: { pod: { retry: { minMs: 300, maxMs: 2_000, factor: 2, jitter: 0.2 } } },
  });
  await bothReady(host, node, remote, worker);
  const ns = await testNamespace(t, host, 'offctr');
  const remoteNs = `${ns}-host1`;
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
  const hostPod = (name: string): Promise<PodJson | undefined> => getJson<PodJson>(host, ['pod', '-n', ns, name]);
  const emptyDir = { volumes: [{ name: 'data', emptyDir: {} }] };
  const mounted = { volumeMounts: [{ name: 'data', mountPath: '/data' }] };

  await t.test('a failing readiness probe on the remote keeps the host pod not Ready', async (t) => {
    const readiness = { exec: { command: ['cat', '/data/ready'] }, periodSeconds: 1, failureThreshold: 1 };
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('gated', ns, node.name, { ...emptyDir, containers: [{ name: 'app', image: 'nginx:1.27', readinessProbe: readiness, ...mounted }] }) });
    const running = await waitFor('the host pod Running on a remote IP', async () => {
      const pod = await hostPod('gated');
      return pod?.status?.phase === 'Running' && pod.status.podIP?.startsWith('10.91.') === true && pod.status.containerStatuses?.[0]?.state?.running !== undefined ? pod : undefined;
    }, { timeoutMs: 90_000 });
    t.match(running.status?.containerStatuses?.[0], { ready: false });
    t.match(condition(running, 'Ready'), { status: 'False' });
    const twin = await getJson<PodJson>(remote, ['pod', '-n', remoteNs, 'gated']);
    t.equal(twin?.spec?.nodeName, worker.name, 'the simulated worker runs it');
    t.match(condition(twin, 'Ready'), { status: 'False', reason: 'ContainersNotReady' }, 'not ready on the remote, where the probe runs');
    // Once the probe passes on the remote (its file written by an exec in the twin, on the worker:
    // this fixture's nodes serve no kubelet API), the host pod is Ready.
    t.equal(await worker.provider.runInContainer({ namespace: remoteNs, pod: 'gated', container: 'app' }, ['sh', '-c', 'echo ok > /data/ready'], { tty: false }), 0);
    await waitFor('the host pod Ready', async () => condition(await hostPod('gated'), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  });

  await t.test('a liveness failure on the remote shows as the host pod\'s restartCount', async (t) => {
    const liveness = { exec: { command: ['sh', '-c', 'exit 1'] }, periodSeconds: 1, failureThreshold: 1 };
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('sick', ns, node.name, { terminationGracePeriodSeconds: 2, containers: [{ name: 'app', image: 'nginx:1.27', livenessProbe: liveness }] }) });
    const restarted = await waitFor('the host pod restarted', async () => {
      const c = (await hostPod('sick'))?.status?.containerStatuses?.[0];
      return (c?.restartCount ?? 0) >= 1 ? c : undefined;
    }, { timeoutMs: 90_000 });
    t.ok((restarted.restartCount ?? 0) >= 1);
    const twin = (await getJson<PodJson>(remote, ['pod', '-n', remoteNs, 'sick']))?.status?.containerStatuses?.[0];
    t.ok((twin?.restartCount ?? 0) >= (restarted.restartCount ?? 0), 'as the remote twin counts them');
  });

  await t.test('a Job failing twice then succeeding (an emptyDir counter) completes on the host', async (t) => {
    const script = 'n=$(cat /data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /data/n; echo attempt $n; test $n -ge 3';
    const template = JSON.parse(podManifest('retry', ns, node.name, { restartPolicy: 'OnFailure', ...emptyDir, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', script], ...mounted }] })) as { spec: unknown };
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'retry', namespace: ns }, spec: { backoffLimit: 6, template: { spec: template.spec } } };
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(job) });
    await waitFor('the host Job Complete', async () => condition(await getJson<KubeObject>(host, ['job', '-n', ns, 'retry']), 'Complete')?.status === 'True', { timeoutMs: 150_000 });
    const pods = await getJson<{ items: PodJson[] }>(host, ['pods', '-n', ns, '-l', 'job-name=retry']);
    t.equal(pods?.items.length, 1, 'OnFailure retries in the same pod');
    t.equal(pods?.items[0]?.status?.phase, 'Succeeded');
    t.equal(pods?.items[0]?.status?.containerStatuses?.[0]?.restartCount, 2, 'two failed runs, then the one that succeeded');
  });
});
