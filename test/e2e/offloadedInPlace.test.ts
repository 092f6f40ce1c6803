/**
 * In-place changes of an offloaded pod (issue 27): a resize of the host pod (the `resize`
 * subresource) reaches the remote pod, whose simulated node resizes it as a kubelet, and the
 * new resources and the condition sequence show on both sides; one beyond the remote's capacity
 * is refused by the host API server (the virtual node's allocatable is the remote's: since 1.36
 * the API server checks it, so the remote kubelet's Infeasible is shown by the unit tests);
 * `kubectl debug` (profile baseline: the remote's Pod Security refuses general's SYS_PTRACE) on the host pod adds the
 * ephemeral container to the remote pod, its status comes back, and exec reaches its shell on the
 * remote node (this fixture's nodes serve no kubelet API, so the exec is made on the worker). A
 * second topology whose nodes do serve it shows `kubectl debug -i` and `kubectl attach` reaching
 * the debug container's shell through the host and the remote API servers.
 *
 * The shared host and remote clusters, isolated by namespace; the remote worker is tainted so
 * only this test's pods land on it.
 */
import t from 'tap';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { bothReady, offloadingProvider, startOffloadingNode, startRemoteWorker } from '../support/offloadingTopology.js';
import { networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { startKubeletNode } from '../support/kubeletNode.js';

interface Resources { requests?: Record<string, string>; limits?: Record<string, string> }
interface ConditionJson { type: string; status: string; reason?: string; message?: string }
interface StatusJson {
  phase?: string;
  conditions?: ConditionJson[];
  containerStatuses?: { name: string; resources?: Resources; allocatedResources?: Record<string, string> }[];
  ephemeralContainerStatuses?: { name: string; state?: { running?: unknown } }[];
}
type PodJson = KubeObject & { spec?: { containers?: { name: string; resources?: Resources }[]; ephemeralContainers?: { name: string }[] }; status?: StatusJson };

const WORKER_TAINT = 'tether.test/offloaded-in-place-worker';
const condition = (pod: PodJson | undefined, type: string): ConditionJson | undefined => pod?.status?.conditions?.find((c) => c.type === type);
const support = await networkNamespaceSupport();

t.test('in-place changes of an offloaded pod', async (t) => {
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const worker = startRemoteWorker(t, remote, {
    name: uniqueNamespace('inplace-worker'),
    podCIDR: '10.93.0.0/16',
    taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }],
    deleteNodeOnStop: true,
    inPlaceUpdates: ['resize', 'ephemeralContainers'],
  });
  const node = startOffloadingNode(t, host, remote, {
    name: uniqueNamespace('vk-inplace'),
    hostClusterId: 'host1',
    provider: { offloadingPatch: { tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }] } },
    node: { pod: { retry: { minMs: 300, maxMs: 2_000, factor: 2, jitter: 0.2 } } },
  });
  await bothReady(host, node, remote, worker);
  const ns = await testNamespace(t, host, 'offinplace');
  const remoteNs = `${ns}-host1`;
  t.teardown(() => remote.kubectl(['delete', 'namespace', remoteNs, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
  const hostPod = (name: string): Promise<PodJson | undefined> => getJson<PodJson>(host, ['pod', '-n', ns, name]);
  const remotePod = (name: string): Promise<PodJson | undefined> => getJson<PodJson>(remote, ['pod', '-n', remoteNs, name]);
  const resources = { requests: { cpu: '100m', memory: '64Mi' } };
  const running = async (name: string): Promise<void> => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest(name, ns, node.name, { containers: [{ name: 'app', image: 'nginx:1.27', resources }] }) });
    await waitFor(`${name} running with its resources reported on the host`, async () => {
      const pod = await hostPod(name);
      return pod?.status?.phase === 'Running' && pod.status.containerStatuses?.[0]?.resources !== undefined;
    }, { timeoutMs: 90_000 });
  };
  const resize = (name: string, cpu: string): Promise<unknown> =>
    host.kubectl(['patch', 'pod', name, '-n', ns, '--subresource', 'resize', '--type', 'strategic', '-p', JSON.stringify({ spec: { containers: [{ name: 'app', resources: { requests: { cpu } } }] } })]);

  await t.test('a resize shows the new resources on both sides, in progress then done', async (t) => {
    await running('web');
    const seen = new Set<string>();
    await resize('web', '300m');
    const done = await waitFor('the host pod running with 300m', async () => {
      const pod = await hostPod('web');
      const inProgress = condition(pod, 'PodResizeInProgress');
      if (inProgress) seen.add(`PodResizeInProgress=${inProgress.status}`);
      return pod?.status?.containerStatuses?.[0]?.resources?.requests?.cpu === '300m' ? pod : undefined;
    }, { timeoutMs: 60_000 });
    t.same(done.status?.containerStatuses?.[0]?.allocatedResources, { cpu: '300m', memory: '64Mi' }, 'allocated as the remote kubelet says');
    await waitFor('no resize in progress on the host', async () => condition(await hostPod('web'), 'PodResizeInProgress')?.status !== 'True', { timeoutMs: 30_000 });
    t.ok(condition(await hostPod('web'), 'PodResizePending')?.status !== 'True', 'nothing pending');
    const twin = await remotePod('web');
    t.equal(twin?.spec?.containers?.[0]?.resources?.requests?.cpu, '300m', 'the remote pod was resized');
    t.equal(twin?.status?.containerStatuses?.[0]?.resources?.requests?.cpu, '300m', 'and runs with it');
    t.match(condition(twin, 'PodResizeInProgress'), { status: 'False' }, 'its resize done');
    t.comment(`conditions seen on the host: ${[...seen].join(', ') || 'none (the resize completed between reads)'}`);
  });

  await t.test('a resize beyond what the remote offers is refused by the host API server, against the virtual node\'s allocatable (the remote\'s)', async (t) => {
    await running('big');
    const refused = await resize('big', '50').then(() => undefined, (error: unknown) => error as { stderr?: string });
    t.match(refused?.stderr, /node didn't have enough allocatable resources: cpu, requested: 50000/);
    t.equal((await remotePod('big'))?.spec?.containers?.[0]?.resources?.requests?.cpu, '100m', 'the remote pod untouched');
  });

  await t.test('kubectl debug on the host pod runs the debug container remotely, and exec reaches its shell', async (t) => {
    await running('dbg');
    await host.kubectl(['debug', 'dbg', '-n', ns, '--image=busybox', '--target=app', '-c', 'debugger', '--profile=baseline']);
    await waitFor('the debug container running on the host pod', async () =>
      (await hostPod('dbg'))?.status?.ephemeralContainerStatuses?.find((c) => c.name === 'debugger')?.state?.running !== undefined, { timeoutMs: 60_000 }).catch(async (error: unknown) => {
      t.comment(`host events: ${await host.kubectl(['get', 'events', '-n', ns, '-o', 'custom-columns=R:.reason,M:.message']).catch((e: unknown) => String(e))}`);
      t.comment(`host pod: ${JSON.stringify(await hostPod('dbg'))}`);
      t.comment(`remote pod: ${JSON.stringify(await remotePod('dbg'))}`);
      throw error;
    });
    const twin = await remotePod('dbg');
    t.ok(twin?.spec?.ephemeralContainers?.some((c) => c.name === 'debugger'), 'the remote pod has it');
    let out = '';
    const code = await worker.provider.runInContainer({ namespace: remoteNs, pod: 'dbg', container: 'debugger' }, ['echo', 'hi'], { tty: false, stdout: async (c) => void (out += c.toString()) });
    t.equal(code, 0);
    t.equal(out, 'hi\n', 'the debug container\'s shell answers');
  });
});

t.test('kubectl debug -i on an offloaded pod reaches the debug container\'s shell, through the host and the remote API servers', { skip: support.available ? false : support.reason }, async (t) => {
  // Both nodes serve their kubelet API (at a harness network namespace's address, as kubectlExec.test.ts),
  // so the attach goes kubectl → host API server → the virtual node → remote API server → the worker.
  const { host, remote } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host, remote]);
  const workerProvider = new SimulatedProvider({ startLatencyMs: 200, podCIDR: '10.98.0.0/16', inPlaceUpdates: ['ephemeralContainers'] });
  await startKubeletNode(t, remote, { prefix: 'attach-worker', provider: workerProvider, taints: [{ key: WORKER_TAINT, value: 'yes', effect: 'NoSchedule' }] });
  const name = uniqueNamespace('vk-attach');
  const provider = offloadingProvider(host, remote, { name, hostClusterId: 'host1', provider: { offloadingPatch: { tolerations: [{ key: WORKER_TAINT, operator: 'Exists', effect: 'NoSchedule' }] } } });
  await startKubeletNode(t, host, { prefix: 'vk-attach', nodeName: name, provider });
  const ns = await testNamespace(t, host, 'offattach');
  t.teardown(() => remote.kubectl(['delete', 'namespace', `${ns}-host1`, '--wait=false', '--ignore-not-found']).then(() => undefined, () => undefined));
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('dbg', ns, name) });
  await waitFor('dbg running', async () => (await getJson<PodJson>(host, ['pod', '-n', ns, 'dbg']))?.status?.phase === 'Running', { timeoutMs: 60_000 });

  const out = await host.kubectl(['debug', 'dbg', '-n', ns, '-i', '--image=busybox', '--target=app', '-c', 'debugger', '--profile=baseline'],
    { input: 'echo hi-from-debug\nexit\n', timeoutMs: 90_000 });
  t.match(out, /hi-from-debug/, 'the debug container\'s shell ran what was typed');
  const again = await host.kubectl(['attach', 'dbg', '-n', ns, '-i', '-c', 'debugger'], { input: 'echo hi-again\nexit\n', timeoutMs: 60_000 });
  t.match(again, /hi-again/, 'and kubectl attach reaches it too');
});
