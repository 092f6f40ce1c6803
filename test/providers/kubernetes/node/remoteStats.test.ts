/**
 * The Kubernetes provider's stats: remote kubelet summaries (the kubelet's format) filtered to the
 * pods this provider owns and renamed to their host identities; the virtual node's usage is their
 * sum, with a cumulative CPU that never goes down when a pod goes.
 */
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import { podStatsOfKubeletSummary } from '../../../../src/providers/kubeletSummary.js';
import { remoteNamespaceFor } from '../../../../src/providers/kubernetes/namespaceMapping.js';
import type { OwnershipRule } from '../../../../src/providers/kubernetes/pods/ownership.js';
import { toRemotePod } from '../../../../src/providers/kubernetes/pods/podTranslation.js';
import type { Clock } from '../../../../src/lib/clock.js';
import { providerKindOf } from '../../../../src/providers/errors.js';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { EMPTY_COUNTER, hostPodStats, RemoteStats, remoteNodesOf, virtualNodeSummary } from '../../../../src/providers/kubernetes/node/remoteStats.js';
import type { PodStats } from '../../../../src/providers/provider.js';

const rule: OwnershipRule = { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespaceOf: (ns) => remoteNamespaceFor(ns, 'suffix', 'home') };
const remoteNs = rule.remoteNamespaceOf('shop');

function remotePod(name: string, hostUid: string, remoteUid: string, node: string, phase = 'Running'): Pod {
  const made = toRemotePod({ metadata: { namespace: 'shop', name, uid: hostUid }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
    { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: remoteNs });
  return { ...made, metadata: { ...made.metadata, uid: remoteUid }, spec: { ...made.spec, containers: made.spec?.containers ?? [], nodeName: node }, status: { phase } };
}

const web = remotePod('web', 'host-web', 'remote-web', 'worker-1');
const api = remotePod('api', 'host-api', 'remote-api', 'worker-2');
const pending = remotePod('new', 'host-new', 'remote-new', 'worker-3', 'Pending');
const owned = [web, api, pending];

const at = '2026-01-01T00:01:40Z';
const cpu = (nanoCores: number, cumulative: number): Record<string, unknown> => ({ time: at, usageNanoCores: nanoCores, usageCoreNanoSeconds: cumulative });
const kubeletPod = (namespace: string, name: string, uid: string, nanoCores: number, cumulative: number): Record<string, unknown> => ({
  podRef: { namespace, name, uid }, startTime: '2026-01-01T00:00:00Z',
  cpu: cpu(nanoCores, cumulative), memory: { time: at, workingSetBytes: 1000, usageBytes: 2000 },
  containers: [{ name: 'app', startTime: '2026-01-01T00:00:00Z', cpu: cpu(nanoCores, cumulative), memory: { time: at, workingSetBytes: 1000 } }],
});

t.test('the remote nodes asked are those running owned pods', async (t) => {
  const nodes = remoteNodesOf(owned, rule);
  t.same([...nodes.keys()], ['worker-1', 'worker-2'], 'a Pending pod has no usage to ask for');
  t.same([...(nodes.get('worker-1') ?? new Map()).entries()], [[`${remoteNs}/web`, 'remote-web']]);
  const stranger = { ...web, metadata: { ...web.metadata, namespace: 'intruder' } };
  t.same([...remoteNodesOf([stranger], rule).keys()], [], 'a pod failing the ownership rule is not asked about');
});

t.test('a remote summary keeps only owned pods (same remote uid), renamed to the host namespace, name and uid', async (t) => {
  const body = {
    node: { nodeName: 'worker-1', startTime: '2026-01-01T00:00:00Z', cpu: cpu(5e8, 1e12), memory: { time: at, workingSetBytes: 1 } },
    pods: [
      kubeletPod(remoteNs, 'web', 'remote-web', 20_000_000, 2_000_000_000),
      kubeletPod('kube-system', 'coredns', 'c', 1, 1),
      kubeletPod(remoteNs, 'api', 'an-older-api-pod', 1, 1),
      { podRef: { namespace: remoteNs, name: 'web', uid: 'remote-web' }, startTime: at, containers: [] },
    ],
  };
  const stats = hostPodStats(podStatsOfKubeletSummary(body, 'remote node worker-1'), owned, rule);
  t.same(stats, [{
    podRef: { namespace: 'shop', name: 'web', uid: 'host-web' },
    startTime: '2026-01-01T00:00:00Z',
    usage: { time: at, usageNanoCores: 20_000_000, workingSetBytes: 1000, usageCoreNanoSeconds: 2_000_000_000 },
    containers: [{ name: 'app', startTime: '2026-01-01T00:00:00Z', usage: { time: at, usageNanoCores: 20_000_000, workingSetBytes: 1000, usageCoreNanoSeconds: 2_000_000_000 } }],
  }], 'other pods, a recreated pod of the same name and a pod not measured yet are left out');
});

t.test('a summary not in the kubelet\'s format is refused, naming the source and the field', async (t) => {
  t.throws(() => podStatsOfKubeletSummary('nope', 'remote node w'), /stats summary of remote node w: the body is not an object/);
  t.throws(() => podStatsOfKubeletSummary({ pods: {} }, 'remote node w'), /pods is not a list/);
  t.throws(() => podStatsOfKubeletSummary({ pods: [{ ...kubeletPod('a', 'b', 'c', 1, 1), podRef: { namespace: 'a', uid: 'c' } }] }, 'remote node w'), /pods\[0\]\.podRef\.name is not a non-empty string/);
  t.throws(() => podStatsOfKubeletSummary({ pods: [{ ...kubeletPod('a', 'b', 'c', 1, 1), cpu: { time: at, usageNanoCores: -1 } }] }, 'remote node w'), /pods\[0\]\.cpu\.usageNanoCores is not a non-negative number: -1/);
  t.throws(() => podStatsOfKubeletSummary({ pods: [{ ...kubeletPod('a', 'b', 'c', 1, 1), cpu: { time: 'yesterday', usageNanoCores: 1 } }] }, 'remote node w'), /pods\[0\]\.cpu\.time is not an RFC 3339 time: "yesterday"/);
  t.same(podStatsOfKubeletSummary({ node: {} }, 'remote node w'), [], 'a node without pods has none');
});

const podStats = (uid: string, nanoCores: number, cumulative: number, bytes = 100): PodStats => ({
  podRef: { namespace: 'shop', name: uid, uid }, startTime: '2026-01-01T00:00:00Z',
  usage: { time: at, usageNanoCores: nanoCores, usageCoreNanoSeconds: cumulative, workingSetBytes: bytes }, containers: [],
});

t.test('the virtual node\'s usage is the sum of its pods\'; its cumulative CPU keeps what departed pods spent', async (t) => {
  const times = { now: '2026-01-01T00:01:50Z', startTime: '2026-01-01T00:00:00Z' };
  const first = virtualNodeSummary([podStats('a', 10, 1_000, 5), podStats('b', 20, 2_000, 7)], EMPTY_COUNTER, times, new Set(['a', 'b']));
  t.same(first.summary.node, { startTime: times.startTime, usage: { time: times.now, usageNanoCores: 30, usageCoreNanoSeconds: 3_000, workingSetBytes: 12 } });
  t.equal(first.summary.pods.length, 2);
  const second = virtualNodeSummary([podStats('b', 20, 2_500)], first.counter, times, new Set(['b']));
  t.equal(second.summary.node.usage.usageCoreNanoSeconds, 3_500, 'a went with 1000 spent; b has spent 2500');
  t.equal(second.summary.node.usage.usageNanoCores, 20);
  const third = virtualNodeSummary([], second.counter, times, new Set());
  t.equal(third.summary.node.usage.usageCoreNanoSeconds, 3_500, 'never lower than before');
  t.same(virtualNodeSummary([], EMPTY_COUNTER, times, new Set()).summary, { node: { startTime: times.startTime, usage: { time: times.now, usageNanoCores: 0, usageCoreNanoSeconds: 0, workingSetBytes: 0 } }, pods: [] });
});

t.test('a pod left out of one round (its remote node did not answer) but still owned is not counted as gone: no jump in the node\'s cumulative CPU when it is back', async (t) => {
  const times = { now: '2026-01-01T00:01:50Z', startTime: '2026-01-01T00:00:00Z' };
  const both = new Set(['a', 'b']);
  const first = virtualNodeSummary([podStats('a', 10, 1_000), podStats('b', 20, 2_000)], EMPTY_COUNTER, times, both);
  const second = virtualNodeSummary([podStats('b', 20, 2_500)], first.counter, times, both);
  t.equal(second.summary.node.usage.usageCoreNanoSeconds, 3_500, 'a carried at its last 1000, b at 2500');
  t.same(second.summary.pods.map((p) => p.podRef.uid), ['b'], 'only what was read is reported per pod');
  const third = virtualNodeSummary([podStats('a', 10, 1_200), podStats('b', 20, 2_600)], second.counter, times, both);
  t.equal(third.summary.node.usage.usageCoreNanoSeconds, 3_800, 'a back at 1200: counted once, not also as departed');
});

/** A remote cluster whose node proxy answers from `answers` (a body, or an error to throw), recording the nodes asked. */
function fakeRemote(answers: Record<string, unknown>): { client: ClusterClient; asked: string[] } {
  const asked: string[] = [];
  const core = {
    connectGetNodeProxyWithPath: async ({ name, path }: { name: string; path: string }): Promise<unknown> => {
      asked.push(`${name}/${path}`);
      const answer = answers[name];
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  const client = { call: (_p: unknown, _op: string, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}) } as unknown as ClusterClient;
  return { client, asked };
}

const warnings: string[] = [];
const options = (client: ClusterClient) => ({
  remote: client, rule, owned: () => owned, clock: { now: () => Date.parse('2026-01-01T00:02:00Z') } as Clock,
  log: { debug: () => undefined, warn: (message: string) => void warnings.push(message) },
});

t.test('RemoteStats asks each remote node through the node proxy; a failing node is left out, all failing is transient', async (t) => {
  const healthy = fakeRemote({
    'worker-1': JSON.stringify({ pods: [kubeletPod(remoteNs, 'web', 'remote-web', 20_000_000, 2_000_000_000)] }),
    'worker-2': new Error('connection refused'),
  });
  const summary = await new RemoteStats(options(healthy.client)).summary();
  t.same(healthy.asked.sort(), ['worker-1/stats/summary', 'worker-2/stats/summary']);
  t.same(summary.pods.map((p) => p.podRef), [{ namespace: 'shop', name: 'web', uid: 'host-web' }], 'worker-1\'s pod; worker-2 left out');
  t.equal(summary.node.usage.usageNanoCores, 20_000_000);
  t.match(warnings, ['remote node stats unavailable']);

  const broken = fakeRemote({ 'worker-1': new Error('connection refused'), 'worker-2': 'not json' });
  const error = await new RemoteStats(options(broken.client)).summary().then(() => undefined, (e: unknown) => e);
  t.equal(providerKindOf(error), 'transient');
  t.match(String(error), /no remote node's stats could be read/);
});

t.test('one scrape reads at most 8 remote nodes at once, each call carrying the scrape\'s signal', async (t) => {
  const many = Array.from({ length: 20 }, (_, i) => remotePod(`p${i}`, `host-${i}`, `remote-${i}`, `worker-${i}`));
  let running = 0;
  let most = 0;
  const signals: unknown[] = [];
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const core = {
    connectGetNodeProxyWithPath: async (): Promise<unknown> => {
      running += 1;
      most = Math.max(most, running);
      await gate;
      running -= 1;
      return JSON.stringify({ pods: [] });
    },
  };
  const client = {
    call: (_p: unknown, _op: unknown, fn: (c: typeof core, o: object) => Promise<unknown>, callOptions?: { signal?: AbortSignal }) => (signals.push(callOptions?.signal), fn(core, {})),
  } as unknown as ClusterClient;
  const scrape = new AbortController();
  const summary = new RemoteStats({ ...options(client), owned: () => many }).summary(scrape.signal);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(most, 8, 'eight nodes asked at once; the rest wait, not the remote client\'s slots');
  release();
  await summary;
  t.equal(signals.length, 20, 'every node asked');
  t.ok(signals.every((s) => s === scrape.signal), 'a scrape given up drops its queued reads in the client');
});
