/**
 * What an idle pod does not hold of its own (issue 25's flat cost, docs/benchmarks.md "The simulated
 * node's container runtime at 10,000 pods"): a server container shares one empty view and one
 * program object with every other, keeps no log object, and its pod's status reuses its Dates. (Its
 * status's hidden class is not asserted here: in a shared test process V8's map deprecation made
 * that check flaky, and with migration it passed on the old spread code too; the bench shows it.)
 */
import t from 'tap';
import { SimulatedPods } from '../../../src/providers/simulated/simulatedPods.js';
import { EMPTY_VIEW } from '../../../src/providers/simulated/containerView.js';
import { containerProgram } from '../../../src/providers/simulated/imageCommands.js';
import { ManualClock } from '../../support/manualClock.js';
import { drain } from '../../support/until.js';
import { simulatedPod } from './support/simulatedNode.js';

async function twoIdlePods(): Promise<SimulatedPods> {
  const clock = new ManualClock(Date.parse('2026-12-03T00:00:00Z'));
  const pods = new SimulatedPods({ clock, hostIP: '10.0.0.10', podCIDR: '10.244.0.0/16', startLatencyMs: 50, notify: () => undefined });
  for (const name of ['a', 'b']) pods.start(`ns/${name}`, simulatedPod(name, [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }]));
  clock.advance(50);
  await drain();
  return pods;
}

t.test('two idle server pods share the one frozen empty view, and keep synthetic logs rather than a log object', async (t) => {
  const pods = await twoIdlePods();
  const [a, b] = [pods.get('ns/a'), pods.get('ns/b')];
  t.equal(a?.stage, 'running');
  t.equal(a?.containers?.launchedView('app'), EMPTY_VIEW);
  t.equal(b?.containers?.launchedView('app'), EMPTY_VIEW, 'the same object for both pods');
  t.ok(Object.isFrozen(EMPTY_VIEW));
  t.same(EMPTY_VIEW.env.size + EMPTY_VIEW.files.size, 0);
  t.equal(a?.containers?.logOf('app', false)?.kind, 'synthetic');
  pods.cancelTimers();
});

t.test('a program with no part of its own is one shared object; a shell program is its own', async (t) => {
  t.equal(containerProgram({ image: 'pause' }, {}, false, {}), containerProgram({ image: 'nginx' }, {}, false, {}));
  t.equal(containerProgram({ image: 'pause' }, {}, true, {}), containerProgram({ image: 'nginx' }, {}, true, {}));
  t.not(containerProgram({}, { command: ['sh', '-c', 'true'] }, false, {}), containerProgram({}, { command: ['sh', '-c', 'true'] }, false, {}));
});

t.test("an idle pod's status shares its Dates: startTime with the Pending conditions, the container's start with the Running ones", async (t) => {
  const pods = await twoIdlePods();
  const status = pods.get('ns/a')?.pod.status;
  const condition = (type: string): Date | undefined => status?.conditions?.find((c) => c.type === type)?.lastTransitionTime;
  t.equal(condition('Initialized'), status?.startTime, 'set at Pending, the start time itself');
  t.equal(status?.containerStatuses?.[0]?.state?.running?.startedAt, condition('Ready'), 'one Date for the instant it ran');
  t.not(condition('Ready'), status?.startTime, 'Running came 50 ms later: a Date of its own');
  pods.cancelTimers();
});
