/** The scrape-time gauges fed by a provider's Service reflection. */
import t from 'tap';
import { TetherMetrics } from '../../src/observability/metrics.js';

t.test('Service reflection per namespace: counts, taken names, a failing pass', async (t) => {
  const metrics = new TetherMetrics({ processMetrics: false });
  let figures = [
    { namespace: 'shop', services: 3, endpointSlices: 2, taken: ['Service/db'], lastError: 'create remote service shop-home/web: 503' },
    { namespace: 'blog', services: 1, endpointSlices: 1, taken: [] },
  ];
  metrics.observeServiceReflection('vk-1', () => figures);
  const text = await metrics.registry.metrics();
  for (const line of [
    'tether_reflected_objects{node="vk-1",namespace="shop",kind="Service"} 3',
    'tether_reflected_objects{node="vk-1",namespace="shop",kind="EndpointSlice"} 2',
    'tether_reflected_objects{node="vk-1",namespace="blog",kind="Service"} 1',
    'tether_reflection_names_taken{node="vk-1",namespace="shop"} 1',
    'tether_reflection_failing{node="vk-1",namespace="shop"} 1',
    'tether_reflection_failing{node="vk-1",namespace="blog"} 0',
  ]) t.ok(text.includes(line), line);
  figures = [];
  t.notMatch(await metrics.registry.metrics(), /namespace="shop"/, 'a namespace no longer reflected is gone from the next scrape');
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
