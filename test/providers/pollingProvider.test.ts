import t, { type Test as Tap } from 'tap';
import type { ActorSystem } from '../../src/supervisors/actorSystem.js';
import { ManualClock } from '../support/manualClock.js';
import type { Pod, PodStatus } from '../../src/adapters/kubernetes/model.js';
import { notFound, transient } from '../../src/providers/errors.js';
import { PollingPodProvider, type PollingOptions } from '../../src/providers/pollingProvider.js';
import type { LegacyPodProvider, PodNotification } from '../../src/providers/provider.js';
import { loopPath, runLoops } from '../support/runningLoops.js';
import { until, drain } from '../support/until.js';
import {podFixture } from './helpers.js';

const running: PodStatus = { phase: 'Running', podIP: '10.0.0.5' };
const pending: PodStatus = { phase: 'Pending' };

/** A synchronous-style provider whose statuses the test sets directly. */
class FakeLegacy implements LegacyPodProvider {
  readonly statuses = new Map<string, PodStatus>();
  readonly calls: string[] = [];
  /** Names whose getPodStatus never answers (until aborted). */
  readonly hang = new Set<string>();
  /** Names whose getPodStatus fails with this error. */
  readonly fail = new Map<string, unknown>();
  async createPod(pod: Pod): Promise<void> {
    this.statuses.set(pod.metadata!.name!, pending);
  }
  async updatePod(): Promise<void> {}
  async deletePod(pod: Pod): Promise<void> {
    if (!this.statuses.has(pod.metadata!.name!)) throw notFound('no such pod');
  }
  async getPod(): Promise<Pod | undefined> {
    return undefined;
  }
  getPodStatus(_ns: string, name: string, signal?: AbortSignal): Promise<PodStatus | undefined> {
    this.calls.push(name);
    const failure = this.fail.get(name);
    if (failure !== undefined) return Promise.reject(failure);
    if (this.hang.has(name)) {
      return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    }
    return Promise.resolve(this.statuses.get(name));
  }
  async listPods(): Promise<Pod[]> {
    return [...this.statuses.keys()].map((name) => podFixture(name));
  }
}

const pollingPath = loopPath('pod-polling');

/** As the node's subtree does: the polling loop runs as a supervised reconciler. */
const runLoop = (t: Tap, clock: ManualClock, poller: PollingPodProvider, loops = poller.reconcilers()): Promise<ActorSystem> => runLoops(t, loops, clock);

function setup(options: PollingOptions = {}): {
  clock: ManualClock;
  legacy: FakeLegacy;
  poller: PollingPodProvider;
  seen: PodNotification[];
  errors: unknown[];
} {
  const clock = new ManualClock();
  const legacy = new FakeLegacy();
  const errors: unknown[] = [];
  const poller = new PollingPodProvider(legacy, { clock, onPollError: (err) => errors.push(err), ...options });
  const seen: PodNotification[] = [];
  poller.notifyPods((n) => seen.push(n));
  return { clock, legacy, poller, seen, errors };
}

const phases = (seen: PodNotification[]): string[] =>
  seen.map((n) => (n.type === 'status' ? `${n.pod.metadata?.name}:${n.pod.status?.phase}` : `${n.name}:gone:${n.reason}`));

void t.test('a created pod is polled on the interval and only changes are notified', async (t) => {
  const { clock, legacy, poller, seen } = setup({ intervalMs: 5000 });
  await runLoop(t, clock, poller);
  await poller.start();
  await poller.createPod(podFixture('a'));
  t.same(seen, [], 'nothing is notified from inside createPod');
  await drain(5);

  clock.advance(4999);
  await drain(1);
  t.same(legacy.calls, [], 'no poll before the interval');
  clock.advance(1);
  await until('first status', () => seen.length === 1);
  t.same(phases(seen), ['a:Pending']);
  await drain(5);

  clock.advance(5000);
  await until('second poll', () => legacy.calls.length === 2);
  await drain(5);
  t.equal(seen.length, 1, 'an unchanged status is not notified again');

  legacy.statuses.set('a', running);
  clock.advance(5000);
  await until('Running', () => seen.length === 2);
  t.same(phases(seen), ['a:Pending', 'a:Running']);
  const last = seen[1];
  t.equal(last?.type === 'status' ? last.pod.status?.podIP : undefined, '10.0.0.5');
  t.equal(last?.type === 'status' ? last.pod.spec?.containers[0]?.image : undefined, 'nginx:1.27', 'the notified pod carries the spec Tether gave');
  void poller.stop();
});

void t.test('pods the provider already runs are learned from listPods at start', async (t) => {
  const { legacy, poller, seen } = setup();
  legacy.statuses.set('old', running);
  await poller.start();
  t.equal(poller.trackedCount, 1);
  await poller.pollOnce();
  t.same(phases(seen), ['old:Running']);
  void poller.stop();
});

void t.test('a Running pod the provider lost is reported gone with reason NotFound', async (t) => {
  const { legacy, poller, seen } = setup();
  await poller.createPod(podFixture('a'));
  legacy.statuses.set('a', running);
  await poller.pollOnce();
  legacy.statuses.delete('a');
  await poller.pollOnce();
  t.same(phases(seen), ['a:Running', 'a:gone:NotFound']);
  t.match(seen[1], { type: 'gone', namespace: 'ns', name: 'a', uid: 'uid-a' });
  t.equal(poller.trackedCount, 0, 'a gone pod is no longer polled');
  await poller.pollOnce();
  t.equal(seen.length, 2, 'gone is reported once');
});

void t.test('a not-found error counts as the pod being missing', async (t) => {
  const { legacy, poller, seen, errors } = setup();
  legacy.statuses.set('a', running);
  await poller.start();
  await poller.pollOnce();
  legacy.fail.set('a', notFound('no such pod'));
  await poller.pollOnce();
  t.same(phases(seen), ['a:Running', 'a:gone:NotFound']);
  t.same(errors, []);
  void poller.stop();
});

void t.test('a starting pod that is missing is given the grace window, then reported gone', async (t) => {
  const { clock, legacy, poller, seen } = setup({ startingGraceMs: 60_000 });
  await poller.createPod(podFixture('a'));
  legacy.statuses.delete('a');
  clock.advance(59_999);
  await poller.pollOnce();
  t.same(seen, [], 'not yet: it may still be starting');
  clock.advance(1);
  await poller.pollOnce();
  t.same(phases(seen), ['a:gone:NotFound']);
});

void t.test('a pod seen Running gets no grace window', async (t) => {
  const { legacy, poller, seen } = setup();
  await poller.createPod(podFixture('a'));
  legacy.statuses.set('a', running);
  await poller.pollOnce();
  legacy.statuses.delete('a');
  await poller.pollOnce();
  t.same(phases(seen), ['a:Running', 'a:gone:NotFound']);
});

void t.test('after deletePod, a pod that disappears ends with a synthesized terminal status', async (t) => {
  const { legacy, poller, seen } = setup();
  await poller.createPod(podFixture('a'));
  legacy.statuses.set('a', {
    phase: 'Running',
    containerStatuses: [{ name: 'main', image: 'nginx:1.27', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: new Date(0) } } }],
  });
  await poller.pollOnce();
  await poller.deletePod(podFixture('a'));
  legacy.statuses.delete('a');
  await poller.pollOnce();
  t.same(phases(seen), ['a:Running', 'a:Succeeded']);
  const end = seen[1];
  t.match(end?.type === 'status' ? end.pod.status?.containerStatuses?.[0]?.state?.terminated : undefined, { exitCode: 0, reason: 'Completed' });
  t.equal(poller.trackedCount, 0);
});

void t.test('a pod that disappears after a terminal status is forgotten quietly', async (t) => {
  const { legacy, poller, seen } = setup();
  await poller.createPod(podFixture('job'));
  legacy.statuses.set('job', { phase: 'Succeeded' });
  await poller.pollOnce();
  legacy.statuses.delete('job');
  await poller.pollOnce();
  t.same(phases(seen), ['job:Succeeded'], 'no gone, no second terminal status');
  t.equal(poller.trackedCount, 0);
});

void t.test('deletePod of a pod the provider does not have rejects not-found and stops tracking it', async (t) => {
  const { legacy, poller } = setup();
  await poller.createPod(podFixture('a'));
  legacy.statuses.delete('a');
  await t.rejects(poller.deletePod(podFixture('a')), { name: 'ProviderError', kind: 'not-found' });
  t.equal(poller.trackedCount, 0);
});

void t.test('one hung getPodStatus does not hold back the others, and is abandoned after the timeout', async (t) => {
  const { clock, legacy, poller, seen, errors } = setup({ concurrency: 2, callTimeoutMs: 1000 });
  for (const name of ['slow', 'b', 'c']) await poller.createPod(podFixture(name));
  legacy.hang.add('slow');
  const round = poller.pollOnce();
  await until('the other two pods', () => seen.length === 2);
  t.same(phases(seen).sort(), ['b:Pending', 'c:Pending']);
  let finished = false;
  void round.then(() => (finished = true));
  await drain(1);
  t.equal(finished, false, 'the round waits for the slow call');
  clock.advance(1000);
  await until('the round to end', () => finished);
  t.equal(errors.length, 1);
  t.match(errors[0], { kind: 'transient', message: /timed out/ });
});

void t.test('a failing getPodStatus is reported and retried next round, without a notification', async (t) => {
  const { legacy, poller, seen, errors } = setup();
  await poller.createPod(podFixture('a'));
  legacy.fail.set('a', transient('remote down'));
  await poller.pollOnce();
  t.same(seen, []);
  t.equal(errors.length, 1);
  legacy.fail.delete('a');
  await poller.pollOnce();
  t.same(phases(seen), ['a:Pending']);
});

void t.test('after stop() nothing is polled, though the loop still runs', async (t) => {
  const { clock, legacy, poller, seen } = setup({ intervalMs: 5000 });
  await runLoop(t, clock, poller);
  await poller.start();
  await poller.createPod(podFixture('a'));
  await drain(5);
  void poller.stop();
  for (let i = 0; i < 12; i++) {
    clock.advance(5000);
    await drain(5);
  }
  clock.advance(300_000); // a resync of the loop lists the tracked pods again
  await drain(10);
  t.same(legacy.calls, []);
  t.same(seen, []);
});

void t.test('a pod is polled again only after its previous poll ended: never two calls for one pod at once', async (t) => {
  const { clock, legacy, poller, errors } = setup({ intervalMs: 5000, callTimeoutMs: 20_000 });
  await runLoop(t, clock, poller);
  await poller.start();
  await poller.createPod(podFixture('slow'));
  legacy.hang.add('slow');
  await drain(5);
  clock.advance(5000);
  await until('first call', () => legacy.calls.length === 1);
  clock.advance(15_000);
  await drain(5);
  t.equal(legacy.calls.length, 1, 'no second call while the first is in flight');
  clock.advance(5000);
  await until('the call abandoned at its timeout', () => errors.length === 1);
  await drain(5);
  t.equal(legacy.calls.length, 1, 'not retried at once');
  legacy.hang.delete('slow');
  clock.advance(6000); // the retry: an interval after the failure, with at most 20 % jitter
  await until('the second call', () => legacy.calls.length === 2);
  void poller.stop();
});

void t.test('a crash of the polling loop is restarted by its supervisor and every tracked pod is polled again', async (t) => {
  const { clock, legacy, poller, seen } = setup({ intervalMs: 5000 });
  const [polling] = poller.reconcilers();
  let crashes = 1;
  const crashing = { ...polling!, reconcile: (key: string, ctx: Parameters<NonNullable<typeof polling>['reconcile']>[1]) => {
    if (crashes-- > 0) throw new Error('a bug in one reconcile');
    return polling!.reconcile(key, ctx);
  } };
  const sys = await runLoop(t, clock, poller, [crashing]);
  await poller.start();
  await poller.createPod(podFixture('a'));
  await poller.createPod(podFixture('b'));
  legacy.statuses.set('b', running);
  await drain(5);
  clock.advance(5000);
  await until('crashed', () => sys.registry.get(pollingPath)?.snapshot().status === 'restarting');
  clock.advance(60_000); // the restart's backoff
  await until('both pods polled after the restart', () => seen.length === 2);
  t.same(phases(seen).sort(), ['a:Pending', 'b:Running'], 'no pod lost with the crashed incarnation');
  t.match(sys.registry.get(pollingPath)?.snapshot(), { restarts: 1, summary: { keys: 2 } });
  void poller.stop();
});

void t.test('one pod\'s notifications keep their order through the loop, and a deletion ends it last', async (t) => {
  const { clock, legacy, poller, seen } = setup({ intervalMs: 1000 });
  await runLoop(t, clock, poller);
  await poller.start();
  await poller.createPod(podFixture('a'));
  await drain(5);
  const steps: PodStatus[] = [pending, running, { phase: 'Running', podIP: '10.0.0.6' }];
  for (const step of steps) {
    legacy.statuses.set('a', step);
    const before = seen.length;
    clock.advance(1000);
    await until('the step polled', () => seen.length === before + 1);
    await drain(5);
  }
  await poller.deletePod(podFixture('a'));
  legacy.statuses.delete('a');
  await drain(5);
  clock.advance(1000);
  await until('the end', () => seen.length === 4);
  t.same(seen.map((n) => (n.type === 'status' ? `${n.pod.status?.phase}/${n.pod.status?.podIP ?? '-'}` : n.type)), ['Pending/-', 'Running/10.0.0.5', 'Running/10.0.0.6', 'Failed/10.0.0.6'], 'the end (synthesized from the last status) comes last');
  clock.advance(5000);
  await drain(10);
  t.equal(seen.length, 4, 'nothing after the end');
});

void t.test('a callback that throws does not stop polling of other pods', async (t) => {
  const { legacy, poller } = setup();
  const names: string[] = [];
  poller.notifyPods((n) => {
    if (n.type === 'status') names.push(n.pod.metadata!.name!);
    throw new Error('bad callback');
  });
  await poller.createPod(podFixture('a'));
  await poller.createPod(podFixture('b'));
  legacy.statuses.set('b', running);
  await poller.pollOnce();
  t.same(names.sort(), ['a', 'b']);
});

t.test('optional abilities of the polled provider (exec, logs…) show through the wrapper, and only those it has', async (t) => {
  class ExecLegacy extends FakeLegacy {
    async runInContainer(): Promise<number> {
      return this === (legacy as unknown) ? 7 : -1;
    }
  }
  const legacy = new ExecLegacy();
  const polling = new PollingPodProvider(legacy);
  const { isExecProvider, isLogsProvider } = await import('../../src/providers/provider.js');
  t.ok(isExecProvider(polling));
  t.notOk(isLogsProvider(polling), 'no logs ability invented');
  if (isExecProvider(polling)) t.equal(await polling.runInContainer({ namespace: 'a', pod: 'b', container: 'c' }, ['ls'], { tty: false }), 7, 'called on the polled provider');
  t.notOk(isExecProvider(new PollingPodProvider(new FakeLegacy())));
});
