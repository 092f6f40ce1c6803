/**
 * A liveness or startup failure kills the container as the kubelet's killContainer does: TERM
 * first (a trapped TERM runs), KILL (137) at the grace deadline, the grace being the probe's
 * `terminationGracePeriodSeconds` when set, else the pod's (at least 2 s). On the manual clock.
 */
import t from 'tap';
import { ManualClock } from '../../../support/manualClock.js';
import type { ContainerStatus } from '../../../../src/adapters/kubernetes/model.js';
import { SimulatedProvider } from '../../../../src/providers/simulated/simulatedProvider.js';
import { passTime, simulatedPod } from '../support/simulatedNode.js';


function setup(): { clock: ManualClock; sim: SimulatedProvider } {
  const clock = new ManualClock(Date.parse('2026-12-01T00:00:00Z'));
  const sim = new SimulatedProvider({ clock, startLatencyMs: 1000, stopLatencyMs: 200 });
  sim.notifyPods(() => undefined);
  return { clock, sim };
}

const pod = simulatedPod;

/** Moves the clock in steps, letting the shell's promises run between them. */
const pass = (clock: ManualClock, ms: number, step = 250): Promise<void> => passTime(clock, ms, step, 5);

async function container(sim: SimulatedProvider, podName: string): Promise<ContainerStatus | undefined> {
  return (await sim.getPodStatus('ns', podName))?.containerStatuses?.find((c) => c.name === 'main');
}

async function logs(sim: SimulatedProvider, podName: string, previous: boolean): Promise<string> {
  let out = '';
  for await (const chunk of await sim.getContainerLogs('ns', podName, 'main', { previous })) out += chunk;
  return out;
}

/** Fails its first liveness probe at 1 s after the container started (at 1 s): the kill at 2 s. */
const failing = { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1, initialDelaySeconds: 1 };

void t.test('a liveness kill sends TERM first: a trapped TERM runs and the container ends in its own time, then restarts', async (t) => {
  const { clock, sim } = setup();
  const script = 'trap "echo stopping; sleep 3; echo bye; exit 0" TERM; echo up; while true; do sleep 1; done';
  await sim.createPod(pod('graceful', [{ name: 'main', image: 'busybox', command: ['sh', '-c', script], livenessProbe: failing }], { terminationGracePeriodSeconds: 10 }));
  await pass(clock, 2500);
  t.match(await container(sim, 'graceful'), { state: { running: {} }, restartCount: 0 }, 'the trap still runs');
  t.match(await logs(sim, 'graceful', false), /stopping\n$/);
  await pass(clock, 3000);
  const c = await container(sim, 'graceful');
  t.equal(c?.restartCount, 1);
  t.match(c?.lastState?.terminated, { exitCode: 0, reason: 'Completed' }, 'its own exit, not 137');
  t.equal(await logs(sim, 'graceful', true), 'up\nstopping\nbye\n');
});

void t.test('the probe\'s terminationGracePeriodSeconds bounds the kill: 137 at its deadline, not the pod\'s', async (t) => {
  const { clock, sim } = setup();
  const script = 'trap "echo ignoring" TERM; while true; do sleep 1; done';
  await sim.createPod(pod('stubborn', [{ name: 'main', image: 'busybox', command: ['sh', '-c', script], livenessProbe: { ...failing, terminationGracePeriodSeconds: 3 } }], { terminationGracePeriodSeconds: 60 }));
  await pass(clock, 4500);
  t.match(await container(sim, 'stubborn'), { state: { running: {} }, restartCount: 0 }, 'TERM trapped, 3 s not yet passed');
  await pass(clock, 1000);
  const c = await container(sim, 'stubborn');
  t.equal(c?.restartCount, 1);
  t.match(c?.lastState?.terminated, { exitCode: 137, reason: 'Error' });
});

void t.test('without a probe grace the pod\'s is used, at least 2 s', async (t) => {
  const { clock, sim } = setup();
  const script = 'trap "echo ignoring" TERM; while true; do sleep 1; done';
  await sim.createPod(pod('zero', [{ name: 'main', image: 'busybox', command: ['sh', '-c', script], livenessProbe: failing }], { terminationGracePeriodSeconds: 0 }));
  await pass(clock, 3500);
  t.equal((await container(sim, 'zero'))?.restartCount, 0, 'killed no sooner than 2 s after TERM');
  await pass(clock, 1000);
  t.match(await container(sim, 'zero'), { restartCount: 1, lastState: { terminated: { exitCode: 137 } } });
});

void t.test('a startup probe failure kills with the startup probe\'s grace', async (t) => {
  const { clock, sim } = setup();
  const script = 'trap "echo ignoring" TERM; while true; do sleep 1; done';
  await sim.createPod(pod('unstarted', [{ name: 'main', image: 'busybox', command: ['sh', '-c', script], startupProbe: { ...failing, terminationGracePeriodSeconds: 4 } }], { terminationGracePeriodSeconds: 60 }));
  await pass(clock, 5500);
  t.equal((await container(sim, 'unstarted'))?.restartCount, 0);
  await pass(clock, 1000);
  t.match(await container(sim, 'unstarted'), { restartCount: 1, lastState: { terminated: { exitCode: 137 } } });
});

void t.test('under OnFailure a container killed for its probe restarts even when it then exits 0, as the kubelet restarts it in the kill\'s sync', async (t) => {
  const { clock, sim } = setup();
  const script = 'trap "echo bye; exit 0" TERM; while true; do sleep 1; done';
  await sim.createPod(pod('clean', [{ name: 'main', image: 'busybox', command: ['sh', '-c', script], livenessProbe: failing }], { restartPolicy: 'OnFailure' }));
  await pass(clock, 3000);
  const c = await container(sim, 'clean');
  t.match(c, { restartCount: 1, lastState: { terminated: { exitCode: 0, reason: 'Completed' } } }, 'restarted after its own exit 0');
  t.notOk(c?.state?.terminated, 'not left Completed');
  t.equal((await sim.getPodStatus('ns', 'clean'))?.phase, 'Running');
  await pass(clock, 2000);
  t.match(await container(sim, 'clean'), { restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 0 } } }, 'the second kill backs off');
  t.equal((await sim.getPodStatus('ns', 'clean'))?.phase, 'Running', 'backing off after an exit 0 is not done');
  await pass(clock, 10_000);
  t.equal((await container(sim, 'clean'))?.restartCount, 2);
});

void t.test('a server (no TERM trap: it ends 0) killed for its startup probe under OnFailure restarts too', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('server', [{ name: 'main', image: 'nginx', startupProbe: { httpGet: { port: 80 }, periodSeconds: 1, failureThreshold: 1, initialDelaySeconds: 1 } }], { restartPolicy: 'OnFailure' }));
  await pass(clock, 3000);
  t.match(await container(sim, 'server'), { restartCount: 1, lastState: { terminated: { exitCode: 0 } } });
});

void t.test('under Never a container killed for its probe that exits 0 stays Completed and the pod Succeeded', async (t) => {
  const { clock, sim } = setup();
  const script = 'trap "exit 0" TERM; while true; do sleep 1; done';
  await sim.createPod(pod('once', [{ name: 'main', image: 'busybox', command: ['sh', '-c', script], livenessProbe: failing }], { restartPolicy: 'Never' }));
  await pass(clock, 3000);
  t.match(await container(sim, 'once'), { restartCount: 0, state: { terminated: { exitCode: 0 } } });
  t.equal((await sim.getPodStatus('ns', 'once'))?.phase, 'Succeeded');
});
