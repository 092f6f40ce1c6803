/** Tether's own counters, and the scrape-time gauges a provider contributes through the contract (MetricsProvider). */
import t from 'tap';
import { TetherMetrics } from '../../src/observability/metrics.js';
import { kubernetesGauges, type ReflectionFigures } from '../../src/providers/kubernetes/providerGauges.js';
import type { MetricsProvider, ProviderGauge } from '../../src/providers/provider.js';

t.test('the Kubernetes provider\'s Service reflection per namespace: counts, taken names, a failing pass', async (t) => {
  const metrics = new TetherMetrics({ processMetrics: false });
  let figures: ReflectionFigures[] = [
    { namespace: 'shop', services: 3, endpointSlices: 2, taken: ['Service/db'], lastError: 'create remote service shop-home/web: 503' },
    { namespace: 'blog', services: 1, endpointSlices: 1, taken: [] },
  ];
  const provider: MetricsProvider = { providerMetrics: () => kubernetesGauges(4, figures) };
  metrics.observeProvider('vk-1', provider);
  const text = await metrics.registry.metrics();
  for (const line of [
    'tether_reflected_objects{node="vk-1",namespace="shop",kind="Service"} 3',
    'tether_reflected_objects{node="vk-1",namespace="shop",kind="EndpointSlice"} 2',
    'tether_reflected_objects{node="vk-1",namespace="blog",kind="Service"} 1',
    'tether_reflection_names_taken{node="vk-1",namespace="shop"} 1',
    'tether_reflection_failing{node="vk-1",namespace="shop"} 1',
    'tether_reflection_failing{node="vk-1",namespace="blog"} 0',
    'tether_remote_pods_ignored_total{node="vk-1"} 4',
  ]) t.ok(text.includes(line), line);
  figures = [];
  t.notMatch(await metrics.registry.metrics(), /namespace="shop"/, 'a namespace no longer reflected is gone from the next scrape');
});

t.test('a provider\'s gauges carry each node\'s label; a family that would clash or break a scrape is left out', async (t) => {
  const metrics = new TetherMetrics({ processMetrics: false });
  const gauge = (name: string, value: number, labelNames: string[] = []): ProviderGauge =>
    ({ name, help: 'h', labelNames, samples: [{ labels: Object.fromEntries(labelNames.map((l) => [l, 'x'])), value }] });
  metrics.observeProvider('vk-1', { providerMetrics: () => [gauge('tether_widgets', 1), gauge('tether_provider_calls_total', 9), gauge('not a name', 1)] });
  metrics.observeProvider('vk-2', { providerMetrics: () => [gauge('tether_widgets', 2), gauge('tether_widgets', 3, ['other'])] });
  metrics.observeProvider('vk-3', { name: 'no gauges' });
  const text = await metrics.registry.metrics();
  t.ok(text.includes('tether_widgets{node="vk-1"} 1'));
  t.ok(text.includes('tether_widgets{node="vk-2"} 2'));
  t.notOk(text.includes('other='), 'the same name with other labels is not mixed in');
  t.notOk(/tether_provider_calls_total\{[^}]*\} 9/.test(text), 'one of Tether\'s own names is not taken over');
});

t.test('kubelet API refusals by node and reason, and uncaught errors by kind, as counters', async (t) => {
  const metrics = new TetherMetrics({ processMetrics: false });
  metrics.recordKubeletRejection('vk-1', 'malformed-url');
  metrics.recordKubeletRejection('vk-1', 'malformed-url');
  metrics.recordKubeletRejection('vk-2', 'stream-cap');
  metrics.recordUncaughtError('unhandledRejection');
  const text = await metrics.registry.metrics();
  for (const line of [
    '# TYPE tether_kubelet_rejected_requests_total counter',
    'tether_kubelet_rejected_requests_total{node="vk-1",reason="malformed-url"} 2',
    'tether_kubelet_rejected_requests_total{node="vk-2",reason="stream-cap"} 1',
    '# TYPE tether_process_uncaught_errors_total counter',
    'tether_process_uncaught_errors_total{kind="unhandledRejection"} 1',
  ]) t.ok(text.includes(line), line);
});

t.test('under leader election the node-to-replica map and the live replicas are gauges; without it no node has a holder', async (t) => {
  const metrics = new TetherMetrics({ processMetrics: false });
  const system = { registry: { snapshot: () => [] } } as unknown as Parameters<TetherMetrics['observe']>[0]['system'];
  let holders: ReturnType<NonNullable<Parameters<TetherMetrics['observe']>[0]['nodeHolders']>> = {
    nodes: new Map([['vk-1', 'tether-0'], ['vk-2', 'tether-1'], ['vk-3', undefined]]),
    replicas: ['tether-0', 'tether-1', 'tether-2'],
  };
  metrics.observe({ system, nodes: [], nodeHolders: () => holders });
  const text = await metrics.registry.metrics();
  t.ok(text.includes('tether_ha_node_holder{node="vk-1",replica="tether-0"} 1'));
  t.ok(text.includes('tether_ha_node_holder{node="vk-2",replica="tether-1"} 1'));
  t.notMatch(text, /tether_ha_node_holder\{node="vk-3"/, 'a node nobody holds has no sample');
  t.ok(text.includes('tether_ha_replicas 3'));
  holders = undefined;
  t.notMatch(await metrics.registry.metrics(), /tether_ha_node_holder\{/, 'no leader election: no holder samples');
});
