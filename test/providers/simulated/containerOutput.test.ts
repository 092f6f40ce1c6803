/**
 * What a simulated container leaves behind and how it stops: its log (current, --previous,
 * --tail, --since, --timestamps, -f), its termination message, TERM on delete, the per-image
 * default commands, and the faults a pod asks for by image name. On the manual clock.
 */
import t from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import type { ContainerStatus } from '../../../src/adapters/kubernetes/model.js';
import { SimulatedProvider, type SimulatedProviderOptions } from '../../../src/providers/simulated/simulatedProvider.js';
import type { ShellRunner } from '../../../src/providers/simulated/containerRuntime.js';
import { staticConfigSource } from '../../../src/providers/simulated/configSource.js';
import { passTime, simulatedPod, type Container } from './support/simulatedNode.js';


function setup(options: SimulatedProviderOptions = {}): { clock: ManualClock; sim: SimulatedProvider } {
  const clock = new ManualClock(Date.parse('2026-12-01T00:00:00Z'));
  const sim = new SimulatedProvider({ clock, startLatencyMs: 1000, stopLatencyMs: 200, logIntervalMs: 1000, ...options });
  sim.notifyPods(() => undefined);
  return { clock, sim };
}

const pod = simulatedPod;

/** Moves the clock in steps, letting the shell's promises run between them. */
const pass = (clock: ManualClock, ms: number, step = 500): Promise<void> => passTime(clock, ms, step, 3);

async function container(sim: SimulatedProvider, podName: string, name = 'main'): Promise<ContainerStatus | undefined> {
  const s = await sim.getPodStatus('ns', podName);
  return [...(s?.initContainerStatuses ?? []), ...(s?.containerStatuses ?? [])].find((c) => c.name === name);
}

async function logs(sim: SimulatedProvider, podName: string, options = {}, name = 'main'): Promise<string> {
  let out = '';
  for await (const chunk of await sim.getContainerLogs('ns', podName, name, options)) out += chunk;
  return out;
}

/** A program that writes one line a second, `lines` times, then exits with `code`. */
function counting(lines: number, code: number): ShellRunner {
  let run = 0;
  return async (_argv, io) => {
    run++;
    for (let i = 1; i <= lines; i++) {
      await io.stdout(`run ${run} line ${i}\n`);
      await io.sleep(1000, io.signal);
    }
    return code;
  };
}

void t.test('logs: --previous is the instance before, --tail and --since select, --timestamps prefixes the time written', async (t) => {
  const { clock, sim } = setup({ runShell: counting(3, 1) });
  const start = clock.now();
  await sim.createPod(pod('app', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'app'] }], { restartPolicy: 'OnFailure' }));
  await pass(clock, 1000 + 3000);
  t.equal((await container(sim, 'app'))?.restartCount, 1);
  t.equal(await logs(sim, 'app', { previous: true }), 'run 1 line 1\nrun 1 line 2\nrun 1 line 3\n');
  await pass(clock, 2000);
  t.equal(await logs(sim, 'app'), 'run 2 line 1\nrun 2 line 2\nrun 2 line 3\n');
  t.equal(await logs(sim, 'app', { tailLines: 1 }), 'run 2 line 3\n');
  t.equal(await logs(sim, 'app', { sinceSeconds: 1 }), 'run 2 line 2\nrun 2 line 3\n');
  const stamp = new Date(start + 4000).toISOString().replace('Z', '000000Z');
  t.equal((await logs(sim, 'app', { timestamps: true, tailLines: 3 })).split('\n')[0], `${stamp} run 2 line 1`);
  t.equal(await logs(sim, 'app', { limitBytes: 5 }), 'run 2');
});

void t.test('logs -f follows what the command writes and ends when the container ends', async (t) => {
  const { clock, sim } = setup({ runShell: counting(3, 0) });
  await sim.createPod(pod('f', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'app'] }], { restartPolicy: 'Never' }));
  await pass(clock, 1000);
  const chunks: string[] = [];
  let ended = false;
  const reading = (async () => {
    for await (const chunk of await sim.getContainerLogs('ns', 'f', 'main', { follow: true })) chunks.push(chunk);
    ended = true;
  })();
  await pass(clock, 1000);
  t.same(chunks, ['run 1 line 1\n', 'run 1 line 2\n']);
  t.equal(ended, false);
  await pass(clock, 2000);
  await reading;
  t.same(chunks, ['run 1 line 1\n', 'run 1 line 2\n', 'run 1 line 3\n']);
});

void t.test('a container without a command keeps the synthetic log lines; --previous of one never restarted is refused', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('web', [{ name: 'main', image: 'nginx:1.27' }]));
  await pass(clock, 3000);
  t.equal(await logs(sim, 'web'), 'web/main line 1\nweb/main line 2\nweb/main line 3\n');
  await t.rejects(logs(sim, 'web', { previous: true }), /previous terminated container "main" in pod "web" not found/);
});

void t.test('the termination message is the file the command wrote, bounded to its last 4096 bytes', async (t) => {
  const runShell: ShellRunner = async (argv, io) => {
    io.files.write('/dev/termination-log', argv[2] === 'big' ? `${'x'.repeat(5000)}END` : 'all done');
    return 0;
  };
  const { clock, sim } = setup({ runShell });
  await sim.createPod(pod('msg', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'small'] }], { restartPolicy: 'Never' }));
  await sim.createPod(pod('big', [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'big'], terminationMessagePath: '/dev/termination-log' }], { restartPolicy: 'Never' }));
  await pass(clock, 1000);
  t.equal((await container(sim, 'msg'))?.state?.terminated?.message, 'all done');
  const big = (await container(sim, 'big'))?.state?.terminated?.message ?? '';
  t.equal(big.length, 4096);
  t.ok(big.endsWith('END'));
});

void t.test('FallbackToLogsOnError: a failed container without a message file gets the log\'s last 80 lines; a success gets none', async (t) => {
  const runShell: ShellRunner = async (argv, io) => {
    for (let i = 1; i <= 100; i++) await io.stdout(`line ${i}\n`);
    return argv[2] === 'fail' ? 1 : 0;
  };
  const { clock, sim } = setup({ runShell });
  const c = (script: string): Container => ({ name: 'main', image: 'busybox', command: ['sh', '-c', script], terminationMessagePolicy: 'FallbackToLogsOnError' });
  await sim.createPod(pod('bad', [c('fail')], { restartPolicy: 'Never' }));
  await sim.createPod(pod('good', [c('ok')], { restartPolicy: 'Never' }));
  await sim.createPod(pod('plain', [{ ...c('fail'), terminationMessagePolicy: 'File' }], { restartPolicy: 'Never' }));
  await pass(clock, 1000);
  const message = (await container(sim, 'bad'))?.state?.terminated?.message ?? '';
  t.equal(message.split('\n')[0], 'line 21');
  t.equal(message.split('\n').filter(Boolean).length, 80);
  t.equal((await container(sim, 'good'))?.state?.terminated?.message, undefined);
  t.equal((await container(sim, 'plain'))?.state?.terminated?.message, undefined);
});

void t.test('delete: a script that traps TERM ends in its own time with its own code; one that does not takes 143; one still running at the deadline 137', async (t) => {
  const runShell: ShellRunner = (argv, io) => new Promise((resolve) => {
    if (argv[2] === 'trap') io.signals.subscribe(() => void io.sleep(2000).then(() => resolve(3)));
    if (argv[2] === 'stubborn') io.signals.subscribe(() => undefined);
    io.signal?.addEventListener('abort', () => resolve(-1));
  });
  const { clock, sim } = setup({ runShell });
  for (const name of ['trap', 'plain', 'stubborn']) {
    await sim.createPod(pod(name, [{ name: 'main', image: 'busybox', command: ['sh', '-c', name] }], { terminationGracePeriodSeconds: 5 }));
  }
  await pass(clock, 1000);
  for (const name of ['trap', 'plain', 'stubborn']) await sim.deletePod({ ...pod(name, []), metadata: { name, namespace: 'ns', uid: `uid-${name}`, deletionGracePeriodSeconds: 5 } });
  const ended = new Map<string, ContainerStatus | undefined>();
  sim.notifyPods((n) => {
    if (n.type === 'status' && ['Succeeded', 'Failed'].includes(n.pod.status?.phase ?? '')) ended.set(n.pod.metadata?.name ?? '', n.pod.status?.containerStatuses?.[0]);
  });
  await pass(clock, 500, 100);
  t.match(ended.get('plain')?.state?.terminated, { exitCode: 143, reason: 'Error' }, 'TERM\'s default action after the stop latency');
  await pass(clock, 2000, 100);
  t.match(ended.get('trap')?.state?.terminated, { exitCode: 3 }, 'its trap ran and chose the code');
  t.equal(ended.has('stubborn'), false);
  await pass(clock, 3000, 100);
  t.match(ended.get('stubborn')?.state?.terminated, { exitCode: 137, reason: 'Error' }, 'killed at the grace deadline');
  t.equal(await sim.getPod('ns', 'stubborn'), undefined);
});

void t.test('no command: the image table decides; an image not in it, or a program the shell does not know, runs as a server', async (t) => {
  const { clock, sim } = setup({ imageCommands: { busybox: ['sh', '-c', 'echo from the table'] } });
  await sim.createPod(pod('hello', [{ name: 'main', image: 'docker.io/library/hello-world:latest' }], { restartPolicy: 'Never' }));
  await sim.createPod(pod('box', [{ name: 'main', image: 'busybox:1.36' }], { restartPolicy: 'Never' }));
  await sim.createPod(pod('server', [{ name: 'main', image: 'registry.example/app:1', command: ['/app/server', '--port=80'] }]));
  await pass(clock, 1000);
  t.match(await logs(sim, 'hello'), /Hello from Docker!/);
  t.equal((await sim.getPodStatus('ns', 'hello'))?.phase, 'Succeeded');
  t.equal(await logs(sim, 'box'), 'from the table\n');
  await pass(clock, 60_000, 10_000);
  t.match(await container(sim, 'server'), { state: { running: {} }, ready: true });
  t.match(await logs(sim, 'server'), /^simulated node: "\/app\/server" is not a program the built-in shell runs; it runs as a long-running server until stopped\n$/);
});

void t.test('faults as data: simulated/err-image-pull waits in ErrImagePull then ImagePullBackOff; simulated/oom is OOMKilled; the start-latency annotation', async (t) => {
  const { clock, sim } = setup();
  await sim.createPod(pod('pull', [{ name: 'main', image: 'simulated/err-image-pull:v1' }]));
  await sim.createPod(pod('oom', [{ name: 'main', image: 'simulated/oom' }], { restartPolicy: 'Never' }, { 'simulated.tether.dev/oom-after-ms': '3000' }));
  await sim.createPod(pod('slow', [{ name: 'main', image: 'nginx' }], {}, { 'simulated.tether.dev/start-latency-ms': '8000' }));
  await pass(clock, 1000);
  t.equal((await sim.getPodStatus('ns', 'slow'))?.phase, 'Pending', 'its own latency, not the node\'s 1 s');
  t.match(await container(sim, 'pull'), { state: { waiting: { reason: 'ErrImagePull', message: /simulated\/err-image-pull:v1/ } }, ready: false });
  t.equal((await sim.getPodStatus('ns', 'pull'))?.phase, 'Pending');
  await pass(clock, 1000);
  t.match(await container(sim, 'pull'), { state: { waiting: { reason: 'ImagePullBackOff', message: /^Back-off pulling image "simulated\/err-image-pull:v1": ErrImagePull: / } } });
  await pass(clock, 9000);
  t.equal((await container(sim, 'pull'))?.state?.waiting?.reason, 'ErrImagePull', 'pulled again after 10 s');
  t.match(await container(sim, 'oom'), { state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } });
  t.equal((await sim.getPodStatus('ns', 'oom'))?.phase, 'Failed');
  t.equal((await sim.getPodStatus('ns', 'slow'))?.phase, 'Running', 'after 8 s');
});

void t.test('a missing ConfigMap a command needs waits in CreateContainerConfigError; a node without a source leaves the reference out', async (t) => {
  const spec: Container = { name: 'main', image: 'busybox', command: ['sh', '-c', 'echo "[$X]" $Y'], env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'absent', key: 'x' } } }, { name: 'Y', value: 'literal' }] };
  const withSource = setup({ configSource: staticConfigSource({}) });
  await withSource.sim.createPod(pod('cfg', [spec], { restartPolicy: 'Never' }));
  await pass(withSource.clock, 1000);
  t.match(await container(withSource.sim, 'cfg'), { state: { waiting: { reason: 'CreateContainerConfigError', message: /configmap "absent" not found/ } } });
  const without = setup();
  await without.sim.createPod(pod('cfg', [spec], { restartPolicy: 'Never' }));
  await pass(without.clock, 1000);
  t.equal(await logs(without.sim, 'cfg'), '[] literal\n');
});
