/**
 * Probes on sidecars (restartable init containers), as the kubelet runs them: a sidecar's
 * readiness counts in the pod's readiness, its startup probe holds back the containers after it,
 * and its liveness failure restarts it, with the kubelet's Events naming spec.initContainers.
 * On the manual clock.
 */
import t from 'tap';
import { ManualClock } from '../../../support/manualClock.js';
import type { ContainerStatus } from '../../../../src/adapters/kubernetes/model.js';
import { SimulatedProvider } from '../../../../src/providers/simulated/simulatedProvider.js';
import { passTime, simulatedPod } from '../support/simulatedNode.js';


interface Seen { readonly reason: string; readonly note: string; readonly container: string | undefined }

function setup(): { clock: ManualClock; sim: SimulatedProvider; events: Seen[] } {
  const clock = new ManualClock(Date.parse('2026-12-01T00:00:00Z'));
  const events: Seen[] = [];
  const sim = new SimulatedProvider({ clock, startLatencyMs: 1000, stopLatencyMs: 200, podEvents: (_pod, _type, reason, note, about) => events.push({ reason, note, container: about?.fieldPath }) });
  sim.notifyPods(() => undefined);
  return { clock, sim, events };
}

const pod = simulatedPod;

/** Moves the clock in steps, letting the shell's promises run between them. */
const pass = (clock: ManualClock, ms: number, step = 250): Promise<void> => passTime(clock, ms, step, 5);

async function container(sim: SimulatedProvider, podName: string, name: string): Promise<ContainerStatus | undefined> {
  const s = await sim.getPodStatus('ns', podName);
  return [...(s?.initContainerStatuses ?? []), ...(s?.containerStatuses ?? [])].find((c) => c.name === name);
}

async function ready(sim: SimulatedProvider, podName: string): Promise<unknown> {
  return (await sim.getPodStatus('ns', podName))?.conditions?.find((c) => c.type === 'Ready');
}


const data = { volumes: [{ name: 'data', emptyDir: {} }] };
const mounted = { volumeMounts: [{ name: 'data', mountPath: '/data' }] };
const serve = (script: string): string[] => ['sh', '-c', `${script}; while true; do sleep 1; done`];

void t.test('a sidecar failing its readiness probe keeps the pod not Ready; once it passes the pod is Ready', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('side', [{ name: 'main', image: 'busybox', command: serve('true') }], {
    ...data,
    initContainers: [{ name: 'proxy', image: 'busybox', restartPolicy: 'Always', command: serve('true'), ...mounted, readinessProbe: { exec: { command: ['cat', '/data/ready'] }, periodSeconds: 1 } }],
  }));
  await pass(clock, 3000);
  t.match(await container(sim, 'side', 'proxy'), { state: { running: {} }, ready: false });
  t.match(await container(sim, 'side', 'main'), { state: { running: {} }, ready: true }, 'a sidecar that started lets the main container run');
  t.match(await ready(sim, 'side'), { status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [proxy]' });
  t.match(events.find((e) => e.reason === 'Unhealthy'), { note: /^Readiness probe failed: /, container: 'spec.initContainers{proxy}' });
  await sim.runInContainer({ namespace: 'ns', pod: 'side', container: 'proxy' }, ['sh', '-c', 'echo ok > /data/ready'], { tty: false });
  await pass(clock, 2000);
  t.match(await container(sim, 'side', 'proxy'), { ready: true });
  t.match(await ready(sim, 'side'), { status: 'True' });
});

void t.test('a sidecar\'s startup probe holds back the main containers until it passes', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('gate', [{ name: 'main', image: 'busybox', command: serve('true') }], {
    ...data,
    initContainers: [{ name: 'proxy', image: 'busybox', restartPolicy: 'Always', command: serve('sleep 4; echo > /data/up'), ...mounted, startupProbe: { exec: { command: ['cat', '/data/up'] }, periodSeconds: 1, failureThreshold: 30 } }],
  }));
  await pass(clock, 3000);
  t.match(await container(sim, 'gate', 'proxy'), { state: { running: {} }, started: false });
  t.match(await container(sim, 'gate', 'main'), { state: { waiting: { reason: 'PodInitializing' } } }, 'not started before the sidecar is');
  await pass(clock, 4000);
  t.match(await container(sim, 'gate', 'proxy'), { started: true, ready: true });
  t.match(await container(sim, 'gate', 'main'), { state: { running: {} } });
});

void t.test('a sidecar failing its liveness probe is restarted, with a Killing Event', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('sick', [{ name: 'main', image: 'busybox', command: serve('true') }], {
    initContainers: [{ name: 'proxy', image: 'busybox', restartPolicy: 'Always', command: serve('true'), livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1, initialDelaySeconds: 1 } }],
  }));
  await pass(clock, 3000);
  t.match(await container(sim, 'sick', 'proxy'), { restartCount: 1, lastState: { terminated: { exitCode: 143 } } });
  // computeInitContainerActions' words: a sidecar always restarts, and its note does not say so.
  t.match(events.find((e) => e.reason === 'Killing'), { note: 'Init container proxy failed liveness probe', container: 'spec.initContainers{proxy}' });
  t.match(await container(sim, 'sick', 'main'), { restartCount: 0, state: { running: {} } }, 'the main container runs on');
});
