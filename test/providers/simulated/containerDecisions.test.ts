/** The simulated node's pure container decisions: back-off, restart policy, phase, expansion, image defaults. */
import t from 'tap';
import fc from 'fast-check';
import type { ContainerStatus, PodSpec } from '../../../src/adapters/kubernetes/model.js';
import { CONTAINER_BACKOFF, crashLoopMessage, goDuration, restartDecision, type BackoffEntry } from '../../../src/providers/simulated/crashLoopBackOff.js';
import { podPhase, restartsAfterExit, shouldRestart } from '../../../src/providers/simulated/restartPolicy.js';
import { expandReferences } from '../../../src/providers/simulated/commandExpansion.js';
import { containerProgram, imageRepository, DEFAULT_IMAGE_COMMANDS } from '../../../src/providers/simulated/imageCommands.js';

void t.test('the back-off: the first exit restarts at once; each later one waits 10 s, 20 s, 40 s … capped at 5 min', async (t) => {
  let entry: BackoffEntry | undefined;
  let now = 0;
  const waits: number[] = [];
  for (let exit = 0; exit < 8; exit++) {
    now += 1000; // each run lasts 1 s
    const first = restartDecision(CONTAINER_BACKOFF, entry, now, now);
    if (first.type === 'wait') {
      waits.push(first.delayMs);
      now = first.until;
    }
    const started = restartDecision(CONTAINER_BACKOFF, entry, now - (first.type === 'wait' ? first.delayMs : 0), now);
    if (started.type !== 'start') throw new Error('expected a start once the back-off passed');
    entry = started.entry;
  }
  t.same(waits, [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
});

void t.test('the back-off resets once a container ran more than 10 min since its last restart', async (t) => {
  const entry: BackoffEntry = { delayMs: 160_000, lastUpdate: 0 };
  t.match(restartDecision(CONTAINER_BACKOFF, entry, 600_000, 600_000), { type: 'wait', delayMs: 160_000 }, 'exactly 10 min is not longer');
  t.same(restartDecision(CONTAINER_BACKOFF, entry, 600_001, 600_001), { type: 'start', entry: { delayMs: 10_000, lastUpdate: 600_001 } });
});

void t.test('the CrashLoopBackOff message is the kubelet\'s, with Go durations', async (t) => {
  t.same([10_000, 80_000, 300_000, 3_600_000].map(goDuration), ['10s', '1m20s', '5m0s', '1h0m0s']);
  t.equal(crashLoopMessage(20_000, 'app', { name: 'web', namespace: 'shop', uid: 'u1' }), 'back-off 20s restarting failed container=app pod=web_shop(u1)');
});

void t.test('restart policy: Always restarts any exit, OnFailure a failure, Never none', async (t) => {
  t.same([0, 1].map((code) => [shouldRestart('Always', code), shouldRestart('OnFailure', code), shouldRestart('Never', code)]), [[true, false, false], [true, true, false]]);
});

void t.test('after an exit: a sidecar always restarts, an init container after a failure unless Never, a probe-killed container unless Never whatever its code', async (t) => {
  const policies = ['Always', 'OnFailure', 'Never'] as const;
  const row = (role: 'init' | 'sidecar' | 'main', code: number, cause: 'exited' | 'probeKilled'): boolean[] => policies.map((p) => restartsAfterExit(role, p, code, cause));
  t.same(row('main', 0, 'exited'), [true, false, false]);
  t.same(row('main', 1, 'exited'), [true, true, false]);
  t.same(row('main', 0, 'probeKilled'), [true, true, false]);
  t.same(row('main', 137, 'probeKilled'), [true, true, false]);
  t.same(row('init', 0, 'exited'), [false, false, false]);
  t.same(row('init', 1, 'exited'), [true, true, false]);
  t.same(row('sidecar', 0, 'exited'), [true, true, true]);
});

const running = (name: string): ContainerStatus => ({ name, image: '', imageID: '', ready: true, restartCount: 0, state: { running: {} } });
const exited = (name: string, exitCode: number): ContainerStatus => ({ name, image: '', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode } } });
const backingOff = (name: string, exitCode: number): ContainerStatus => ({ name, image: '', imageID: '', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode } } });
const waiting = (name: string): ContainerStatus => ({ name, image: '', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } });
const spec = (restartPolicy: string, inits: PodSpec['initContainers'] = []): PodSpec => ({ restartPolicy, initContainers: inits, containers: [{ name: 'a' }, { name: 'b' }] });

void t.test('pod phase, as getPhase adds the statuses up', async (t) => {
  const cases: Array<[string, PodSpec, ContainerStatus[], ContainerStatus[], string]> = [
    ['one running, one exited 0 (Never)', spec('Never'), [], [running('a'), exited('b', 0)], 'Running'],
    ['all exited 0 (Never)', spec('Never'), [], [exited('a', 0), exited('b', 0)], 'Succeeded'],
    ['one exited 1 (Never)', spec('Never'), [], [exited('a', 0), exited('b', 1)], 'Failed'],
    ['all exited 0 (OnFailure)', spec('OnFailure'), [], [exited('a', 0), exited('b', 0)], 'Succeeded'],
    ['one backing off (OnFailure)', spec('OnFailure'), [], [exited('a', 0), backingOff('b', 1)], 'Running'],
    ['all exited 0 (Always): they restart', spec('Always'), [], [exited('a', 0), exited('b', 0)], 'Running'],
    ['a container not yet started', spec('Always'), [], [running('a'), waiting('b')], 'Pending'],
    ['an init container running', spec('Always', [{ name: 'i' }]), [running('i')], [waiting('a'), waiting('b')], 'Pending'],
    ['a failed init container (Never)', spec('Never', [{ name: 'i' }]), [exited('i', 1)], [waiting('a'), waiting('b')], 'Failed'],
    ['a failed init container backing off (OnFailure)', spec('OnFailure', [{ name: 'i' }]), [backingOff('i', 1)], [waiting('a'), waiting('b')], 'Pending'],
    ['a stopped sidecar beside finished containers', spec('Never', [{ name: 's', restartPolicy: 'Always' }]), [exited('s', 143)], [exited('a', 0), exited('b', 0)], 'Succeeded'],
  ];
  for (const [name, s, inits, mains, phase] of cases) t.equal(podPhase(s, inits, mains, false), phase, name);
  t.equal(podPhase(spec('Always'), [], [exited('a', 0), exited('b', 1)], true), 'Failed', 'a terminal pod ends whatever its policy');
});

void t.test('pod phase: a container backing off after a probe kill that exited 0 keeps an OnFailure pod Running', async (t) => {
  const mains = [exited('a', 0), backingOff('b', 0)];
  t.equal(podPhase(spec('OnFailure'), [], mains, false), 'Failed', 'by the exit code alone, as getPhase counts it');
  t.equal(podPhase(spec('OnFailure'), [], mains, false, new Set(['b'])), 'Running');
  t.equal(podPhase(spec('OnFailure'), [], mains, true, new Set(['b'])), 'Failed', 'a terminal pod is done whatever');
});

void t.test('$(VAR) expansion: known names, $$ escapes, unknown and unclosed references stay', async (t) => {
  const env = new Map([['A', 'x'], ['B', '$(A)']]);
  t.equal(expandReferences('$(A)-$(B)-$$(A)-$(C)-$(A-$-$x-$', env), 'x-$(A)-$(A)-$(C)-$(A-$-$x-$');
  t.equal(expandReferences('$()', env), '$()');
});

void t.test('$(VAR) expansion leaves any string without a $ unchanged, and $$ always becomes $', async () => {
  fc.assert(fc.property(fc.string(), (s) => {
    const plain = s.replace(/\$/g, '');
    return expandReferences(plain, new Map([['A', 'y']])) === plain && expandReferences(`$$${plain}`, new Map()) === `$${plain}`;
  }));
});

void t.test('what a container runs: command+args, else args, else the image table; unknown programs and images are servers', async (t) => {
  t.same(['busybox', 'busybox:1.36', 'docker.io/library/busybox:1.36', 'busybox@sha256:abc', 'ghcr.io/org/app:1', 'localhost:5000/app'].map(imageRepository),
    ['busybox', 'busybox', 'busybox', 'busybox', 'ghcr.io/org/app', 'localhost:5000/app']);
  const table = { ...DEFAULT_IMAGE_COMMANDS, busybox: ['sh'] };
  t.same(containerProgram({ image: 'busybox' }, { command: ['sh', '-c'], args: ['echo hi'] }, false, table), { kind: 'shell', argv: ['sh', '-c', 'echo hi'] });
  t.same(containerProgram({ image: 'nginx' }, { args: ['echo', 'hi'] }, false, table), { kind: 'shell', argv: ['echo', 'hi'] });
  t.same(containerProgram({ image: 'busybox:1.36' }, {}, false, table), { kind: 'shell', argv: ['sh'] });
  t.same(containerProgram({ image: 'nginx' }, {}, false, table), { kind: 'server' });
  t.same(containerProgram({ image: 'nginx' }, {}, true, table), { kind: 'instant' }, 'a regular init container with nothing to run completes');
  t.match(containerProgram({ image: 'nginx' }, { command: ['nginx', '-g', 'daemon off;'] }, false, table), { kind: 'server', note: /"nginx" is not a program the built-in shell runs/ });
});
