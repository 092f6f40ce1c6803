/**
 * The simulated node runs its pods' probes as the kubelet does (issue 25): readiness decides
 * `ready` and the pod's `ContainersReady`/`Ready`, a liveness failure restarts the container
 * through the restart policy, a startup probe holds the others back, exec probes run in the
 * container's shell over its files, network probes are answered by the probe responses, and the
 * kubelet's `Unhealthy`/`Killing` Events go to the node's pod Event sink. On the manual clock.
 */
import t from 'tap';
import { ManualClock } from '../../../support/manualClock.js';
import type { ContainerStatus, Pod } from '../../../../src/adapters/kubernetes/model.js';
import { SimulatedProvider } from '../../../../src/providers/simulated/simulatedProvider.js';
import type { ConfigSource } from '../../../../src/providers/simulated/configSource.js';
import { passTime, simulatedPod } from '../support/simulatedNode.js';


interface SeenEvent { readonly pod: string; readonly type: string; readonly reason: string; readonly note: string; readonly container: string | undefined }

function setup(configSource?: ConfigSource): { clock: ManualClock; sim: SimulatedProvider; events: SeenEvent[] } {
  const clock = new ManualClock(Date.parse('2026-12-01T00:00:00Z'));
  const events: SeenEvent[] = [];
  const sim = new SimulatedProvider({
    clock, startLatencyMs: 1000, stopLatencyMs: 200, ...(configSource ? { configSource } : {}),
    podEvents: (pod, type, reason, note, about) => events.push({ pod: pod.name, type, reason, note, container: about?.fieldPath }),
  });
  sim.notifyPods(() => undefined);
  return { clock, sim, events };
}

const data = { volumes: [{ name: 'data', emptyDir: {} }] };
const mounted = { volumeMounts: [{ name: 'data', mountPath: '/data' }] };

const pod = simulatedPod;

/** Moves the clock in steps, letting the shell's promises run between them. */
const pass = (clock: ManualClock, ms: number, step = 500): Promise<void> => passTime(clock, ms, step, 5);

async function status(sim: SimulatedProvider, name: string): Promise<NonNullable<Pod['status']>> {
  const s = await sim.getPodStatus('ns', name);
  if (s === undefined) throw new Error(`no pod ${name}`);
  return s;
}

async function container(sim: SimulatedProvider, podName: string, name = 'main'): Promise<ContainerStatus | undefined> {
  return (await status(sim, podName)).containerStatuses?.find((c) => c.name === name);
}

const condition = async (sim: SimulatedProvider, podName: string, type: string): Promise<unknown> =>
  (await status(sim, podName)).conditions?.find((c) => c.type === type);

void t.test('a failing readiness probe keeps the pod not Ready; once it passes the pod is Ready', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('web', [{
    name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 10; echo up > /data/ready; sleep 1000'], ...mounted,
    readinessProbe: { exec: { command: ['cat', '/data/ready'] }, periodSeconds: 2, failureThreshold: 1 },
  }], data));
  await pass(clock, 4000);
  t.match(await container(sim, 'web'), { state: { running: {} }, started: true, ready: false });
  t.match(await condition(sim, 'web', 'ContainersReady'), { status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [main]' });
  t.match(await condition(sim, 'web', 'Ready'), { status: 'False', reason: 'ContainersNotReady' });
  t.match(events[0], { pod: 'web', type: 'Warning', reason: 'Unhealthy', container: 'spec.containers{main}' });
  t.match(events[0]?.note, /^Readiness probe failed: cat: .*\/data\/ready/);
  await pass(clock, 10_000);
  t.match(await container(sim, 'web'), { state: { running: {} }, ready: true, restartCount: 0 });
  t.match(await condition(sim, 'web', 'ContainersReady'), { status: 'True' });
  t.match(await condition(sim, 'web', 'Ready'), { status: 'True' });
});

void t.test('a liveness failure restarts the container: restartCount 1, Killing and Unhealthy Events', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('live', [{
    name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 1000'],
    livenessProbe: { exec: { command: ['sh', '-c', 'echo sick; exit 1'] }, periodSeconds: 2, failureThreshold: 2 },
  }]));
  await pass(clock, 1000);
  t.match(await container(sim, 'live'), { state: { running: {} }, ready: true, restartCount: 0 }, 'one failure is below the threshold');
  await pass(clock, 3000);
  const c = await container(sim, 'live');
  t.equal(c?.restartCount, 1, 'restarted once');
  t.match(c?.lastState?.terminated, { exitCode: 143, reason: 'Error' }, 'TERM first: a script without a trap dies of it');
  t.match(c?.state, { running: {} }, 'the first restart comes without back-off');
  t.same(events.slice(0, 3).map((e) => [e.type, e.reason, e.note, e.container]), [
    ['Warning', 'Unhealthy', 'Liveness probe failed: sick\n', 'spec.containers{main}'],
    ['Warning', 'Unhealthy', 'Liveness probe failed: sick\n', 'spec.containers{main}'],
    ['Normal', 'Killing', 'Container main failed liveness probe, will be restarted', 'spec.containers{main}'],
  ]);
});

void t.test('under restartPolicy Never a liveness failure ends the container and the pod fails', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('once', [{
    name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 1000'],
    livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1 },
  }], { restartPolicy: 'Never' }));
  await pass(clock, 2500);
  t.match(await container(sim, 'once'), { restartCount: 0, state: { terminated: { exitCode: 143 } } });
  t.equal((await status(sim, 'once')).phase, 'Failed');
  t.ok(events.some((e) => e.reason === 'Killing' && e.note === 'Container main failed liveness probe'), 'no "will be restarted"');
});

void t.test('a startup probe holds readiness and liveness back until it succeeds', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('slow', [{
    name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 6; echo > /data/started; sleep 1000'], ...mounted,
    startupProbe: { exec: { command: ['cat', '/data/started'] }, periodSeconds: 1, failureThreshold: 30 },
    livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1, initialDelaySeconds: 0 },
    readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
  }], data));
  await pass(clock, 4000);
  t.match(await container(sim, 'slow'), { state: { running: {} }, started: false, ready: false, restartCount: 0 }, 'liveness waits for startup');
  await pass(clock, 6000);
  t.equal((await container(sim, 'slow'))?.restartCount, 1, 'liveness runs once started, and fails');
});

void t.test('httpGet and tcpSocket probes are answered by the probe responses annotation', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('net', [
    { name: 'main', image: 'nginx', ports: [{ containerPort: 80 }], readinessProbe: { httpGet: { path: '/healthz', port: 80 }, periodSeconds: 1, failureThreshold: 1 } },
    { name: 'side', image: 'nginx', readinessProbe: { tcpSocket: { port: 80 }, periodSeconds: 1 } },
  ], {}, { 'sim.tether.dev/probe-responses': '{"main": {"readiness": {"status": 503}}}' }));
  await pass(clock, 3000);
  t.match(await container(sim, 'net'), { ready: false });
  t.match(await container(sim, 'net', 'side'), { ready: true }, 'port 80 is declared by a container of the pod');
  t.match(await condition(sim, 'net', 'Ready'), { status: 'False', message: 'containers with unready status: [main]' });
  t.ok(events.some((e) => e.note === 'Readiness probe failed: HTTP probe failed with statuscode: 503'));
});

void t.test('deleting the pod stops its probes: no timer is left once it ended', async (t) => {
  const { clock, sim } = setup();
  const p = pod('gone', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 1000'], readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 } }]);
  await sim.createPod(p);
  await pass(clock, 3000);
  t.match(await container(sim, 'gone'), { ready: true });
  await sim.deletePod(p);
  await pass(clock, 3000);
  t.equal(await sim.getPod('ns', 'gone'), undefined);
  t.equal(clock.pendingTimers, 0);
});

void t.test('an exec probe runs in the container as it was launched: an API outage or a deleted Secret afterwards kills nothing', async (t) => {
  let reads: 'up' | 'down' | 'gone' = 'up';
  const configSource: ConfigSource = {
    configMap: async () => undefined,
    secret: async (namespace, name) => {
      if (reads === 'down') throw new Error('connect ECONNREFUSED');
      return reads === 'up' && `${namespace}/${name}` === 'ns/creds' ? { token: 's3cret' } : undefined;
    },
  };
  const { clock, sim, events } = setup(configSource);
  await sim.createPod(pod('env', [{
    name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 1000'],
    env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } }],
    livenessProbe: { exec: { command: ['sh', '-c', 'test "$TOKEN" = s3cret'] }, periodSeconds: 1, failureThreshold: 1 },
  }]));
  await pass(clock, 3000);
  t.match(await container(sim, 'env'), { state: { running: {} }, restartCount: 0 }, 'the probe passes with the launched env');
  reads = 'down';
  await pass(clock, 5000);
  reads = 'gone';
  await pass(clock, 5000);
  t.match(await container(sim, 'env'), { state: { running: {} }, restartCount: 0 }, 'never killed');
  t.same(events.filter((e) => e.reason === 'Unhealthy' || e.reason === 'Killing'), [], 'no probe failed');
});

void t.test("an exec probe's output is kept to the kubelet's 10 KiB", async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('loud', [{
    name: 'main', image: 'busybox', command: ['sh', '-c', 'sleep 1000'],
    readinessProbe: { exec: { command: ['sh', '-c', 'i=0; while [ $i -lt 1100 ]; do echo 0123456789; i=$((i+1)); done; exit 1'] }, periodSeconds: 30, timeoutSeconds: 60, failureThreshold: 1 },
  }]));
  await pass(clock, 3000);
  const note = events.find((e) => e.reason === 'Unhealthy')?.note ?? '';
  t.ok(note.startsWith('Readiness probe failed: 0123456789\n'), note.slice(0, 60));
  t.ok(note.length <= 'Readiness probe failed: '.length + 10 * 1024, `kept to 10 KiB (${note.length} characters)`);
});

void t.test('an httpGet readiness probe answered with a redirect makes the container ready, with the kubelet\'s ProbeWarning Event', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('moved', [
    { name: 'main', image: 'nginx', ports: [{ containerPort: 80 }], readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 1 } },
  ], {}, { 'sim.tether.dev/probe-responses': '{"main": {"readiness": {"status": 302, "body": "see elsewhere"}}}' }));
  await pass(clock, 3000);
  t.match(await container(sim, 'moved'), { ready: true });
  t.match(events.find((e) => e.reason === 'ProbeWarning'), { type: 'Warning', note: 'Readiness probe warning: Probe terminated redirects, Response body: see elsewhere', container: 'spec.containers{main}' });
  t.notOk(events.some((e) => e.reason === 'Unhealthy'));
});

void t.test('a liveness probe on a port name the container does not declare never kills it: errored, thrown away', async (t) => {
  const { clock, sim, events } = setup();
  await sim.createPod(pod('unnamed', [
    { name: 'main', image: 'nginx', ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 1, failureThreshold: 1 } },
  ]));
  await pass(clock, 5000);
  t.match(await container(sim, 'unnamed'), { restartCount: 0, state: { running: {} } });
  t.match(events.find((e) => e.reason === 'Unhealthy'), { note: 'Liveness probe errored and resulted in unknown state: strconv.Atoi: parsing "http": invalid syntax' });
  t.notOk(events.some((e) => e.reason === 'Killing'));
});

void t.test('while the pod is deleted readiness keeps probing (its failure takes the container out of Ready) and liveness stops', async (t) => {
  const { clock, sim, events } = setup();
  const script = 'echo on > /data/serving; trap "rm /data/serving; sleep 5; exit 0" TERM; while true; do sleep 1; done';
  const p = pod('draining', [{
    name: 'main', image: 'busybox', command: ['sh', '-c', script], ...mounted,
    readinessProbe: { exec: { command: ['cat', '/data/serving'] }, periodSeconds: 1, failureThreshold: 1 },
    livenessProbe: { exec: { command: ['cat', '/data/serving'] }, periodSeconds: 1, failureThreshold: 1 },
  }], data);
  await sim.createPod(p);
  await pass(clock, 3000);
  t.match(await container(sim, 'draining'), { ready: true });
  await sim.deletePod(p);
  await pass(clock, 2500);
  t.match(await container(sim, 'draining'), { state: { running: {} }, ready: false }, 'the trap runs; readiness saw the file go');
  t.match(await condition(sim, 'draining', 'Ready'), { status: 'False' });
  t.ok(events.some((e) => e.note.startsWith('Readiness probe failed: cat:')));
  t.notOk(events.some((e) => e.note.startsWith('Liveness probe failed')), 'liveness stopped at the deletion');
  t.notOk(events.some((e) => e.reason === 'Killing'));
  await pass(clock, 5000);
  t.equal(await sim.getPod('ns', 'draining'), undefined);
  t.equal(clock.pendingTimers, 0);
});

void t.test('a pod deleted before its startup probe passed counts as started, as the kubelet sets startup to success', async (t) => {
  const { clock, sim } = setup();
  const p = pod('unstarted', [{
    name: 'main', image: 'busybox', command: ['sh', '-c', 'trap "sleep 3; exit 0" TERM; while true; do sleep 1; done'],
    startupProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 100 },
  }]);
  await sim.createPod(p);
  await pass(clock, 3000);
  t.match(await container(sim, 'unstarted'), { started: false });
  await sim.deletePod(p);
  await pass(clock, 1000);
  t.match(await container(sim, 'unstarted'), { state: { running: {} }, started: true });
});
