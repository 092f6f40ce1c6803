/**
 * What the simulated shell cannot run (a here-document, a builtin's option it lacks) ends the
 * container as a real runtime reports a start failure: terminated StartError, exit 128, a message
 * naming what, a Failed Event and a line in the log; RunContainerError until the next sync, then
 * the restart back-off. A script's own failure stays an Error exit. On the manual clock.
 */
import t from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import type { ContainerStatus } from '../../../src/adapters/kubernetes/model.js';
import { SimulatedProvider } from '../../../src/providers/simulated/simulatedProvider.js';
import { passTime, simulatedPod } from './support/simulatedNode.js';

interface Recorded { readonly type: string; readonly reason: string; readonly note: string; readonly container: string | undefined }

function setup(): { clock: ManualClock; sim: SimulatedProvider; events: Recorded[] } {
  const clock = new ManualClock(Date.parse('2026-12-01T00:00:00Z'));
  const events: Recorded[] = [];
  const sim = new SimulatedProvider({
    clock, startLatencyMs: 1000, stopLatencyMs: 200,
    podEvents: (_pod, type, reason, note, about) => events.push({ type, reason, note, container: about?.fieldPath }),
  });
  sim.notifyPods(() => undefined);
  return { clock, sim, events };
}

const pod = simulatedPod;

/** Moves the clock in steps, letting the shell's promises run between them. */
const pass = (clock: ManualClock, ms: number, step = 250): Promise<void> => passTime(clock, ms, step, 3);

async function container(sim: SimulatedProvider, podName: string): Promise<ContainerStatus | undefined> {
  return (await sim.getPodStatus('ns', podName))?.containerStatuses?.find((c) => c.name === 'main');
}

async function logs(sim: SimulatedProvider, podName: string, options = {}): Promise<string> {
  let out = '';
  for await (const chunk of await sim.getContainerLogs('ns', podName, 'main', options)) out += chunk;
  return out;
}

const HEREDOC = 'cat <<EOF\nhello\nEOF';

void t.test('a here-document: StartError 128 naming it, RunContainerError until the next sync, then the back-off', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('heredoc', [{ name: 'main', image: 'busybox', command: ['sh', '-c', HEREDOC] }], { restartPolicy: 'OnFailure' }));
  await pass(clock, 1000);
  let c = await container(sim, 'heredoc');
  t.match(c?.state?.waiting, { reason: 'RunContainerError', message: /cannot run this command: here-documents \(<<\) are not supported/ });
  t.match(c?.lastState?.terminated, { reason: 'StartError', exitCode: 128, message: /here-documents/ });
  t.equal(c?.restartCount, 0);
  t.match(await logs(sim, 'heredoc'), /^the simulated node cannot run this command: here-documents \(<<\) are not supported by the simulated shell\n$/);
  t.match(events, [{ type: 'Warning', reason: 'Failed', note: /^Error: the simulated node cannot run this command: here-documents/, container: 'spec.containers{main}' }]);
  await pass(clock, 1000);
  c = await container(sim, 'heredoc');
  t.equal(c?.restartCount, 1, 'the first restart is at once, as after any exit');
  t.equal(c?.state?.waiting?.reason, 'RunContainerError', 'and it fails to start again');
  await pass(clock, 1500);
  c = await container(sim, 'heredoc');
  t.match(c?.state?.waiting, { reason: 'CrashLoopBackOff', message: /^back-off 10s restarting failed container=main/ });
  t.match(c?.lastState?.terminated, { reason: 'StartError', exitCode: 128 });
  t.equal((await sim.getPodStatus('ns', 'heredoc'))?.phase, 'Running');
});

void t.test('under Never a start failure stays terminated StartError and the pod Failed', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('never', [{ name: 'main', image: 'busybox', command: ['sh', '-c', HEREDOC] }], { restartPolicy: 'Never' }));
  await pass(clock, 2000);
  t.match((await container(sim, 'never'))?.state?.terminated, { reason: 'StartError', exitCode: 128, message: /here-documents/ });
  t.equal((await sim.getPodStatus('ns', 'never'))?.phase, 'Failed');
});

void t.test('an option a builtin lacks ends the container as a start failure too, after what it wrote before', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('option', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'echo before; date -d yesterday; echo after'] }], { restartPolicy: 'Never' }));
  await pass(clock, 2000);
  t.match((await container(sim, 'option'))?.state?.terminated, { reason: 'StartError', exitCode: 128, message: /date: option '-d' is not supported by the simulated shell/ });
  t.match(await logs(sim, 'option'), /^before\nthe simulated node cannot run this command: date: option '-d'/);
  t.notMatch(await logs(sim, 'option'), /after/);
});

void t.test('a script error stays an Error exit: a command not found is 127, exit 3 is 3', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('missing', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'nosuchcmd'] }], { restartPolicy: 'Never' }));
  await sim.createPod(pod('three', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'exit 3'] }], { restartPolicy: 'Never' }));
  await pass(clock, 2000);
  t.match((await container(sim, 'missing'))?.state?.terminated, { reason: 'Error', exitCode: 127 });
  t.match(await logs(sim, 'missing'), /nosuchcmd: not found/);
  t.match((await container(sim, 'three'))?.state?.terminated, { reason: 'Error', exitCode: 3 });
});
