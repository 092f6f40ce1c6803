/**
 * The identity rule at the provider boundary: Tether routes a notification by the host uid only,
 * so one without it reaches no pod. Such a notification is no longer dropped silently: it is
 * counted (a gauge the provider contributes) and logged once per pod, and passed on unchanged.
 */
import t from 'tap';
import { jsonLogger } from '../../src/adapters/logger.js';
import { ManualClock } from '../support/manualClock.js';
import { MAX_LOGGED_PODS, routingUid, withIdentityChecks } from '../../src/providers/identityChecks.js';
import { hostUidMark } from '../../src/providers/podMarks.js';
import { isMetricsProvider, type PodNotification } from '../../src/providers/provider.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherMetrics } from '../../src/observability/metrics.js';
import { podFixture } from './helpers.js';

function logLines(): { lines: Array<Record<string, unknown>>; logger: ReturnType<typeof jsonLogger> } {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, logger: jsonLogger('debug', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) };
}

const withoutUid = (name: string): ReturnType<typeof podFixture> => {
  const pod = podFixture(name);
  delete pod.metadata!.uid;
  return pod;
};

t.test('a notification routes by the host uid mark, else the pod uid; a gone by its uid', async (t) => {
  const status = (metadata: Record<string, unknown>): PodNotification => ({ type: 'status', pod: { metadata } });
  t.equal(routingUid(status({ uid: 'remote', annotations: { [hostUidMark]: 'host' } })), 'host');
  t.equal(routingUid(status({ uid: 'own' })), 'own');
  t.equal(routingUid(status({ annotations: { [hostUidMark]: '' } })), undefined, 'an empty mark is no uid');
  t.equal(routingUid({ type: 'gone', namespace: 'ns', name: 'a', uid: undefined, reason: 'NotFound' }), undefined);
  t.equal(routingUid({ type: 'gone', namespace: 'ns', name: 'a', uid: 'u', reason: 'NotFound' }), 'u');
});

t.test('a status notification without the host uid is counted and logged once per pod, and still passed on', async (t) => {
  const clock = new ManualClock();
  const { lines, logger } = logLines();
  const inner = new SimulatedProvider({ clock, startLatencyMs: 10 });
  const provider = withIdentityChecks(inner, logger);
  const seen: PodNotification[] = [];
  provider.notifyPods((n) => seen.push(n));
  await provider.createPod(withoutUid('lost'));
  await provider.createPod(podFixture('fine'));
  clock.advance(10);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(seen.length, 4, 'every notification passes on (Pending and Running of both pods)');
  const warnings = lines.filter((l) => l.level === 'warn');
  t.equal(warnings.length, 1, 'logged once for the pod, not once per notification');
  t.match(warnings[0], { pod: 'ns/lost', provider: 'simulated', notification: 'status' });
  t.ok(isMetricsProvider(provider), 'the count is a gauge the provider contributes');
  const metrics = new TetherMetrics({ processMetrics: false });
  metrics.observeProvider('vk-1', provider);
  const text = await metrics.registry.metrics();
  t.ok(text.includes('tether_provider_notifications_without_host_uid_total{node="vk-1",type="status"} 2'), 'both of its notifications counted');
  t.ok(text.includes('tether_provider_notifications_without_host_uid_total{node="vk-1",type="gone"} 0'));
});

t.test('a gone without uid is counted too; the log remembers a bounded number of pods', async (t) => {
  const { lines, logger } = logLines();
  let push: ((n: PodNotification) => void) | undefined;
  const inner = new SimulatedProvider();
  inner.notifyPods = (callback): void => { push = callback; };
  const provider = withIdentityChecks(inner, logger);
  let passed = 0;
  provider.notifyPods(() => { passed += 1; });
  for (let i = 0; i < MAX_LOGGED_PODS + 50; i++) push?.({ type: 'gone', namespace: 'ns', name: `p${i}`, uid: undefined, reason: 'NotFound' });
  t.equal(passed, MAX_LOGGED_PODS + 50);
  t.equal(lines.length, MAX_LOGGED_PODS, `at most ${MAX_LOGGED_PODS} pods logged`);
  if (!isMetricsProvider(provider)) throw new Error('expected the count as a gauge');
  t.match(provider.providerMetrics().find((g) => g.name === 'tether_provider_notifications_without_host_uid_total')?.samples, [
    { labels: { type: 'status' }, value: 0 }, { labels: { type: 'gone' }, value: MAX_LOGGED_PODS + 50 },
  ]);
});
