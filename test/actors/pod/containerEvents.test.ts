/**
 * The kubelet's container Events, derived from two successive provider statuses: a table of
 * (previous, next) -> Events, each in the kubelet's reason and words (pkg/kubelet/events,
 * kuberuntime_container.go, images/image_manager.go).
 */
import t from 'tap';
import type { ContainerStatus, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { containerEvents, type ContainerEvent } from '../../../src/actors/pod/containerEvents.js';

const pod = { namespace: 'shop', name: 'web-1', uid: 'uid-1' };
const started = new Date('2026-11-30T04:00:00Z');

const waiting = (reason: string, message?: string, restartCount = 0): ContainerStatus =>
  ({ name: 'app', image: 'nginx:1', imageID: '', ready: false, restartCount, state: { waiting: { reason, ...(message ? { message } : {}) } } });
const runningC = (restartCount = 0, containerID = `sim://app-${restartCount}`): ContainerStatus =>
  ({ name: 'app', image: 'nginx:1', imageID: 'docker.io/library/nginx@sha256:1', containerID, ready: true, restartCount, started: true, state: { running: { startedAt: started } } });
const terminatedC = (restartCount = 0, containerID = `sim://app-${restartCount}`): ContainerStatus =>
  ({ name: 'app', image: 'nginx:1', imageID: 'docker.io/library/nginx@sha256:1', containerID, ready: false, restartCount, state: { terminated: { exitCode: 1, reason: 'Error', startedAt: started, finishedAt: started } } });
const status = (...containerStatuses: ContainerStatus[]): PodStatus => ({ phase: 'Running', containerStatuses });

const brief = (events: readonly ContainerEvent[]): string[] => events.map((e) => `${e.eventType} ${e.reason} ${e.note}`);

const table: Array<[string, PodStatus | undefined, PodStatus, string[]]> = [
  ['a first status that shows the container running: pulled, created, started', undefined, status(runningC()), [
    'Normal Pulling Pulling image "nginx:1"',
    'Normal Pulled Successfully pulled image "nginx:1"',
    'Normal Created Container created',
    'Normal Started Container started',
  ]],
  ['waiting (ContainerCreating) to running: pulled, created, started', status(waiting('ContainerCreating')), status(runningC()), [
    'Normal Pulling Pulling image "nginx:1"',
    'Normal Pulled Successfully pulled image "nginx:1"',
    'Normal Created Container created',
    'Normal Started Container started',
  ]],
  ['the same running container again: nothing', status(runningC()), status(runningC()), []],
  ['running to terminated (it exited on its own): nothing, as the kubelet', status(runningC()), status(terminatedC()), []],
  ['a first status that shows the container already ended: it ran, so it was created and started', undefined, status(terminatedC()), [
    'Normal Pulling Pulling image "nginx:1"',
    'Normal Pulled Successfully pulled image "nginx:1"',
    'Normal Created Container created',
    'Normal Started Container started',
  ]],
  ['terminated to CrashLoopBackOff: the restart back-off', status(terminatedC()), status(waiting('CrashLoopBackOff', 'back-off 10s', 0)), [
    'Warning BackOff Back-off restarting failed container app in pod web-1_shop(uid-1)',
  ]],
  ['CrashLoopBackOff again: nothing more', status(waiting('CrashLoopBackOff', 'back-off 10s', 1)), status(waiting('CrashLoopBackOff', 'back-off 20s', 1)), []],
  ['restarted (restartCount bumped): the image is present, created, started', status(waiting('CrashLoopBackOff', 'x', 0)), status(runningC(1)), [
    'Normal Pulled Container image "nginx:1" already present on machine',
    'Normal Created Container created',
    'Normal Started Container started',
  ]],
  ['running to running with a bumped restartCount (the exit was never seen): restarted', status(runningC(0)), status(runningC(1)), [
    'Normal Pulled Container image "nginx:1" already present on machine',
    'Normal Created Container created',
    'Normal Started Container started',
  ]],
  ['a pull that failed: pulling, then the failure', status(waiting('ContainerCreating')), status(waiting('ErrImagePull', 'manifest unknown')), [
    'Normal Pulling Pulling image "nginx:1"',
    'Warning Failed Failed to pull image "nginx:1": manifest unknown',
    'Warning Failed Error: ErrImagePull',
  ]],
  ['ErrImagePull to ImagePullBackOff: the pull back-off', status(waiting('ErrImagePull', 'manifest unknown')), status(waiting('ImagePullBackOff', 'Back-off pulling image "nginx:1"')), [
    'Normal BackOff Back-off pulling image "nginx:1"',
    'Warning Failed Error: ImagePullBackOff',
  ]],
  ['ImagePullBackOff back to ErrImagePull (the next attempt): pulling again, failed again', status(waiting('ImagePullBackOff')), status(waiting('ErrImagePull', 'manifest unknown')), [
    'Normal Pulling Pulling image "nginx:1"',
    'Warning Failed Failed to pull image "nginx:1": manifest unknown',
    'Warning Failed Error: ErrImagePull',
  ]],
  ['a container that cannot be configured: Failed with the error', status(waiting('ContainerCreating')), status(waiting('CreateContainerConfigError', 'secret "db" not found')), [
    'Warning Failed Error: secret "db" not found',
  ]],
  ['the same configuration error again: nothing', status(waiting('CreateContainerConfigError', 'secret "db" not found')), status(waiting('CreateContainerConfigError', 'secret "db" not found')), []],
  ['waiting to waiting (still creating): nothing', status(waiting('ContainerCreating')), status(waiting('ContainerCreating')), []],
];

for (const [name, previous, next, expected] of table) {
  t.test(name, async (t) => {
    t.same(brief(containerEvents(pod, previous, next)), expected);
  });
}

t.test('each Event names its container by the kubelet\'s field path', async (t) => {
  const next: PodStatus = { phase: 'Running', initContainerStatuses: [{ ...terminatedC(), name: 'init', state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: started } } }], containerStatuses: [runningC()] };
  const paths = [...new Set(containerEvents(pod, undefined, next).map((e) => e.fieldPath))];
  t.same(paths, ['spec.initContainers{init}', 'spec.containers{app}'], 'init containers first, as they ran');
});

t.test('containers are compared by name, each on its own', async (t) => {
  const sidecar = (s: ContainerStatus): ContainerStatus => ({ ...s, name: 'side', image: 'envoy:1' });
  const before = status(runningC(), sidecar(waiting('ContainerCreating')));
  const after = status(runningC(), sidecar(runningC()));
  t.same(containerEvents(pod, before, after).map((e) => `${e.fieldPath} ${e.reason}`), [
    'spec.containers{side} Pulling', 'spec.containers{side} Pulled', 'spec.containers{side} Created', 'spec.containers{side} Started',
  ]);
});

t.test('a status with no container statuses yet says nothing', async (t) => {
  t.same(containerEvents(pod, undefined, { phase: 'Pending' }), []);
});
