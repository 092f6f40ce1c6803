/**
 * Kubelet admission on a real control plane (issue 24), with the simulated provider (linux,
 * 20 CPUs): a pod for windows and a pod asking 1000 CPUs end Failed with the kubelet's reasons
 * and messages and a Warning Event, and never reach the provider; a pod that fits, created with
 * them, runs. The windows pod goes through the scheduler (nodeSelector and the taint's toleration:
 * the scheduler does not look at spec.os); the others are bound with spec.nodeName, as the
 * scheduler would refuse the 1000 CPUs.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

interface EventList {
  items: Array<{ reason?: string; type?: string; note?: string; reportingController?: string; regarding?: { name?: string } }>;
}

t.test('kubelet admission on a virtual node', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('vn-admit');
  const provider = new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100 });
  const created: string[] = [];
  const createPod = provider.createPod.bind(provider);
  provider.createPod = (pod: Pod, signal?: AbortSignal): Promise<void> => {
    created.push(pod.metadata?.name ?? '');
    return createPod(pod, signal);
  };
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider }],
  });
  t.teardown(async () => {
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  const node = await waitFor('the node is Ready', async () => {
    const n = await getJson<KubeObject>(host, ['node', nodeName]);
    return condition(n, 'Ready')?.status === 'True' ? n : undefined;
  }, { timeoutMs: 60_000 });
  t.equal(node.metadata.labels?.['kubernetes.io/os'], 'linux', 'the node is linux');
  t.equal(node.status?.allocatable?.['cpu'], '20', 'with 20 CPUs');
  const ns = await testNamespace(t, host, 'admit');
  const scheduled = (name: string, extra: Record<string, unknown>): unknown => JSON.parse(podManifest(name, ns, nodeName, { restartPolicy: 'Never', ...extra }));
  const bound = (name: string, extra: Record<string, unknown>): unknown => scheduled(name, { nodeName, ...extra });
  const pods = [
    scheduled('windows', { os: { name: 'windows' } }),
    bound('huge', { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '1000' } } }] }),
    bound('fits', { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] }),
  ];
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }) });
  const pod = (name: string): Promise<KubeObject | undefined> => getJson<KubeObject>(host, ['pod', name, '-n', ns]);
  const failed = (name: string) => waitFor(`${name} Failed`, async () => {
    const p = await pod(name);
    return p?.status?.phase === 'Failed' ? p : undefined;
  }, { timeoutMs: 60_000 });
  const warning = (name: string, reason: string) => waitFor(`the ${reason} Event about ${name}`, async () => {
    const list = await getJson<EventList>(host, ['events.events.k8s.io', '-n', ns]);
    return list?.items.find((e) => e.regarding?.name === name && e.reason === reason);
  }, { timeoutMs: 30_000 });

  await t.test('a pod for windows ends Failed with PodOSNotSupported and never reaches the provider', async (t) => {
    const p = await failed('windows');
    t.equal(p.status?.['reason'], 'PodOSNotSupported');
    t.equal(p.status?.['message'], "Pod was rejected: Failed to admit pod as the OS field doesn't match node OS");
    const e = await warning('windows', 'PodOSNotSupported');
    t.equal(e.type, 'Warning');
    t.equal(e.note, "Failed to admit pod as the OS field doesn't match node OS", 'the kubelet\'s message, as its recorder gives it');
  });

  await t.test('a pod asking 1000 CPUs ends Failed with OutOfcpu and the kubelet\'s message', async (t) => {
    const p = await failed('huge');
    t.equal(p.status?.['reason'], 'OutOfcpu');
    // cpu in millicores; used counts what the admitted pods request (fits: 100m, if admitted first).
    t.match(p.status?.['message'], /^Pod was rejected: Node didn't have enough resource: cpu, requested: 1000000, used: (0|100), capacity: 20000$/);
    const e = await warning('huge', 'OutOfcpu');
    t.equal(e.type, 'Warning');
    t.match(e.note, /^Node didn't have enough resource: cpu, requested: 1000000, used: (0|100), capacity: 20000$/);
  });

  await t.test('a pod that fits, created with them, runs and is Ready', async (t) => {
    const p = await waitFor('fits Running and Ready', async () => {
      const p = await pod('fits');
      return p?.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True' ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.notOk(p.status?.['reason'], 'no rejection reason');
  });

  await t.test('the provider was asked for the pod that fits only', async (t) => {
    t.same(created.filter((n) => n !== 'fits'), [], 'no create call for a rejected pod');
    t.same((await provider.listPods()).map((p) => p.metadata?.name), ['fits']);
    t.same([(await pod('windows'))?.status?.phase, (await pod('huge'))?.status?.phase], ['Failed', 'Failed'], 'the rejected stay Failed on the host');
  });
});
