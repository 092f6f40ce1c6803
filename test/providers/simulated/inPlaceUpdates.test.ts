/**
 * A simulated node built with in-place updates resizes a running pod's containers and runs its
 * ephemeral containers as a kubelet does: resources reported per container, the resize
 * conditions (InProgress, then done; Infeasible and Deferred with the kubelet's words), and an
 * ephemeral container that runs and that exec reaches.
 */
import t from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import type { Pod, PodCondition, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import type { PodNotification } from '../../../src/providers/provider.js';
import { inPlaceUpdatesOf } from '../../../src/providers/provider.js';
import { SimulatedProvider, type SimulatedProviderOptions } from '../../../src/providers/simulated/simulatedProvider.js';
import { drain } from '../../support/until.js';
import { podFixture } from '../helpers.js';

function setup(options: SimulatedProviderOptions = {}) {
  const clock = new ManualClock(Date.parse('2026-12-03T12:00:00Z'));
  const events: string[] = [];
  const sim = new SimulatedProvider({
    clock, startLatencyMs: 100, resizeLatencyMs: 200, inPlaceUpdates: ['resize', 'ephemeralContainers'],
    resources: { capacity: { cpu: '2', memory: '4Gi', pods: '10' }, allocatable: { cpu: '2', memory: '4Gi', pods: '10' } },
    podEvents: (_pod, type, reason, note) => events.push(`${type} ${reason}: ${note}`),
    ...options,
  });
  const seen: PodNotification[] = [];
  sim.notifyPods((n) => seen.push(n));
  const last = (): PodStatus | undefined => {
    const n = seen.at(-1);
    return n?.type === 'status' ? n.pod.status : undefined;
  };
  return { clock, sim, seen, events, last };
}

const pod = (name: string, cpu: string, generation = 1): Pod => {
  const p = podFixture(name, { containers: [{ name: 'app', image: 'busybox' }] });
  return { ...p, metadata: { ...p.metadata, generation }, spec: { ...p.spec, containers: [{ name: 'app', image: 'busybox', resources: { requests: { cpu, memory: '64Mi' } } }] } };
};
const condition = (status: PodStatus | undefined, type: string): Partial<PodCondition> | undefined => {
  const c = status?.conditions?.find((x) => x.type === type);
  return c && { status: c.status, reason: c.reason, message: c.message };
};

async function running(s: ReturnType<typeof setup>, p: Pod): Promise<void> {
  await s.sim.createPod(p);
  s.clock.advance(100);
  await drain(3);
}

void t.test('it says what it does in place (InPlaceUpdateProvider); a node built without says nothing', async (t) => {
  t.same(inPlaceUpdatesOf(setup().sim), ['resize', 'ephemeralContainers']);
  t.same(inPlaceUpdatesOf(new SimulatedProvider()), []);
});

void t.test('a running container reports the resources it runs with and what is allocated (what the API server needs to accept a resize)', async (t) => {
  const s = setup();
  await running(s, pod('web', '100m'));
  t.same(s.last()?.containerStatuses?.[0]?.resources, { requests: { cpu: '100m', memory: '64Mi' } });
  t.same(s.last()?.containerStatuses?.[0]?.allocatedResources, { cpu: '100m', memory: '64Mi' });
  const plain = setup({ inPlaceUpdates: [] });
  await running(plain, pod('web', '100m'));
  t.equal(plain.last()?.containerStatuses?.[0]?.resources, undefined, 'a node without resize reports none');
});

void t.test('a resize that fits is allocated at once, in progress, and actuated after the latency', async (t) => {
  const s = setup();
  await running(s, pod('web', '100m'));
  await s.sim.updatePod(pod('web', '500m', 2));
  await drain(3);
  t.same(s.last()?.containerStatuses?.[0]?.allocatedResources, { cpu: '500m', memory: '64Mi' });
  t.same(s.last()?.containerStatuses?.[0]?.resources, { requests: { cpu: '100m', memory: '64Mi' } }, 'still running with the old ones');
  t.same(condition(s.last(), 'PodResizeInProgress'), { status: 'True', reason: '', message: '' });
  t.equal(s.last()?.conditions?.find((c) => c.type === 'PodResizeInProgress')?.observedGeneration, 2);
  s.clock.advance(200);
  await drain(3);
  t.same(s.last()?.containerStatuses?.[0]?.resources, { requests: { cpu: '500m', memory: '64Mi' } });
  t.same(condition(s.last(), 'PodResizeInProgress'), { status: 'False', reason: '', message: '' }, 'turned False: a merge would keep one left out');
  t.equal(s.last()?.phase, 'Running');
  t.same(s.events, ['Normal ResizeStarted: Pod resize started', 'Normal ResizeCompleted: Pod resize completed']);
});

void t.test('a resize beyond the node is Infeasible, one beyond what the other pods leave is Deferred, in the kubelet\'s words; undone, it is no longer pending', async (t) => {
  const s = setup();
  await running(s, pod('web', '100m'));
  await running(s, pod('db', '1500m'));
  await s.sim.updatePod(pod('web', '3', 2));
  await drain(3);
  const web = (): PodStatus | undefined => [...s.seen].reverse().flatMap((n) => (n.type === 'status' && n.pod.metadata?.name === 'web' ? [n.pod.status] : []))[0];
  t.same(condition(web(), 'PodResizePending'), { status: 'True', reason: 'Infeasible', message: 'Node didn\'t have enough capacity: cpu, requested: 3000, capacity: 2000' });
  t.same(web()?.containerStatuses?.[0]?.allocatedResources, { cpu: '100m', memory: '64Mi' }, 'nothing allocated');
  await s.sim.updatePod(pod('web', '1', 3));
  await drain(3);
  t.same(condition(web(), 'PodResizePending'), { status: 'True', reason: 'Deferred', message: 'Node didn\'t have enough resource: cpu, requested: 1000, used: 1500, capacity: 2000' });
  await s.sim.updatePod(pod('web', '100m', 4));
  await drain(3);
  t.same(condition(web(), 'PodResizePending'), { status: 'False', reason: '', message: '' });
  t.match(s.events, [/^Warning ResizeInfeasible: Pod resize Infeasible: Node didn't have enough capacity/, /^Normal ResizeDeferred: Pod resize Deferred: /]);
});

void t.test('an ephemeral container added to a running pod runs, is reported, and exec reaches it through the built-in shell', async (t) => {
  const s = setup();
  await running(s, pod('web', '100m'));
  const debugged = pod('web', '100m', 2);
  debugged.spec = { ...debugged.spec!, ephemeralContainers: [{ name: 'debugger', image: 'busybox', targetContainerName: 'app' }] };
  await s.sim.updatePod(debugged);
  await drain(3);
  t.match(s.last()?.ephemeralContainerStatuses, [{ name: 'debugger', image: 'busybox', ready: false, restartCount: 0, state: { running: {} } }]);
  let out = '';
  const code = await s.sim.runInContainer({ namespace: 'ns', pod: 'web', container: 'debugger' }, ['echo', 'hi'], { tty: false, stdout: async (c) => void (out += c.toString()) });
  t.equal(code, 0);
  t.equal(out, 'hi\n');
});

void t.test('attach to an ephemeral container reaches its shell (kubectl debug -it): it reads the attach\'s stdin and answers', async (t) => {
  const s = setup();
  await running(s, pod('web', '100m'));
  const debugged = pod('web', '100m', 2);
  debugged.spec = { ...debugged.spec!, ephemeralContainers: [{ name: 'debugger', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }] };
  await s.sim.updatePod(debugged);
  await drain(3);
  let out = '';
  const stdin = (async function* () { yield Buffer.from('echo hi-from-debug\nexit\n'); })();
  const code = await s.sim.attachToContainer({ namespace: 'ns', pod: 'web', container: 'debugger' }, { tty: false, stdin, stdout: async (c) => void (out += c.toString()) });
  t.equal(code, 0, 'the shell exited as told');
  t.match(out, /hi-from-debug\n/);
});
