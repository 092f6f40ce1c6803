/**
 * The simulated node runs its containers' commands as the kubelet runs them: exits become
 * terminated states and pod phases, the restart policy restarts with the kubelet's back-off, init
 * containers run in order and sidecars beside them, a delete sends TERM. On the manual clock.
 */
import t from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import type { ContainerStatus, Pod, PodSpec } from '../../../src/adapters/kubernetes/model.js';
import { SimulatedProvider, type SimulatedProviderOptions } from '../../../src/providers/simulated/simulatedProvider.js';
import type { ShellRunner } from '../../../src/providers/simulated/containerRuntime.js';
import { passTime, simulatedPod } from './support/simulatedNode.js';


function setup(options: SimulatedProviderOptions = {}): { clock: ManualClock; sim: SimulatedProvider } {
  const clock = new ManualClock(Date.parse('2026-12-01T00:00:00Z'));
  const sim = new SimulatedProvider({ clock, startLatencyMs: 1000, stopLatencyMs: 200, ...options });
  sim.notifyPods(() => undefined);
  return { clock, sim };
}

const pod = simulatedPod;

/** Moves the clock in steps, letting the shell's promises run between them. */
const pass = (clock: ManualClock, ms: number, step = 500): Promise<void> => passTime(clock, ms, step, 3);

async function status(sim: SimulatedProvider, name: string): Promise<NonNullable<Pod['status']>> {
  const s = await sim.getPodStatus('ns', name);
  if (s === undefined) throw new Error(`no pod ${name}`);
  return s;
}

async function container(sim: SimulatedProvider, podName: string, name = 'main'): Promise<ContainerStatus | undefined> {
  const s = await status(sim, podName);
  return [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])].find((c) => c.name === name);
}

async function logs(sim: SimulatedProvider, podName: string, name = 'main', options = {}): Promise<string> {
  let out = '';
  for await (const chunk of await sim.getContainerLogs('ns', podName, name, options)) out += chunk;
  return out;
}

void t.test('a command that exits 0 ends Completed and a Never pod Succeeded; its output is the log', async (t) => {
  const { clock, sim } = setup();
  const start = clock.now();
  await sim.createPod(pod('job', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'echo done; sleep 2'] }], { restartPolicy: 'Never' }));
  await pass(clock, 1000);
  t.match(await container(sim, 'job'), { state: { running: {} }, ready: true });
  t.equal(await logs(sim, 'job'), 'done\n', 'written before it exits');
  await pass(clock, 2000);
  const c = await container(sim, 'job');
  t.match(c?.state?.terminated, { exitCode: 0, reason: 'Completed' });
  t.equal(c?.state?.terminated?.startedAt?.getTime(), start + 1000);
  t.equal(c?.state?.terminated?.finishedAt?.getTime(), start + 3000);
  t.match(c?.containerID, /^simulated:\/\//);
  t.equal(c?.state?.terminated?.containerID, c?.containerID);
  const s = await status(sim, 'job');
  t.equal(s.phase, 'Succeeded');
  t.match(s.conditions?.find((x) => x.type === 'Ready'), { status: 'False', reason: 'PodCompleted' });
  t.equal(await logs(sim, 'job'), 'done\n', 'the log stays readable after the exit');
});

void t.test('a non-zero exit ends Error with its code, and a Never pod Failed', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('fail', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'nope; exit 3'] }], { restartPolicy: 'Never' }));
  await pass(clock, 1000);
  t.match((await container(sim, 'fail'))?.state?.terminated, { exitCode: 3, reason: 'Error' });
  t.equal((await status(sim, 'fail')).phase, 'Failed');
});

void t.test('command and args are $(VAR)-expanded as the kubelet expands them', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('env', [{ name: 'main', image: 'busybox', env: [{ name: 'GREETING', value: 'hi' }], command: ['echo'], args: ['$(GREETING)', '$$(GREETING)', '$(NOPE)'] }], { restartPolicy: 'Never' }));
  await pass(clock, 1000);
  t.equal(await logs(sim, 'env'), 'hi $(GREETING) $(NOPE)\n');
});

void t.test('OnFailure: a crashing container restarts at once, then backs off 10 s, 20 s, 40 s in CrashLoopBackOff', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('crash', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'exit 1'] }], { restartPolicy: 'OnFailure' }));
  await pass(clock, 1000);
  let c = await container(sim, 'crash');
  t.equal(c?.restartCount, 1, 'the first exit restarts at once, as the kubelet does');
  t.match(c?.state?.waiting, { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=main pod=crash_ns(uid-crash)' });
  t.match(c?.lastState?.terminated, { exitCode: 1, reason: 'Error' });
  t.equal(c?.ready, false);
  const s = await status(sim, 'crash');
  t.equal(s.phase, 'Running');
  t.match(s.conditions?.find((x) => x.type === 'ContainersReady'), { status: 'False', reason: 'ContainersNotReady' });
  await pass(clock, 9500);
  t.equal((await container(sim, 'crash'))?.restartCount, 1, 'still waiting before 10 s');
  await pass(clock, 500);
  c = await container(sim, 'crash');
  t.equal(c?.restartCount, 2);
  t.match(c?.state?.waiting?.message, /^back-off 20s /);
  await pass(clock, 20_000);
  c = await container(sim, 'crash');
  t.equal(c?.restartCount, 3);
  t.match(c?.state?.waiting?.message, /^back-off 40s /);
  await pass(clock, 40_000);
  t.match((await container(sim, 'crash'))?.state?.waiting?.message, /^back-off 1m20s /);
});

void t.test('the back-off goes back to 10 s after a run longer than 10 min', async (t) => {
  const runs = [1, 1, 1, 660, 1];
  let n = 0;
  const runShell: ShellRunner = async (_argv, io) => {
    await io.sleep((runs[n++] ?? 1) * 1000, io.signal);
    return 1;
  };
  const { clock, sim } = setup({ runShell });
  await sim.createPod(pod('long', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'app'] }], { restartPolicy: 'Always' }));
  await pass(clock, 1000 + 1000 + 1000 + 10_000 + 1000 + 20_000 + 1000, 1000);
  t.match((await container(sim, 'long'))?.state?.running, {}, 'the fourth run, after back-offs of 10 s and 20 s');
  await pass(clock, 660_000, 10_000);
  const c = await container(sim, 'long');
  t.equal(c?.restartCount, 4, 'restarted at once after the long run');
  await pass(clock, 1000, 1000);
  t.match((await container(sim, 'long'))?.state?.waiting?.message, /^back-off 10s /, 'and the next crash starts from 10 s again');
});

void t.test('Always restarts a container that exits 0 too; Never leaves it', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('always', [{ name: 'main', image: 'busybox', command: ['true'] }], { restartPolicy: 'Always' }));
  await sim.createPod(pod('never', [{ name: 'main', image: 'busybox', command: ['true'] }], { restartPolicy: 'Never' }));
  await pass(clock, 1000);
  t.equal((await container(sim, 'always'))?.state?.waiting?.reason, 'CrashLoopBackOff');
  t.equal((await container(sim, 'always'))?.lastState?.terminated?.reason, 'Completed');
  t.equal((await status(sim, 'always')).phase, 'Running');
  t.equal((await status(sim, 'never')).phase, 'Succeeded');
});

void t.test('init containers run in order, each after the one before exited 0; then the main containers', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('inits', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'echo main; sleep 100'] }], {
    initContainers: [
      { name: 'first', image: 'busybox', command: ['sh', '-c', 'echo first; sleep 2'] },
      { name: 'second', image: 'busybox', command: ['sh', '-c', 'echo second'] },
    ],
  }));
  await pass(clock, 1000);
  t.match(await container(sim, 'inits', 'first'), { state: { running: {} } });
  t.match(await container(sim, 'inits', 'second'), { state: { waiting: { reason: 'PodInitializing' } } });
  t.match(await container(sim, 'inits', 'main'), { state: { waiting: { reason: 'PodInitializing' } } });
  let s = await status(sim, 'inits');
  t.equal(s.phase, 'Pending');
  t.match(s.conditions?.find((x) => x.type === 'Initialized'), { status: 'False', reason: 'ContainersNotInitialized' });
  await pass(clock, 2000);
  t.match(await container(sim, 'inits', 'first'), { state: { terminated: { exitCode: 0, reason: 'Completed' } }, ready: true });
  t.match(await container(sim, 'inits', 'second'), { state: { terminated: { exitCode: 0 } } });
  t.match(await container(sim, 'inits', 'main'), { state: { running: {} }, ready: true });
  s = await status(sim, 'inits');
  t.equal(s.phase, 'Running');
  t.match(s.conditions?.find((x) => x.type === 'Initialized'), { status: 'True' });
  t.match(s.conditions?.find((x) => x.type === 'Ready'), { status: 'True' });
  t.equal(await logs(sim, 'inits', 'second'), 'second\n');
});

void t.test('a failing init container blocks: CrashLoopBackOff under OnFailure, the pod Failed under Never', async (t) => {
  const { clock, sim } = setup();
  const spec = (restartPolicy: 'OnFailure' | 'Never'): Partial<PodSpec> => ({ restartPolicy, initContainers: [{ name: 'setup', image: 'busybox', command: ['sh', '-c', 'exit 2'] }] });
  await sim.createPod(pod('retry', [{ name: 'main', image: 'nginx' }], spec('OnFailure')));
  await sim.createPod(pod('once', [{ name: 'main', image: 'nginx' }], spec('Never')));
  await pass(clock, 1000);
  t.match(await container(sim, 'retry', 'setup'), { restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 2 } } });
  t.match(await container(sim, 'retry', 'main'), { state: { waiting: { reason: 'PodInitializing' } } });
  t.equal((await status(sim, 'retry')).phase, 'Pending');
  t.match(await container(sim, 'once', 'setup'), { restartCount: 0, state: { terminated: { exitCode: 2, reason: 'Error' } } });
  t.equal((await status(sim, 'once')).phase, 'Failed');
});

void t.test('a sidecar starts, keeps running beside the next init and the main container, and stops when a Job-like pod is done', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('side', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 3; echo done'] }], {
    restartPolicy: 'Never',
    initContainers: [
      { name: 'proxy', image: 'envoy', restartPolicy: 'Always' },
      { name: 'setup', image: 'busybox', command: ['sh', '-c', 'sleep 1'] },
    ],
  }));
  await pass(clock, 1000);
  t.match(await container(sim, 'side', 'proxy'), { state: { running: {} }, started: true });
  t.match(await container(sim, 'side', 'setup'), { state: { running: {} } }, 'the next init starts once the sidecar has started');
  await pass(clock, 1000);
  t.match(await container(sim, 'side', 'main'), { state: { running: {} } });
  t.match(await container(sim, 'side', 'proxy'), { state: { running: {} } });
  t.equal((await status(sim, 'side')).phase, 'Running');
  await pass(clock, 3500);
  t.match(await container(sim, 'side', 'main'), { state: { terminated: { exitCode: 0 } } });
  t.match(await container(sim, 'side', 'proxy'), { state: { terminated: {} } }, 'the sidecar was stopped');
  t.equal((await status(sim, 'side')).phase, 'Succeeded');
});
