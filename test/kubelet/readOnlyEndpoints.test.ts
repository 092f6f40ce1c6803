/** /pods, /runningpods/, /stats/summary and /metrics/resource: the kubelet's formats, in host terms. */
import t from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { nodePods, runningPods } from '../../src/kubelet/podListing.js';
import { resourceMetricsText, summaryForNode } from '../../src/kubelet/resourceMetrics.js';
import type { StatsSummary } from '../../src/providers/provider.js';

const running = {
  metadata: { name: 'web', namespace: 'shop', uid: 'host-uid' },
  spec: { nodeName: 'remote-worker-3', containers: [{ name: 'app', image: 'nginx', env: [{ name: 'A', value: 'b' }] }] },
  status: { phase: 'Running' },
} as Pod;
const pending = { metadata: { name: 'new', namespace: 'shop', uid: 'u2' }, spec: { containers: [{ name: 'app', image: 'x' }] }, status: { phase: 'Pending' } } as Pod;

t.test('/pods lists the pods as bound to the virtual node, whatever node the provider runs them on', async (t) => {
  const list = nodePods([running, pending], 'vk-1');
  t.match(list, { kind: 'PodList', apiVersion: 'v1', items: [{ metadata: { name: 'web', uid: 'host-uid' }, spec: { nodeName: 'vk-1' } }, { spec: { nodeName: 'vk-1' } }] });
  t.equal(running.spec?.nodeName, 'remote-worker-3', 'the provider\'s pod is not modified');
});

t.test('/runningpods/ keeps running pods only, reduced to identity and containers as the kubelet does', async (t) => {
  t.same(runningPods([running, pending]), {
    kind: 'PodList', apiVersion: 'v1', metadata: {},
    items: [{ metadata: { name: 'web', namespace: 'shop', uid: 'host-uid' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } }],
  });
});

const summary: StatsSummary = {
  node: { startTime: '2026-01-01T00:00:00Z', usage: { time: '2026-01-01T00:01:40Z', usageNanoCores: 100_000_000, workingSetBytes: 1000 } },
  pods: [{
    podRef: { namespace: 'shop', name: 'web', uid: 'host-uid' },
    startTime: '2026-01-01T00:00:00Z',
    usage: { time: '2026-01-01T00:01:40Z', usageNanoCores: 10_000_000, usageCoreNanoSeconds: 2_500_000_000, workingSetBytes: 64 },
    containers: [{ name: 'app', startTime: '2026-01-01T00:00:10Z', usage: { time: '2026-01-01T00:01:40Z', usageNanoCores: 10_000_000, workingSetBytes: 64 } }],
  }],
};

t.test('/stats/summary is the kubelet\'s stats/v1alpha1 Summary: the node named, cpu and memory apart', async (t) => {
  const at = '2026-01-01T00:01:40Z';
  t.same(summaryForNode(summary, 'vk-1'), {
    node: {
      nodeName: 'vk-1', startTime: '2026-01-01T00:00:00Z',
      cpu: { time: at, usageNanoCores: 100_000_000, usageCoreNanoSeconds: 10_000_000_000 },
      memory: { time: at, workingSetBytes: 1000 },
    },
    pods: [{
      podRef: { namespace: 'shop', name: 'web', uid: 'host-uid' },
      startTime: '2026-01-01T00:00:00Z',
      cpu: { time: at, usageNanoCores: 10_000_000, usageCoreNanoSeconds: 2_500_000_000 },
      memory: { time: at, workingSetBytes: 64 },
      containers: [{
        name: 'app', startTime: '2026-01-01T00:00:10Z',
        cpu: { time: at, usageNanoCores: 10_000_000, usageCoreNanoSeconds: 900_000_000 },
        memory: { time: at, workingSetBytes: 64 },
      }],
    }],
  });
});

t.test('/metrics/resource: the kubelet\'s families, cumulative CPU (given, or rate × time since start), timestamps in ms', async (t) => {
  const text = resourceMetricsText(summary);
  const at = Date.parse('2026-01-01T00:01:40Z');
  t.match(text, `# TYPE node_cpu_usage_seconds_total counter\nnode_cpu_usage_seconds_total 10 ${at}\n`);
  t.match(text, `node_memory_working_set_bytes 1000 ${at}\n`);
  t.match(text, `pod_cpu_usage_seconds_total{namespace="shop",pod="web"} 2.5 ${at}\n`);
  t.match(text, `container_cpu_usage_seconds_total{container="app",namespace="shop",pod="web"} 0.9 ${at}\n`);
  t.match(text, `container_memory_working_set_bytes{container="app",namespace="shop",pod="web"} 64 ${at}\n`);
  t.match(text, `container_start_time_seconds{container="app",namespace="shop",pod="web"} ${Date.parse('2026-01-01T00:00:10Z') / 1000} ${at}\n`);
  t.match(text, /resource_scrape_error 0\n$/);
  t.equal(text.match(/# TYPE container_cpu_usage_seconds_total/g)?.length, 1, 'one TYPE line per family');
});
