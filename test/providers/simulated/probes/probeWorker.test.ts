/** A probe's state follows the kubelet's prober worker: defaults, thresholds, initial delay, startup gating. */
import t from 'tap';
import { containerHealth, firstDue, gated, initialProbeState, observe, probeTiming, type ProbeResult, type ProbeWorkerState } from '../../../../src/providers/simulated/probes/probeWorker.js';
import { startContainerProbes, type ContainerProbesDeps } from '../../../../src/providers/simulated/probes/containerProbes.js';
import type { Container } from '../../../../src/providers/simulated/probes/probeWorker.js';
import { ManualClock } from '../../../support/manualClock.js';

const exec = { exec: { command: ['true'] } };

function feed(state: ProbeWorkerState, results: readonly ProbeResult[]): ProbeWorkerState {
  return results.reduce((s, r) => observe(s, r, 0, 0).state, state);
}

t.test('the API defaults: period 10 s, timeout 1 s, success 1, failure 3, no initial delay', async (t) => {
  t.same(probeTiming(exec), { initialDelayMs: 0, periodMs: 10_000, timeoutMs: 1_000, successThreshold: 1, failureThreshold: 3 });
  t.same(probeTiming({ ...exec, periodSeconds: 0, timeoutSeconds: -1 }).periodMs, 10_000, 'non-positive values take the default');
});

t.test('before any decision readiness is failure, liveness success, startup unknown', async (t) => {
  t.equal(initialProbeState('readiness', exec, 0).value, 'failure');
  t.equal(initialProbeState('liveness', exec, 0).value, 'success');
  t.equal(initialProbeState('startup', exec, 0).value, 'unknown');
});

t.test('the first probe waits for the initial delay from the container start', async (t) => {
  t.equal(firstDue(initialProbeState('readiness', { ...exec, initialDelaySeconds: 5 }, 1_000)), 6_000);
});

t.test('failures change the value only at the failure threshold, in a row', async (t) => {
  const ready = feed(initialProbeState('readiness', { ...exec, failureThreshold: 3 }, 0), ['success']);
  t.equal(ready.value, 'success');
  t.equal(feed(ready, ['failure', 'failure']).value, 'success', 'two failures are below the threshold');
  t.equal(feed(ready, ['failure', 'failure', 'success', 'failure', 'failure']).value, 'success', 'a success breaks the run');
  t.equal(feed(ready, ['failure', 'failure', 'failure']).value, 'failure');
});

t.test('successes change the value only at the success threshold', async (t) => {
  const state = initialProbeState('readiness', { ...exec, successThreshold: 2 }, 0);
  t.equal(feed(state, ['success']).value, 'failure');
  t.equal(feed(state, ['success', 'success']).value, 'success');
});

t.test('a liveness failure at the threshold puts the worker on hold: no next probe', async (t) => {
  const state = feed(initialProbeState('liveness', { ...exec, failureThreshold: 2 }, 0), ['failure']);
  const seen = observe(state, 'failure', 0, 0);
  t.equal(seen.state.value, 'failure');
  t.ok(seen.changed);
  t.ok(seen.state.onHold);
  t.equal(seen.nextDue, undefined);
});

t.test('the next probe is one period after the last began, never in the past', async (t) => {
  const state = initialProbeState('readiness', { ...exec, periodSeconds: 5 }, 0);
  t.equal(observe(state, 'failure', 1_000, 1_500).nextDue, 6_000);
  t.equal(observe(state, 'failure', 1_000, 9_000).nextDue, 9_000);
});

t.test('a startup probe gates the others; readiness needs started and a success', async (t) => {
  t.ok(gated(initialProbeState('readiness', exec, 0), false));
  t.notOk(gated(initialProbeState('readiness', exec, 0), true));
  t.ok(gated(initialProbeState('startup', exec, 0), true), 'the startup probe stops once started');
  t.same(containerHealth({}), { started: true, ready: true }, 'no probes: started and ready once running');
  t.same(containerHealth({ startup: 'unknown', readiness: 'success' }), { started: false, ready: false });
  t.same(containerHealth({ startup: 'success', readiness: 'failure' }), { started: true, ready: false });
  t.same(containerHealth({ startup: 'success' }), { started: true, ready: true });
});

function recorder(clock: ManualClock, exitCode: () => number) {
  const seen: string[] = [];
  const deps: ContainerProbesDeps = {
    clock,
    runExec: async () => ({ exitCode: exitCode(), output: exitCode() === 0 ? '' : 'not yet\n' }),
    answer: () => ({ result: 'success', message: '', delayMs: 0 }),
    onReadiness: (ready) => seen.push(`ready=${String(ready)}`),
    onStartup: (started) => seen.push(`started=${String(started)}`),
    onLivenessFailure: (message) => seen.push(`restart: ${message}`),
    onProbeEvent: (kind, reason, note) => seen.push(reason === 'Unhealthy' ? `${kind}: ${note}` : `${kind} ${reason}: ${note}`),
  };
  return { seen, deps };
}

async function advance(clock: ManualClock, ms: number): Promise<void> {
  // Probe results arrive as promises: let them settle between timer steps.
  for (let step = 0; step < ms; step += 500) {
    clock.advance(Math.min(500, ms - step));
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }
}

t.test('on the clock: the startup probe runs first, then readiness turns the container ready', async (t) => {
  const clock = new ManualClock(0);
  let code = 1;
  const { seen, deps } = recorder(clock, () => code);
  const container: Container = { name: 'app', startupProbe: { ...exec, periodSeconds: 1, failureThreshold: 30 }, readinessProbe: { ...exec, periodSeconds: 1 } };
  const probes = startContainerProbes(container, deps);
  await advance(clock, 2_000);
  t.same(seen.filter((s) => !s.startsWith('startup:')), [], 'not started while the startup probe fails');
  code = 0;
  await advance(clock, 3_000);
  t.same(seen.filter((s) => !s.startsWith('startup:')), ['started=true', 'ready=true']);
  probes.stop();
  t.equal(clock.pendingTimers, 0, 'stop cancels every timer');
});

t.test('on the clock: liveness failing three times in a row asks for a restart, once', async (t) => {
  const clock = new ManualClock(0);
  const { seen, deps } = recorder(clock, () => 1);
  startContainerProbes({ name: 'app', livenessProbe: { ...exec, initialDelaySeconds: 2 } }, deps);
  await advance(clock, 1_500);
  t.same(seen, [], 'nothing during the initial delay');
  await advance(clock, 60_000);
  t.same(seen, [
    'liveness: Liveness probe failed: not yet\n',
    'liveness: Liveness probe failed: not yet\n',
    'liveness: Liveness probe failed: not yet\n',
    'restart: Container app failed liveness probe',
  ]);
  t.equal(clock.pendingTimers, 0, 'on hold until the container restarts');
});

t.test('on the clock: an exec probe that outlives its timeout fails', async (t) => {
  const clock = new ManualClock(0);
  const { seen, deps } = recorder(clock, () => 0);
  startContainerProbes({ name: 'app', readinessProbe: exec }, { ...deps, runExec: (_command, _timeout, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))) });
  await advance(clock, 1_500);
  t.same(seen, ['readiness: Readiness probe failed: command timed out: "true" timed out after 1s']);
});

t.test('a container without probes sets no timer', async (t) => {
  const clock = new ManualClock(0);
  startContainerProbes({ name: 'app' }, recorder(clock, () => 0).deps);
  t.equal(clock.pendingTimers, 0);
});

t.test('on the clock: a warning counts as a success, with the kubelet\'s ProbeWarning note', async (t) => {
  const clock = new ManualClock(0);
  const { seen, deps } = recorder(clock, () => 0);
  startContainerProbes({ name: 'app', readinessProbe: { httpGet: { port: 80 }, periodSeconds: 1 } }, {
    ...deps, answer: () => ({ result: 'warning', message: 'Probe terminated redirects, Response body: moved', delayMs: 0 }),
  });
  await advance(clock, 500);
  t.same(seen, ['readiness ProbeWarning: Readiness probe warning: Probe terminated redirects, Response body: moved', 'ready=true']);
});

t.test('on the clock: a probe error is thrown away: an Unhealthy note, and the value does not move', async (t) => {
  const clock = new ManualClock(0);
  const { seen, deps } = recorder(clock, () => 0);
  startContainerProbes({ name: 'app', livenessProbe: { tcpSocket: { port: 'web' }, periodSeconds: 1, failureThreshold: 1 } }, {
    ...deps, answer: () => ({ result: 'error', message: 'strconv.Atoi: parsing "web": invalid syntax', delayMs: 0 }),
  });
  await advance(clock, 5_000);
  t.ok(seen.length >= 5, 'it keeps probing every period');
  t.same(new Set(seen), new Set(['liveness: Liveness probe errored and resulted in unknown state: strconv.Atoi: parsing "web": invalid syntax']), 'no restart');
});

t.test('on the clock: an exec that cannot run is a probe error, not a failure', async (t) => {
  const clock = new ManualClock(0);
  const { seen, deps } = recorder(clock, () => 0);
  startContainerProbes({ name: 'app', livenessProbe: { ...exec, periodSeconds: 1, failureThreshold: 1 } }, { ...deps, runExec: () => Promise.reject(new Error('container app is not running')) });
  await advance(clock, 3_000);
  t.notOk(seen.some((s) => s.startsWith('restart')));
  t.match(seen[0], 'liveness: Liveness probe errored and resulted in unknown state: container app is not running');
});

t.test('on the clock: an exec probe\'s command is $(VAR)-expanded with the container\'s literal env values only', async (t) => {
  const clock = new ManualClock(0);
  const { deps } = recorder(clock, () => 0);
  const ran: string[][] = [];
  startContainerProbes({
    name: 'app',
    env: [{ name: 'FILE', value: '/tmp/ready' }, { name: 'SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, { name: 'REF', value: '$(FILE)' }],
    readinessProbe: { exec: { command: ['cat', '$(FILE)', '$(SECRET)', '$(REF)', '$(NONE)', '$$(FILE)'] } },
  }, { ...deps, runExec: async (command) => { ran.push([...command]); return { exitCode: 0, output: '' }; } });
  await advance(clock, 500);
  t.same(ran, [['cat', '/tmp/ready', '', '$(FILE)', '$(NONE)', '$(FILE)']], 'ExpandContainerCommandOnlyStatic: valueFrom names are empty, values are not expanded again');
});

t.test('on the clock: readiness successThreshold counts warnings as successes, and an error between them breaks no run', async (t) => {
  const clock = new ManualClock(0);
  const { seen, deps } = recorder(clock, () => 0);
  const answers: Array<'success' | 'warning' | 'error' | 'failure'> = ['success', 'error', 'warning', 'success', 'failure', 'success', 'success', 'success'];
  startContainerProbes({ name: 'app', readinessProbe: { httpGet: { port: 80 }, periodSeconds: 1, successThreshold: 3, failureThreshold: 1 } }, {
    ...deps, answer: () => ({ result: answers.shift() ?? 'success', message: 'm', delayMs: 0 }),
  });
  const readiness = (): string[] => seen.filter((s) => s.startsWith('ready='));
  await advance(clock, 2_500);
  t.same(readiness(), [], 'two successes (the error thrown away) are below 3');
  await advance(clock, 1_000);
  t.same(readiness(), ['ready=true'], 'success, warning, success');
  await advance(clock, 1_000);
  t.same(readiness(), ['ready=true', 'ready=false'], 'one failure at threshold 1');
  await advance(clock, 2_000);
  t.same(readiness(), ['ready=true', 'ready=false'], 'ready again only after 3 in a row');
  await advance(clock, 1_000);
  t.same(readiness(), ['ready=true', 'ready=false', 'ready=true']);
});
