/** The simulated provider probes its containers: readiness drives Ready, liveness restarts, pods without probes pay nothing. */
import t from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import { drain } from '../../support/until.js';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { SimulatedProvider } from '../../../src/providers/simulated/simulatedProvider.js';
import { PROBE_RESPONSES_ANNOTATION } from '../../../src/providers/simulated/probes/probeResponses.js';

type Container = NonNullable<Pod['spec']>['containers'][number];

function setup(): { clock: ManualClock; sim: SimulatedProvider; advance: (ms: number) => Promise<void> } {
  const clock = new ManualClock(Date.parse('2026-12-03T00:00:00Z'));
  const sim = new SimulatedProvider({ clock, startLatencyMs: 1000 });
  sim.notifyPods(() => undefined);
  // Exec probes run in the shell, which awaits the container's view: let promises settle between steps.
  const advance = async (ms: number): Promise<void> => {
    for (let step = 0; step < ms; step += 500) {
      clock.advance(Math.min(500, ms - step));
      await drain(5);
    }
  };
  return { clock, sim, advance };
}

function pod(name: string, containers: Container[], annotations?: Record<string, string>): Pod {
  return { metadata: { name, namespace: 'shop', uid: `u-${name}`, ...(annotations ? { annotations } : {}) }, spec: { containers } };
}

async function status(sim: SimulatedProvider, name: string) {
  const s = await sim.getPodStatus('shop', name);
  const condition = (type: string) => s?.conditions?.find((c) => c.type === type);
  return { app: s?.containerStatuses?.[0], ready: condition('Ready'), containersReady: condition('ContainersReady') };
}

t.test('a failing exec readiness probe keeps the container not ready and the pod Ready=False', async (t) => {
  const { sim, advance } = setup();
  t.teardown(() => sim.stop());
  await sim.createPod(pod('web', [{ name: 'app', image: 'x', readinessProbe: { exec: { command: ['sh', '-c', 'exit 1'] }, periodSeconds: 1 } }]));
  await advance(10_000);
  const s = await status(sim, 'web');
  t.equal(s.app?.ready, false);
  t.equal(s.app?.started, true);
  t.match(s.ready, { status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' });
  t.match(s.containersReady, { status: 'False', reason: 'ContainersNotReady' });
});

t.test('a passing readiness probe makes the container ready and the pod Ready=True', async (t) => {
  const { sim, advance } = setup();
  t.teardown(() => sim.stop());
  await sim.createPod(pod('web', [{ name: 'app', image: 'x', readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 3 } }]));
  await advance(2_000);
  t.equal((await status(sim, 'web')).app?.ready, false, 'not ready before the first success');
  await advance(3_000);
  const s = await status(sim, 'web');
  t.equal(s.app?.ready, true);
  t.match(s.ready, { status: 'True' });
  t.match(s.containersReady, { status: 'True' });
});

t.test('an httpGet readiness probe fails as the annotation says, and passes on a declared port by default', async (t) => {
  const { sim, advance } = setup();
  t.teardown(() => sim.stop());
  const container: Container = { name: 'app', image: 'x', ports: [{ name: 'http', containerPort: 8080 }], readinessProbe: { httpGet: { path: '/ready', port: 'http' as unknown as number } } };
  await sim.createPod(pod('ok', [container]));
  await sim.createPod(pod('bad', [container], { [PROBE_RESPONSES_ANNOTATION]: JSON.stringify({ app: { readiness: { status: 500 } } }) }));
  await advance(5_000);
  t.equal((await status(sim, 'ok')).app?.ready, true);
  t.equal((await status(sim, 'bad')).app?.ready, false);
});

t.test('a liveness failure restarts the container: restartCount + 1, the last state killed', async (t) => {
  const { sim, advance } = setup();
  t.teardown(() => sim.stop());
  await sim.createPod(pod('web', [{ name: 'app', image: 'x', livenessProbe: { tcpSocket: { port: 9999 }, periodSeconds: 1, failureThreshold: 2 } }]));
  await advance(1_000);
  t.equal((await status(sim, 'web')).app?.restartCount, 0);
  await advance(1_500); // probes fail at 1 s and 2 s after the start: the second reaches the threshold
  const s = await status(sim, 'web');
  t.equal(s.app?.restartCount, 1);
  t.match(s.app?.lastState?.terminated, { exitCode: 137, reason: 'Error' });
  t.ok(s.app?.state?.running, 'running again');
});

t.test('a startup probe holds started and ready false until it succeeds', async (t) => {
  const { sim, advance } = setup();
  t.teardown(() => sim.stop());
  await sim.createPod(pod('web', [{ name: 'app', image: 'x', startupProbe: { exec: { command: ['true'] }, initialDelaySeconds: 5 } }]));
  await advance(2_000);
  t.match((await status(sim, 'web')).app, { started: false, ready: false });
  await advance(5_000);
  t.match((await status(sim, 'web')).app, { started: true, ready: true });
});

t.test('100 pods without probes start no probe timers and are ready once running', async (t) => {
  const { clock, sim, advance } = setup();
  t.teardown(() => sim.stop());
  for (let i = 0; i < 100; i++) await sim.createPod(pod(`p${i}`, [{ name: 'app', image: 'x' }]));
  t.equal(clock.pendingTimers, 100, 'one start timer per pod');
  await advance(1_000);
  t.equal(clock.pendingTimers, 0, 'running pods without probes keep no timer');
  t.equal((await status(sim, 'p7')).app?.ready, true);
});
