import t from 'tap';
import type { PodStatus } from '../../src/adapters/kubernetes/model.js';
import { isTerminalPhase, mergeConditions, podCondition, terminatedStatus } from '../../src/providers/podStatus.js';
import { podFixture } from './helpers.js';

const now = new Date('2026-11-30T03:00:00Z');

void t.test('only Succeeded and Failed are terminal', async (t) => {
  t.same(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown', undefined].map(isTerminalPhase), [false, false, true, true, false, false]);
});

void t.test('an unchanged condition keeps its transition time', async (t) => {
  const before = [podCondition('Ready', true, new Date(0))];
  const merged = mergeConditions(before, [podCondition('Ready', true, now), podCondition('Initialized', true, now)]);
  t.equal(merged[0]?.lastTransitionTime?.getTime(), 0);
  t.equal(merged[1]?.lastTransitionTime, now);
  t.equal(mergeConditions(before, [podCondition('Ready', false, now)])[0]?.lastTransitionTime, now);
});

void t.test('a terminated pod whose running containers exit 0 is Succeeded; addresses are kept', async (t) => {
  const pod = podFixture('web', { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] });
  const previous: PodStatus = {
    phase: 'Running',
    podIP: '10.244.0.2',
    containerStatuses: [
      { name: 'a', image: 'x', imageID: 'i', ready: true, restartCount: 2, containerID: 'c1', state: { running: { startedAt: new Date(0) } } },
      { name: 'b', image: 'y', imageID: 'i', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
    ],
  };
  const status = terminatedStatus(pod, previous, { now, exitCode: 0, reason: 'Completed' });
  t.equal(status.phase, 'Succeeded');
  t.equal(status.podIP, '10.244.0.2');
  t.match(status.containerStatuses?.[0], { ready: false, restartCount: 2, state: { terminated: { exitCode: 0, reason: 'Completed', containerID: 'c1', finishedAt: now } } });
  t.match(status.conditions?.find((c) => c.type === 'ContainersReady'), { status: 'False', reason: 'PodCompleted' });
});

void t.test('a container that never started ends as ContainerStatusUnknown and the pod Failed', async (t) => {
  const status = terminatedStatus(podFixture('web'), { phase: 'Pending' }, { now, exitCode: 0, reason: 'Completed' });
  t.equal(status.phase, 'Failed');
  t.match(status.containerStatuses?.[0]?.state?.terminated, { exitCode: 137, reason: 'ContainerStatusUnknown' });
});

void t.test('a killed container makes the pod Failed', async (t) => {
  const previous: PodStatus = { containerStatuses: [{ name: 'main', image: 'x', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] };
  t.equal(terminatedStatus(podFixture('web'), previous, { now, exitCode: 137, reason: 'Error' }).phase, 'Failed');
});
