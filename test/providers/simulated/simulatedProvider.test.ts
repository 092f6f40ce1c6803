import t from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { providerKindOf } from '../../../src/providers/errors.js';
import type { PodNotification } from '../../../src/providers/provider.js';
import { isLogsProvider, isStatsProvider } from '../../../src/providers/provider.js';
import { SimulatedProvider, type SimulatedProviderOptions } from '../../../src/providers/simulated/simulatedProvider.js';
import { until, drain } from '../../support/until.js';
import {deleting, podFixture } from '../helpers.js';

function setup(options: SimulatedProviderOptions = {}): { clock: ManualClock; sim: SimulatedProvider; seen: PodNotification[] } {
  const clock = new ManualClock(Date.parse('2026-11-30T03:00:00Z'));
  const sim = new SimulatedProvider({ clock, startLatencyMs: 1000, stopLatencyMs: 200, ...options });
  const seen: PodNotification[] = [];
  sim.notifyPods((n) => seen.push(n));
  return { clock, sim, seen };
}

function statusOf(n: PodNotification | undefined): Pod['status'] {
  if (n?.type !== 'status') throw new Error(`expected a status notification, got ${JSON.stringify(n)}`);
  return n.pod.status;
}

const phases = (seen: PodNotification[]): string[] =>
  seen.map((n) => (n.type === 'status' ? `${n.pod.metadata?.name}:${n.pod.status?.phase}` : `${n.name}:gone`));

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

void t.test('a created pod is Pending with ContainerCreating, notified after createPod returns', async (t) => {
  const { sim, seen } = setup();
  const created = sim.createPod(podFixture('web'));
  t.same(seen, [], 'not synchronously inside createPod');
  await created;
  await drain(1);
  t.same(phases(seen), ['web:Pending']);
  const status = statusOf(seen[0]);
  t.match(status?.containerStatuses, [{ name: 'main', ready: false, state: { waiting: { reason: 'ContainerCreating' } } }]);
  t.equal(status?.podIP, undefined, 'no pod IP before the sandbox is up');
  t.equal(status?.hostIP, '10.0.0.10');
  t.match(status?.conditions?.find((c) => c.type === 'Ready'), { status: 'False', reason: 'ContainersNotReady' });
});

void t.test('a created pod becomes Running after the start latency', async (t) => {
  const { clock, sim, seen } = setup();
  const start = clock.now();
  await sim.createPod(podFixture('web'));
  clock.advance(999);
  await drain(1);
  t.same(phases(seen), ['web:Pending']);
  clock.advance(1);
  await drain(1);
  t.same(phases(seen), ['web:Pending', 'web:Running']);
  const status = statusOf(seen[1]);
  t.match(status?.podIP, /^10\.244\.\d+\.\d+$/);
  t.same(status?.podIPs, [{ ip: status?.podIP }]);
  t.same(status?.hostIPs, [{ ip: '10.0.0.10' }]);
  t.equal(status?.startTime?.getTime(), start);
  const c = status?.containerStatuses?.[0];
  t.match(c, { name: 'main', ready: true, started: true, restartCount: 0, image: 'nginx:1.27' });
  t.equal(c?.state?.running?.startedAt?.getTime(), start + 1000);
  t.match(c?.imageID, /^nginx@sha256:[0-9a-f]{64}$/);
  t.match(c?.containerID, /^simulated:\/\/[0-9a-f]{64}$/);
  const conditions = Object.fromEntries((status?.conditions ?? []).map((x) => [x.type, x.status]));
  t.same(conditions, { PodReadyToStartContainers: 'True', Initialized: 'True', ContainersReady: 'True', Ready: 'True' }, 'no PodScheduled');
});

void t.test('init containers are shown initializing, then completed', async (t) => {
  const { clock, sim, seen } = setup();
  await sim.createPod(podFixture('web', { initContainers: [{ name: 'setup', image: 'busybox' }] }));
  clock.advance(1000);
  await drain(1);
  t.match(statusOf(seen[0])?.initContainerStatuses, [{ name: 'setup', state: { waiting: { reason: 'PodInitializing' } } }]);
  t.match(statusOf(seen[0])?.conditions?.find((c) => c.type === 'Initialized'), { status: 'False' });
  t.match(statusOf(seen[1])?.initContainerStatuses, [{ name: 'setup', state: { terminated: { exitCode: 0, reason: 'Completed' } } }]);
});

void t.test('pods get distinct IPs from the configured CIDR, and an IP is released on delete', async (t) => {
  const { clock, sim } = setup({ podCIDR: '192.168.5.0/30' }); // room for exactly one pod
  await sim.createPod(podFixture('a'));
  t.equal(providerKindOf(await caught(sim.createPod(podFixture('b')))), 'transient', 'the CIDR is exhausted');
  clock.advance(1000);
  t.equal((await sim.getPodStatus('ns', 'a'))?.podIP, '192.168.5.2');
  await sim.deletePod(deleting(podFixture('a'), 30));
  clock.advance(200);
  await sim.createPod(podFixture('b'));
  clock.advance(1000);
  t.equal((await sim.getPodStatus('ns', 'b'))?.podIP, '192.168.5.2');
});

void t.test('createPod is idempotent for the same uid, transient for another uid', async (t) => {
  const { sim, seen } = setup();
  await sim.createPod(podFixture('web'));
  await sim.createPod(podFixture('web'));
  await drain(1);
  t.equal(seen.length, 1);
  t.equal(sim.podCount, 1);
  const err = await caught(sim.createPod(podFixture('web', { uid: 'other' })));
  t.equal(providerKindOf(err), 'transient');
});

void t.test('deletePod: containers exit 0 after the stop latency, Succeeded, then the pod is forgotten', async (t) => {
  const { clock, sim, seen } = setup();
  await sim.createPod(podFixture('web'));
  clock.advance(1000);
  await sim.deletePod(deleting(podFixture('web'), 30));
  clock.advance(199);
  await drain(1);
  t.same(phases(seen), ['web:Pending', 'web:Running'], 'still stopping');
  t.ok(await sim.getPod('ns', 'web'));
  clock.advance(1);
  await drain(1);
  t.same(phases(seen), ['web:Pending', 'web:Running', 'web:Succeeded']);
  t.match(statusOf(seen[2])?.containerStatuses?.[0]?.state?.terminated, { exitCode: 0, reason: 'Completed' });
  t.match(statusOf(seen[2])?.conditions?.find((c) => c.type === 'Ready'), { status: 'False', reason: 'PodCompleted' });
  t.equal(await sim.getPod('ns', 'web'), undefined);
  t.same(await sim.listPods(), []);
});

void t.test('deletePod: containers slower than the grace period are killed with 137, Failed', async (t) => {
  const { clock, sim, seen } = setup({ stopLatencyMs: 10_000 });
  await sim.createPod(podFixture('web'));
  clock.advance(1000);
  await sim.deletePod(deleting(podFixture('web'), 2));
  clock.advance(1999);
  await drain(1);
  t.equal(seen.length, 2);
  clock.advance(1);
  await drain(1);
  t.same(phases(seen), ['web:Pending', 'web:Running', 'web:Failed']);
  t.match(statusOf(seen[2])?.containerStatuses?.[0]?.state?.terminated, { exitCode: 137, reason: 'Error' });
});

void t.test('the grace period falls back to spec.terminationGracePeriodSeconds', async (t) => {
  const { clock, sim, seen } = setup({ stopLatencyMs: 10_000 });
  const pod = podFixture('web', { terminationGracePeriodSeconds: 3 });
  await sim.createPod(pod);
  clock.advance(1000);
  await sim.deletePod(podFixture('web', { terminationGracePeriodSeconds: 3 }));
  clock.advance(3000);
  await drain(1);
  t.same(phases(seen).at(-1), 'web:Failed');
});

void t.test('a repeated deletePod with a shorter grace period shortens the wait, a longer one does not lengthen it', async (t) => {
  const { clock, sim, seen } = setup({ stopLatencyMs: 60_000 });
  await sim.createPod(podFixture('web'));
  clock.advance(1000);
  await sim.deletePod(deleting(podFixture('web'), 30));
  await sim.deletePod(deleting(podFixture('web'), 120));
  await sim.deletePod(deleting(podFixture('web'), 5));
  clock.advance(5000);
  await drain(1);
  t.same(phases(seen).at(-1), 'web:Failed');
  t.equal(seen.length, 3, 'one terminal status');
  t.equal(sim.podCount, 0);
});

void t.test('deleting a pod that never started ends it at once as Failed', async (t) => {
  const { clock, sim, seen } = setup();
  await sim.createPod(podFixture('web'));
  await sim.deletePod(deleting(podFixture('web'), 30));
  await drain(1);
  t.same(phases(seen), ['web:Pending', 'web:Failed']);
  t.match(statusOf(seen[1])?.containerStatuses?.[0]?.state?.terminated, { exitCode: 137, reason: 'ContainerStatusUnknown' });
  clock.advance(5000);
  await drain(1);
  t.equal(seen.length, 2, 'the start timer was cancelled');
});

void t.test('deletePod of a pod the provider does not have is not-found', async (t) => {
  const { sim } = setup();
  t.equal(providerKindOf(await caught(sim.deletePod(podFixture('ghost')))), 'not-found');
  await sim.createPod(podFixture('web'));
  t.equal(providerKindOf(await caught(sim.deletePod(podFixture('web', { uid: 'other-uid' })))), 'not-found', 'another uid is another pod');
});

void t.test('a restartPolicy Never pod with exitAfter completes, stays until deleted, and delete re-reports it', async (t) => {
  const { clock, sim, seen } = setup({ exitAfterMs: () => 5000 });
  await sim.createPod(podFixture('job', { restartPolicy: 'Never' }));
  await sim.createPod(podFixture('svc', { restartPolicy: 'Always' }));
  clock.advance(6000);
  await drain(1);
  t.same(phases(seen), ['job:Pending', 'svc:Pending', 'job:Running', 'svc:Running', 'job:Succeeded']);
  t.equal((await sim.getPodStatus('ns', 'job'))?.phase, 'Succeeded', 'kept until deleted');
  await sim.deletePod(deleting(podFixture('job'), 30));
  await drain(1);
  t.same(phases(seen).at(-1), 'job:Succeeded');
  t.equal(await sim.getPod('ns', 'job'), undefined);
});

void t.test('fault injection: invalid pods are rejected as invalid input', async (t) => {
  const { sim } = setup({ faults: { rejectInvalid: (pod) => (pod.spec?.containers[0]?.image?.startsWith('bad/') ? 'image not allowed' : undefined) } });
  const err = await caught(sim.createPod(podFixture('x', { containers: [{ name: 'c', image: 'bad/app' }] })));
  t.equal(providerKindOf(err), 'invalid-input');
  t.match(err, { message: 'image not allowed' });
  await sim.createPod(podFixture('y'));
  sim.faults.setRejectInvalid(undefined);
  await sim.createPod(podFixture('x', { containers: [{ name: 'c', image: 'bad/app' }] }));
  t.equal(sim.podCount, 2);
});

void t.test('fault injection: failCreateFor fails transiently until cleared', async (t) => {
  const { sim } = setup({ faults: { failCreateFor: ['ns/web'] } });
  t.equal(providerKindOf(await caught(sim.createPod(podFixture('web')))), 'transient');
  t.equal(sim.podCount, 0);
  sim.faults.failCreate('ns/web', false);
  await sim.createPod(podFixture('web'));
  t.equal(sim.podCount, 1);
});

void t.test('fault injection: createErrorRate uses the injected random source', async (t) => {
  const draws = [0.05, 0.5];
  const { sim } = setup({ faults: { createErrorRate: 0.1, random: () => draws.shift() ?? 1 } });
  t.equal(providerKindOf(await caught(sim.createPod(podFixture('a')))), 'transient');
  await sim.createPod(podFixture('a'));
  t.equal(sim.podCount, 1);
  t.throws(() => sim.faults.setCreateErrorRate(2));
});

void t.test('fault injection: crashOnce throws one unclassified error about that pod', async (t) => {
  const { sim } = setup();
  await sim.createPod(podFixture('web'));
  sim.faults.crashOnce('ns/web');
  const err = await caught(sim.getPod('ns', 'web'));
  t.equal(providerKindOf(err), undefined);
  t.match(err, { message: /simulated crash/ });
  t.ok(await sim.getPod('ns', 'web'), 'only once');
  sim.faults.crashOnce('ns/web');
  t.equal(providerKindOf(await caught(sim.deletePod(podFixture('web')))), undefined);
});

void t.test('fault injection: ping fails while toggled on', async (t) => {
  const { sim } = setup();
  await sim.ping();
  sim.faults.setPingFailing(true);
  await t.rejects(sim.ping(), { message: /unhealthy/ });
  sim.faults.setPingFailing(false);
  await sim.ping();
  const aborted = AbortSignal.abort(new Error('gave up'));
  await t.rejects(sim.ping(aborted), { message: 'gave up' });
});

void t.test('capacity defaults to a node that holds 10k pods, and is enforced and changeable', async (t) => {
  const { sim } = setup();
  t.same(await sim.capacity(), { capacity: { cpu: '20', memory: '100Gi', pods: '10000' }, allocatable: { cpu: '20', memory: '100Gi', pods: '10000' } });
  sim.setResources({ capacity: { pods: '1' }, allocatable: { pods: '1' } });
  await sim.createPod(podFixture('a'));
  t.equal(providerKindOf(await caught(sim.createPod(podFixture('b')))), 'transient');
  t.match(await sim.nodeInfo(), { operatingSystem: 'linux', architecture: 'amd64' });
  t.equal(sim.name, 'simulated');
});

void t.test('returned pods are copies: mutating them does not change the provider', async (t) => {
  const { sim, seen } = setup();
  await sim.createPod(podFixture('web'));
  await drain(1);
  const got = await sim.getPod('ns', 'web');
  got!.status!.phase = 'Failed';
  statusOf(seen[0])!.phase = 'Failed';
  (await sim.listPods())[0]!.status!.phase = 'Failed';
  t.equal((await sim.getPodStatus('ns', 'web'))?.phase, 'Pending');
});

void t.test('updatePod with a new image restarts that container', async (t) => {
  const { clock, sim, seen } = setup();
  await sim.createPod(podFixture('web'));
  clock.advance(1000);
  await sim.updatePod(podFixture('web', { containers: [{ name: 'main', image: 'nginx:1.28' }] }));
  await drain(1);
  const c = statusOf(seen.at(-1))?.containerStatuses?.[0];
  t.match(c, { image: 'nginx:1.28', restartCount: 1, lastState: { terminated: { exitCode: 0 } } });
  t.equal(seen.length, 3);
  await sim.updatePod(podFixture('web', { containers: [{ name: 'main', image: 'nginx:1.28' }] }));
  await drain(1);
  t.equal(seen.length, 3, 'no change, no notification');
  t.equal(providerKindOf(await caught(sim.updatePod(podFixture('ghost')))), 'not-found');
});

void t.test('losePod reports the pod gone and forgets it', async (t) => {
  const { sim, seen } = setup();
  await sim.createPod(podFixture('web'));
  sim.losePod('ns', 'web');
  await drain(1);
  t.match(seen.at(-1), { type: 'gone', namespace: 'ns', name: 'web', uid: 'uid-web', reason: 'NotFound' });
  t.equal(sim.podCount, 0);
});

void t.test('stats count running containers', async (t) => {
  const { clock, sim } = setup();
  t.ok(isStatsProvider(sim));
  await sim.createPod(podFixture('web', { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] }));
  await sim.createPod(podFixture('later'));
  t.same((await sim.getStatsSummary()).pods, [], 'pending pods use nothing');
  clock.advance(1000);
  const stats = await sim.getStatsSummary();
  t.equal(stats.pods.length, 2);
  t.match(stats.pods[0], { podRef: { namespace: 'ns', name: 'web', uid: 'uid-web' }, usage: { usageNanoCores: 20_000_000 } });
  t.equal(stats.node.usage.usageNanoCores, 100_000_000 + 3 * 10_000_000);
});

void t.test('stop() cancels pending lifecycle timers', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(podFixture('web'));
  void sim.stop();
  t.equal(clock.pendingTimers, 0);
});

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of iterable) out.push(chunk);
  return out;
}

void t.test('logs: deterministic lines with tail, since, timestamps and limitBytes', async (t) => {
  const { clock, sim } = setup({ logIntervalMs: 1000 });
  t.ok(isLogsProvider(sim));
  await sim.createPod(podFixture('web'));
  clock.advance(1000 + 4500); // running since 03:00:01, five lines written
  t.same(await collect(await sim.getContainerLogs('ns', 'web', 'main', {})), [1, 2, 3, 4, 5].map((n) => `web/main line ${n}\n`));
  t.same(await collect(await sim.getContainerLogs('ns', 'web', 'main', { tailLines: 2 })), ['web/main line 4\n', 'web/main line 5\n']);
  t.same(await collect(await sim.getContainerLogs('ns', 'web', 'main', { sinceSeconds: 2 })), ['web/main line 4\n', 'web/main line 5\n']);
  t.same(await collect(await sim.getContainerLogs('ns', 'web', 'main', { tailLines: 1, timestamps: true })), ['2026-11-30T03:00:05.000000000Z web/main line 5\n']);
  t.same((await collect(await sim.getContainerLogs('ns', 'web', 'main', { limitBytes: 20 }))).join(''), 'web/main line 1\nweb/');
});

void t.test('logs: errors come before any output', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(podFixture('web'));
  t.equal(providerKindOf(await caught(sim.getContainerLogs('ns', 'web', 'main', {}))), 'invalid-input', 'waiting to start');
  clock.advance(1000);
  t.equal(providerKindOf(await caught(sim.getContainerLogs('ns', 'ghost', 'main', {}))), 'not-found');
  t.equal(providerKindOf(await caught(sim.getContainerLogs('ns', 'web', 'nope', {}))), 'invalid-input');
  t.equal(providerKindOf(await caught(sim.getContainerLogs('ns', 'web', 'main', { previous: true }))), 'invalid-input', 'no previous instance');
});

void t.test('logs: previous shows the instance before a restart', async (t) => {
  const { clock, sim } = setup({ logIntervalMs: 1000 });
  await sim.createPod(podFixture('web'));
  clock.advance(1000 + 2000);
  await sim.updatePod(podFixture('web', { containers: [{ name: 'main', image: 'nginx:1.28' }] }));
  clock.advance(500);
  t.same(await collect(await sim.getContainerLogs('ns', 'web', 'main', { previous: true })), [1, 2, 3].map((n) => `web/main line ${n}\n`));
  t.same(await collect(await sim.getContainerLogs('ns', 'web', 'main', {})), ['web/main line 1\n']);
});

void t.test('logs: follow emits a new line every interval until aborted', async (t) => {
  const { clock, sim } = setup({ logIntervalMs: 1000 });
  await sim.createPod(podFixture('web'));
  clock.advance(1000);
  const controller = new AbortController();
  const lines: string[] = [];
  let done = false;
  void (async () => {
    for await (const chunk of await sim.getContainerLogs('ns', 'web', 'main', { follow: true }, controller.signal)) lines.push(chunk);
    done = true;
  })();
  await until('the first line and a follow timer', () => lines.length === 1 && clock.pendingTimers === 1);
  clock.advance(1000);
  await until('line 2', () => lines.length === 2);
  clock.advance(2000);
  await until('lines 3 and 4', () => lines.length === 4);
  t.same(lines, [1, 2, 3, 4].map((n) => `web/main line ${n}\n`));
  controller.abort();
  await until('the stream to end', () => done);
  t.equal(clock.pendingTimers, 0, 'no timer left behind');
});

void t.test('logs: follow ends when the container stops', async (t) => {
  const { clock, sim } = setup({ logIntervalMs: 1000 });
  await sim.createPod(podFixture('web'));
  clock.advance(1000);
  let done = false;
  void (async () => {
    for await (const _ of await sim.getContainerLogs('ns', 'web', 'main', { follow: true })) void _;
    done = true;
  })();
  await until('the follow timer', () => clock.pendingTimers === 1);
  await sim.deletePod(deleting(podFixture('web'), 30));
  clock.advance(1000);
  await until('the stream to end', () => done);
  t.pass();
});

void t.test('stats: a container uses half of its requests, steadily, with cumulative CPU since it started', async (t) => {
  const { clock, sim } = setup();
  const big = podFixture('big');
  big.spec = { containers: [{ name: 'a', image: 'x', resources: { requests: { cpu: '200m', memory: '64Mi' } } }] };
  await sim.createPod(big);
  clock.advance(1000);
  const first = await sim.getStatsSummary();
  t.match(first.pods[0]?.containers[0]?.usage, { usageNanoCores: 100_000_000, workingSetBytes: 32 * 1024 * 1024 });
  clock.advance(10_000);
  const later = await sim.getStatsSummary();
  const spent = (later.pods[0]?.containers[0]?.usage.usageCoreNanoSeconds ?? 0) - (first.pods[0]?.containers[0]?.usage.usageCoreNanoSeconds ?? 0);
  t.equal(spent, 100_000_000 * 10, '0.1 core for 10 s');
});

void t.test('listPodMarks: the same pods as listPods, as identity and Tether\'s marks only', async (t) => {
  const { sim } = setup();
  const marked = podFixture('web');
  marked.metadata = { ...marked.metadata, annotations: { 'tether.dev/host-uid': 'host-1', 'tether.dev/virtual-node': 'vn', 'example.com/other': 'x' } };
  await sim.createPod(marked);
  await sim.createPod(podFixture('plain'));
  const marks = await sim.listPodMarks();
  t.same(marks.map((m) => m.name).sort(), (await sim.listPods()).map((p) => p.metadata?.name).sort());
  t.same(marks.find((m) => m.name === 'web'), { namespace: 'ns', name: 'web', uid: marked.metadata.uid, marks: { 'tether.dev/host-uid': 'host-1', 'tether.dev/virtual-node': 'vn' } });
  t.same(marks.find((m) => m.name === 'plain')?.marks, {}, 'no marks: an empty record');
});
